//! SVG export through Graphviz.
//!
//! Design note: there is no pure-Rust renderer of DOT with clusters that
//! is small enough to take on, so [`Plan::to_svg`] runs Graphviz's `dot`
//! program where it is installed and says so clearly where it is not.
//! [`Plan::to_dot`] needs nothing.

use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Stdio};

use crate::plan::Plan;

/// Why [`Plan::to_svg`] gave no SVG.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SvgError {
    /// The Graphviz program was not found.
    #[error(
        "cannot render SVG: the Graphviz program `{program}` is not installed (or not on PATH); install Graphviz, or write `Plan::to_dot()` to a file and render it elsewhere"
    )]
    NotInstalled {
        /// The program looked for.
        program: String,
    },
    /// The program ran and failed.
    #[error("`{program} -Tsvg` failed ({status}): {stderr}")]
    Failed {
        /// The program run.
        program: String,
        /// Its exit status.
        status: std::process::ExitStatus,
        /// What it wrote to stderr.
        stderr: String,
    },
    /// Running the program failed otherwise.
    #[error("cannot run `{program}`: {source}")]
    Io {
        /// The program run.
        program: String,
        /// The error.
        source: std::io::Error,
    },
}

impl Plan {
    /// The plan as SVG, rendered by Graphviz's `dot` program from
    /// [`to_dot`](Plan::to_dot). Fails with [`SvgError::NotInstalled`] if
    /// `dot` is not on `PATH`.
    ///
    /// ```no_run
    /// use adl::graph::{NodeInfo, Stage};
    /// use adl::engine::{GraphBuilder, Planner};
    ///
    /// let description = GraphBuilder::new().collate(NodeInfo::new("default", Stage::Collate)).build();
    /// let plan = Planner.plan(&description)?;
    /// match plan.to_svg() {
    ///     Ok(svg) => std::fs::write("pipeline.svg", svg)?,
    ///     Err(adl::engine::SvgError::NotInstalled { .. }) => std::fs::write("pipeline.dot", plan.to_dot())?,
    ///     Err(e) => return Err(e.into()),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_svg(&self) -> Result<String, SvgError> {
        self.to_svg_with("dot")
    }

    /// [`to_svg`](Plan::to_svg) with another Graphviz program (a path to
    /// `dot`, or another layout such as `neato`).
    pub fn to_svg_with(&self, program: impl AsRef<OsStr>) -> Result<String, SvgError> {
        let program = program.as_ref();
        let name = program.to_string_lossy().into_owned();
        let io = |source| SvgError::Io {
            program: name.clone(),
            source,
        };
        let mut child = match Command::new(program)
            .arg("-Tsvg")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SvgError::NotInstalled { program: name });
            }
            Err(e) => return Err(io(e)),
        };
        // Write on another thread: `dot` may fill its stdout before it has
        // read all of its stdin.
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let dot = self.to_dot();
        let writer = std::thread::spawn(move || stdin.write_all(dot.as_bytes()));
        let output = child.wait_with_output().map_err(io)?;
        // A write error is a broken pipe when `dot` failed: its status and
        // stderr say more.
        let written = writer.join().expect("the writer does not panic");
        if !output.status.success() {
            return Err(SvgError::Failed {
                program: name,
                status: output.status,
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        written.map_err(io)?;
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

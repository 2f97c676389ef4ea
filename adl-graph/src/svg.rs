//! SVG export: drawn in pure Rust ([`Plan::to_svg`]: the DOT's groups,
//! the source side and the sink's batch type, on a canvas the size of the
//! drawing), or through Graphviz where it is installed
//! ([`Plan::to_svg_with`], which renders [`Plan::to_dot`]).
//!
//! Design note: a plan is a chain with parallel bodies (a split, its
//! branches, a merge) nested in it, so it is laid out as nested blocks,
//! left to right on one centre line, without a general graph layout:
//! [`picture`] says what is drawn (shapes, the groups that frame them,
//! arrows), [`layout`] where (sizes from the text in a monospaced font),
//! [`draw`] writes the SVG.

mod draw;
mod layout;
mod picture;

use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Stdio};

use crate::plan::Plan;

/// Why [`Plan::to_svg_with`] gave no SVG (the pure-Rust
/// [`Plan::to_svg`] always gives one).
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
    /// The plan as SVG, laid out and drawn in pure Rust (no Graphviz
    /// needed), grouped as [`to_dot`](Plan::to_dot) groups it: the read
    /// stage (its pool) around the source side, each stage with its pool,
    /// each device, each group of kernels that run as one, each branch.
    /// The source side is what the loader's dataset tells
    /// ([`sources`](Plan::sources): the sensors of the first sample with
    /// their files, into the trace that synchronizes them); the sink says
    /// the batch type that leaves; the schedule is written on top. A node
    /// where it may not stand and an edge whose ends disagree on the type
    /// are red; edges carry the type that flows, as a user writes it; a
    /// node's doc is its tooltip. The canvas is the size of the drawing.
    ///
    /// It always gives a picture; the `Result` is the one of
    /// [`to_svg_with`](Plan::to_svg_with), so that a program can switch
    /// between the two.
    ///
    /// ```
    /// use adl::description::{NodeInfo, Stage};
    /// use adl::graph::{GraphBuilder, Planner};
    ///
    /// let description = GraphBuilder::new()
    ///     .sample(NodeInfo::new("decode", Stage::Sample).typed::<Vec<u8>, f32>())
    ///     .collate(NodeInfo::new("default", Stage::Collate).typed::<f32, Vec<f32>>())
    ///     .build();
    /// let svg = Planner.plan(&description)?.to_svg()?;
    /// assert!(svg.contains(">decode<") && svg.contains(">sample · 1 worker + consumer<"));
    /// assert!(svg.contains(">Vec&lt;f32&gt;<")); // the batch type, at the sink
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_svg(&self) -> Result<String, SvgError> {
        Ok(draw::svg(&picture::Picture::of(self)))
    }

    /// The plan as SVG rendered by a Graphviz program (`"dot"`, a path to
    /// it, or another layout such as `neato`) from
    /// [`to_dot`](Plan::to_dot), with its clusters. Fails with
    /// [`SvgError::NotInstalled`] if the program is not on `PATH`; the
    /// pure-Rust [`to_svg`](Plan::to_svg) needs nothing.
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

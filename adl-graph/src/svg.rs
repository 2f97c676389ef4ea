//! SVG export: in pure Rust ([`Plan::to_svg`], laid out and drawn by the
//! `layout-rs` crate), or through Graphviz where it is installed
//! ([`Plan::to_svg_with`], which draws the clusters of
//! [`Plan::to_dot`]).
//!
//! Design note: layout-rs lays out a plain directed graph; it draws no
//! clusters. So each box says what the DOT's clusters say: its stage and
//! device on a second line (`sample · cpu`, `batch · opencl kernel`), its
//! branch on a third, and a run of fused kernels `fused: a + b`; a node in
//! a stage where it may not stand, and an edge whose ends disagree on the
//! type, are red.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Stdio};

use adl_core::graph::{Device, Stage};
use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::style::StyleAttr;
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;
use petgraph::visit::EdgeRef;

use crate::plan::{NodeKind, Plan};
use crate::schedule::LoaderStage;

/// Why [`Plan::to_svg`] ([`Layout`](SvgError::Layout)) or
/// [`Plan::to_svg_with`] (the others) gave no SVG.
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
    /// The pure-Rust layout failed (it panicked; the panic was caught).
    #[error(
        "cannot lay out the plan as SVG: {message}; write `Plan::to_dot()` and render it with Graphviz instead"
    )]
    Layout {
        /// What the layout said.
        message: String,
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
    /// The plan as SVG, laid out and drawn in pure Rust by layout-rs (no
    /// Graphviz needed). layout-rs draws no clusters, so each box says
    /// what the DOT's clusters say: the node's name, then its stage and
    /// device (`sample · cpu`, `batch · opencl kernel`), its fused group
    /// (`fused: a + b`) and its branch; a node where it may not stand and
    /// an edge whose ends disagree on the type are red. Edges carry the
    /// type that flows, as a user writes it.
    ///
    /// A panic of the layout is caught and returned as
    /// [`SvgError::Layout`] (the panic hook still prints it; under
    /// `panic = "abort"` it aborts).
    ///
    /// ```
    /// use adl::graph::{NodeInfo, Stage};
    /// use adl::engine::{GraphBuilder, Planner};
    ///
    /// let description = GraphBuilder::new()
    ///     .sample(NodeInfo::new("decode", Stage::Sample).typed::<Vec<u8>, f32>())
    ///     .collate(NodeInfo::new("default", Stage::Collate).typed::<f32, Vec<f32>>())
    ///     .build();
    /// let svg = Planner.plan(&description)?.to_svg()?;
    /// assert!(svg.contains("<svg") && svg.contains("decode") && svg.contains("sample · cpu"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_svg(&self) -> Result<String, SvgError> {
        let visual = self.visual_graph();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            let mut visual = visual;
            let mut svg = SVGWriter::new();
            visual.do_it(false, false, false, &mut svg);
            svg.finalize()
        }))
        .map_err(|panic| SvgError::Layout {
            message: panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the layout panicked".to_owned()),
        })
    }

    /// The plan as a layout-rs graph: boxes and arrows with their labels.
    fn visual_graph(&self) -> VisualGraph {
        let mut visual = VisualGraph::new(Orientation::LeftToRight);
        let fused = self.fused_groups();
        let mut handles = HashMap::new();
        let pool = |stage| {
            self.schedule
                .pool(stage)
                .map_or_else(String::new, |p| p.short())
        };
        for n in self.graph.node_indices() {
            let node = &self.graph[n];
            let mut look = StyleAttr::simple();
            let shape = match node.kind() {
                NodeKind::Source => {
                    ShapeKind::new_box(&format!("source\nread · {}", pool(LoaderStage::Read)))
                }
                NodeKind::Sink => ShapeKind::new_circle(node.name()),
                NodeKind::Split | NodeKind::Merge => ShapeKind::new_double_circle(node.name()),
                NodeKind::Transform { info, .. } => {
                    let mut label = info.name.to_string();
                    let stage = node.stands_in();
                    let device = match (info.kernel.is_some(), node.device(), &self.schedule.device)
                    {
                        (true, Device::OpenCl, Some(name)) => format!("opencl kernel on {name}"),
                        (true, _, _) => "kernel: Rust body".to_owned(),
                        _ => "cpu".to_owned(),
                    };
                    let stage_name = stage.map_or("?".to_owned(), |s| s.to_string());
                    let threads = stage.map_or_else(String::new, |s| {
                        pool(match s {
                            Stage::Sample => LoaderStage::Sample,
                            Stage::Collate => LoaderStage::Collate,
                            Stage::Batch => LoaderStage::Batch,
                        })
                    });
                    label.push_str(&format!("\n{stage_name} · {device}\n{threads}"));
                    if let Some(group) = fused.iter().find(|g| g.contains(&n)) {
                        let names: Vec<&str> =
                            group.iter().map(|&m| self.graph[m].name()).collect();
                        let what = if node.device() == Device::OpenCl {
                            "fused kernel"
                        } else {
                            "fused loop"
                        };
                        label.push_str(&format!("\n{what}: {}", names.join(" + ")));
                    }
                    if !node.branch().is_empty() {
                        label.push_str(&format!("\nbranch {}", node.branch().join("/")));
                    }
                    if node.is_misplaced() {
                        look.line_color = Color::fast("red");
                    }
                    ShapeKind::new_box(&label)
                }
            };
            let size = get_shape_size(Orientation::LeftToRight, &shape, look.font_size, false);
            let element = Element::create(shape, look, Orientation::LeftToRight, size);
            handles.insert(n, visual.add_node(element));
        }
        for edge in self.graph.edge_references() {
            let flow = edge.weight();
            let mut label = flow.branch.clone().unwrap_or_default();
            let ty = match (flow.given, flow.taken) {
                (Some(given), Some(taken)) if flow.is_mismatch() => {
                    Some(format!("{} ≠ {}", given.short_name(), taken.short_name()))
                }
                _ => flow.ty().map(|t| t.short_name()),
            };
            if let Some(ty) = ty {
                if !label.is_empty() {
                    label.push_str(": ");
                }
                label.push_str(&ty);
            }
            let mut arrow = Arrow::simple(&label);
            if flow.is_mismatch() {
                arrow.look.line_color = Color::fast("red");
            }
            visual.add_edge(arrow, handles[&edge.source()], handles[&edge.target()]);
        }
        visual
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

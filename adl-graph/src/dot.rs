//! DOT export: a [`Plan`] as Graphviz source.
//!
//! Layout of the output, which is deterministic (node and edge order
//! follow the description):
//!
//! - `source` and `sink` are ellipses (the sink says the batch type that
//!   leaves), a parallel body's `split` and `merge` diamonds;
//! - the source stands in a cluster of the read stage, labelled with its
//!   pool, after the source side a loader's dataset tells
//!   ([`Plan::sources`]): a box per sensor of the first sample (its name
//!   and file) into a box of the trace that synchronizes them (or of the
//!   dataset), with the number of samples;
//! - the graph's label is the schedule: the pool and threads of every
//!   stage, the kernels' device and why, fusion on or off;
//! - transforms are boxes labelled with their name, grouped in one
//!   cluster per stage they stand in (`sample`, `collate`, `batch`; `pre:`
//!   nodes stand in `sample`, `post:` nodes in `batch`), labelled with the
//!   pool it runs on, and within it one cluster per device the plan puts
//!   them on (`cpu`, `opencl: <device>`); kernel nodes say where their
//!   kernel runs (`[opencl kernel]`, or `[kernel: Rust body]` on the CPU),
//!   and a group of them that runs as one ([`Plan::fused_groups`]) is a
//!   cluster labelled `fused kernel: a + b` on a device, `fused loop: a +
//!   b` on the CPU; a node in a stage where it may not stand is red;
//! - each branch of a parallel body is a cluster labelled with its name,
//!   holding its own stage clusters and, nested, its own branches;
//! - edges are labelled with the short name of the type that flows (edges
//!   into a branch with the branch name too); an edge whose two ends
//!   disagree on the type is red and names both.

use std::fmt::Write;

use adl_core::description::{Device, Stage};
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use crate::plan::{NodeKind, Plan};
use crate::schedule::LoaderStage;

const INDENT: &str = "    ";

impl Plan {
    /// The plan as Graphviz DOT source (see the module docs of `dot` for
    /// the layout). Render it with `dot -Tsvg` or [`Plan::to_svg`].
    ///
    /// ```
    /// use adl::description::{Body, Description, NodeInfo, Stage};
    /// use adl::graph::Planner;
    ///
    /// let description = Description::new(Body::stages(
    ///     vec![],
    ///     vec![NodeInfo::new("default", Stage::Collate).typed::<u8, Vec<u8>>()],
    ///     vec![],
    /// ));
    /// let dot = Planner.plan(&description)?.to_dot();
    /// assert!(dot.starts_with("digraph pipeline {"));
    /// assert!(dot.contains("subgraph cluster_collate {"));
    /// assert!(dot.contains("n0 -> n1 [label=\"u8\"];"));
    /// # Ok::<(), adl::graph::PlanError>(())
    /// ```
    pub fn to_dot(&self) -> String {
        let mut out = String::new();
        out.push_str("digraph pipeline {\n");
        out.push_str("    rankdir=LR;\n");
        out.push_str("    node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];\n");
        out.push_str("    edge [fontname=\"Helvetica\", fontsize=10];\n");
        // The schedule, less the kernels' line where there is no kernel.
        let has_kernels = self
            .transforms()
            .any(|(_, node)| node.info().is_some_and(|i| i.kernel.is_some()));
        let schedule: String = self
            .schedule
            .to_string()
            .lines()
            .filter(|line| has_kernels || !line.starts_with("kernels:"))
            .map(|line| escape(line) + "\\l")
            .collect();
        let _ = writeln!(
            out,
            "{INDENT}label=\"{schedule}\";\n{INDENT}labelloc=t;\n{INDENT}labeljust=l;\n{INDENT}fontname=\"Helvetica\";"
        );
        self.write_scope(&mut out, 0, 1);
        for edge in self.graph.edge_references() {
            let flow = edge.weight();
            let mut label = flow.branch.as_deref().map(escape).unwrap_or_default();
            let ty = match (flow.given, flow.taken) {
                (Some(given), Some(taken)) if flow.is_mismatch() => Some(format!(
                    "{} ≠ {}",
                    escape(&given.short_name()),
                    escape(&taken.short_name())
                )),
                _ => flow.ty().map(|t| escape(&t.short_name())),
            };
            if let Some(ty) = ty {
                if !label.is_empty() {
                    label.push_str(": ");
                }
                label.push_str(&ty);
            }
            let mut attributes = Vec::new();
            if !label.is_empty() {
                attributes.push(format!("label=\"{label}\""));
            }
            if flow.is_mismatch() {
                attributes.push("color=red, fontcolor=red".to_owned());
            }
            let (from, to) = (edge.source().index(), edge.target().index());
            if attributes.is_empty() {
                let _ = writeln!(out, "{INDENT}n{from} -> n{to};");
            } else {
                let _ = writeln!(out, "{INDENT}n{from} -> n{to} [{}];", attributes.join(", "));
            }
        }
        out.push_str("}\n");
        out
    }

    /// Write the nodes and clusters of `scope` (0: the root).
    fn write_scope(&self, out: &mut String, scope: usize, depth: usize) {
        let pad = INDENT.repeat(depth);
        let prefix = if scope == 0 {
            String::new()
        } else {
            format!("b{scope}_")
        };
        let fused = self.fused_groups();
        let in_scope: Vec<NodeIndex> = self
            .graph
            .node_indices()
            .filter(|&n| self.graph[n].scope == scope)
            .collect();
        if scope == 0 {
            self.write_read(out, &pad);
        }
        for &n in &in_scope {
            if self.graph[n].info().is_none() && n != self.source {
                self.write_node(out, n, &pad);
            }
        }
        for stage in Stage::ALL {
            let here: Vec<NodeIndex> = in_scope
                .iter()
                .copied()
                .filter(|&n| self.graph[n].stands_in() == Some(stage))
                .collect();
            if here.is_empty() {
                continue;
            }
            let fill = match stage {
                Stage::Sample => "#eef4fb",
                Stage::Collate => "#fdf6e3",
                Stage::Batch => "#eefbee",
            };
            let pool = self
                .schedule
                .pool(match stage {
                    Stage::Sample => LoaderStage::Sample,
                    Stage::Collate => LoaderStage::Collate,
                    Stage::Batch => LoaderStage::Batch,
                })
                .map(|p| format!(" · {}", escape(&p.short())))
                .unwrap_or_default();
            let _ = writeln!(out, "{pad}subgraph cluster_{prefix}{stage} {{");
            let _ = writeln!(out, "{pad}{INDENT}label=\"{stage}{pool}\";");
            let _ = writeln!(out, "{pad}{INDENT}style=\"rounded,filled\";");
            let _ = writeln!(out, "{pad}{INDENT}fillcolor=\"{fill}\";");
            for device in [Device::Cpu, Device::OpenCl] {
                let on: Vec<NodeIndex> = here
                    .iter()
                    .copied()
                    .filter(|&n| self.graph[n].device() == device)
                    .collect();
                if on.is_empty() {
                    continue;
                }
                let inner = format!("{pad}{INDENT}{INDENT}");
                let _ = writeln!(
                    out,
                    "{pad}{INDENT}subgraph cluster_{prefix}{stage}_{device} {{"
                );
                let device_label = match (device, &self.schedule.device) {
                    (Device::OpenCl, Some(name)) => format!("{device}: {}", escape(name)),
                    _ => device.to_string(),
                };
                let _ = writeln!(out, "{inner}label=\"{device_label}\";");
                let _ = writeln!(out, "{inner}style=dashed;");
                if device == Device::OpenCl {
                    let _ = writeln!(out, "{inner}color=\"#d9822b\";");
                }
                let mut written = Vec::new();
                for n in on {
                    if written.contains(&n) {
                        continue;
                    }
                    match fused.iter().position(|g| g.contains(&n)) {
                        Some(k) => {
                            let group = &fused[k];
                            let names: Vec<String> = group
                                .iter()
                                .map(|&m| escape(self.graph[m].name()))
                                .collect();
                            let _ = writeln!(out, "{inner}subgraph cluster_{prefix}fused{k} {{");
                            let what = if device == Device::OpenCl {
                                "fused kernel"
                            } else {
                                "fused loop"
                            };
                            let _ = writeln!(
                                out,
                                "{inner}{INDENT}label=\"{what}: {}\";",
                                names.join(" + ")
                            );
                            let _ = writeln!(out, "{inner}{INDENT}style=\"rounded,filled\";");
                            let _ = writeln!(out, "{inner}{INDENT}fillcolor=\"#fbe9d7\";");
                            for &m in group {
                                self.write_node(out, m, &format!("{inner}{INDENT}"));
                                written.push(m);
                            }
                            let _ = writeln!(out, "{inner}}}");
                        }
                        None => {
                            self.write_node(out, n, &inner);
                            written.push(n);
                        }
                    }
                }
                let _ = writeln!(out, "{pad}{INDENT}}}");
            }
            let _ = writeln!(out, "{pad}}}");
        }
        for (child, (parent, name)) in self.scopes.iter().enumerate() {
            if *parent != Some(scope) {
                continue;
            }
            let name = escape(name.as_deref().unwrap_or_default());
            let _ = writeln!(out, "{pad}subgraph cluster_b{child} {{");
            let _ = writeln!(out, "{pad}{INDENT}label=\"branch {name}\";");
            let _ = writeln!(out, "{pad}{INDENT}style=\"rounded,bold\";");
            self.write_scope(out, child, depth + 1);
            let _ = writeln!(out, "{pad}}}");
        }
    }

    /// The read stage's cluster: the source side the loader's dataset
    /// tells ([`Plan::sources`]: nodes `s0`, `s1`, ... for the sensors,
    /// the last for their trace, with their edges) and the source.
    fn write_read(&self, out: &mut String, pad: &str) {
        let pool = self
            .schedule
            .pool(LoaderStage::Read)
            .map(|p| format!(" · {}", escape(&p.short())))
            .unwrap_or_default();
        let inner = format!("{pad}{INDENT}");
        let _ = writeln!(out, "{pad}subgraph cluster_read {{");
        let _ = writeln!(out, "{inner}label=\"read{pool}\";");
        let _ = writeln!(out, "{inner}style=\"rounded,filled\";");
        let _ = writeln!(out, "{inner}fillcolor=\"#f4effa\";");
        let mut edges = Vec::new();
        if let Some(sources) = &self.sources {
            let (sensors, joined) = sources.boxes();
            let last = sensors.len();
            for (k, b) in sensors.iter().chain([&joined]).enumerate() {
                let lines: Vec<String> = b.lines.iter().map(|l| escape(l)).collect();
                let tooltip = b
                    .tooltip
                    .as_ref()
                    .map(|t| format!(", tooltip=\"{}\"", escape(t)))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{inner}s{k} [label=\"{}\"{tooltip}];",
                    lines.join("\\n")
                );
                edges.push(if k < last {
                    format!("s{k} -> s{last}")
                } else {
                    format!("s{k} -> n{}", self.source.index())
                });
            }
        }
        self.write_node(out, self.source, &inner);
        let _ = writeln!(out, "{pad}}}");
        for edge in edges {
            let _ = writeln!(out, "{pad}{edge};");
        }
    }

    fn write_node(&self, out: &mut String, n: NodeIndex, pad: &str) {
        let node = &self.graph[n];
        let i = n.index();
        let attributes = match node.kind() {
            NodeKind::Source => format!("label=\"{}\", shape=ellipse", node.name()),
            NodeKind::Sink => match sink_type(self, n) {
                Some(ty) => format!("label=\"{}\\n{}\", shape=ellipse", node.name(), escape(&ty)),
                None => format!("label=\"{}\", shape=ellipse", node.name()),
            },
            NodeKind::Split | NodeKind::Merge => {
                format!("label=\"{}\", shape=diamond", node.name())
            }
            NodeKind::Transform { info, .. } => {
                let mut attributes = format!("label=\"{}", escape(&info.name));
                match (info.kernel.is_some(), node.device()) {
                    (true, Device::OpenCl) => attributes.push_str("\\n[opencl kernel]"),
                    (true, _) => attributes.push_str("\\n[kernel: Rust body]"),
                    (false, _) => {}
                }
                attributes.push('"');
                if node.is_misplaced() {
                    attributes.push_str(", color=red, fontcolor=red");
                }
                if !info.doc.trim().is_empty() {
                    let _ = write!(attributes, ", tooltip=\"{}\"", escape(info.doc.trim()));
                }
                attributes
            }
        };
        let _ = writeln!(out, "{pad}n{i} [{attributes}];");
    }
}

/// The type of the batches that leave at the sink `n`, as a user writes
/// it, where it is known.
pub(crate) fn sink_type(plan: &Plan, n: NodeIndex) -> Option<String> {
    plan.graph
        .edges_directed(n, petgraph::Direction::Incoming)
        .find_map(|e| e.weight().ty())
        .map(|t| t.short_name())
}

/// Escape `text` for a double-quoted DOT string: backslashes and quotes
/// are escaped, line breaks become `\n`.
///
/// Design note: DOT treats `\n`, `\l`, `\r` and a few `\X` sequences in
/// labels specially, so a backslash is always doubled.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_quotes_backslashes_and_line_breaks() {
        assert_eq!(escape(r#"say "hi"\now"#), r#"say \"hi\"\\now"#);
        assert_eq!(escape("two\r\nlines"), "two\\nlines");
    }
}

//! What the SVG of a plan draws, before any geometry: its shapes (the
//! plan's nodes, and the boxes of its source side), the groups that frame
//! them (the DOT's clusters: the read stage, each stage with its pool,
//! each device, each fused group, each branch) nested as blocks, and its
//! edges with their labels.

use std::collections::{HashMap, HashSet};

use adl_core::description::{Device, Stage};
use petgraph::Direction;
use petgraph::graph::{EdgeIndex, NodeIndex};

use crate::plan::{NodeKind, Plan};
use crate::schedule::LoaderStage;
use crate::sources::{SourceBox, Sources};

/// Something drawn as one shape: a node of the plan, or a box of its
/// source side (a sensor, the trace, the dataset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Id {
    /// A node of the plan.
    Plan(NodeIndex),
    /// The `k`th box of the source side.
    Source(usize),
}

/// The outline of a shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outline {
    /// A rounded box: a transform, a sensor, a trace.
    Box,
    /// An ellipse: the source and the sink.
    Ellipse,
    /// A diamond: a parallel body's split and merge.
    Diamond,
}

/// A shape: its lines of text (the first is its name), its outline, and
/// whether it is drawn red (a node where it may not stand).
#[derive(Debug, Clone)]
pub(super) struct Shape {
    pub(super) lines: Vec<String>,
    pub(super) outline: Outline,
    pub(super) red: bool,
    /// Shown when the pointer rests on it (a node's doc).
    pub(super) tooltip: Option<String>,
}

/// The look of a group: which of the DOT's clusters it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Look {
    /// The read stage: the sensors, the trace and the source.
    Read,
    /// A stage, labelled with its pool.
    Stage(Stage),
    /// The nodes of a stage on one device.
    Device(Device),
    /// Batch kernels that run as one.
    Fused(Device),
    /// A branch of a parallel body.
    Branch,
}

/// A part of the picture, laid out left to right.
#[derive(Debug, Clone)]
pub(super) enum Block {
    /// One shape.
    Shape(Id),
    /// A group, framed and labelled, its blocks in a row.
    Group {
        look: Look,
        label: String,
        row: Vec<Block>,
    },
    /// Blocks one above the other (a trace's sensors).
    Column(Vec<Block>),
    /// A parallel body: its split, its branches one above the other, its
    /// merge.
    Parallel {
        split: Id,
        branches: Vec<Block>,
        merge: Id,
    },
}

impl Block {
    /// The shapes an edge into the block enters.
    pub(super) fn entries(&self) -> Vec<Id> {
        match self {
            Block::Shape(id) => vec![*id],
            Block::Group { row, .. } => row.first().map_or_else(Vec::new, Block::entries),
            Block::Column(items) => items.iter().flat_map(Block::entries).collect(),
            Block::Parallel { split, .. } => vec![*split],
        }
    }

    /// The shapes an edge out of the block leaves.
    pub(super) fn exits(&self) -> Vec<Id> {
        match self {
            Block::Shape(id) => vec![*id],
            Block::Group { row, .. } => row.last().map_or_else(Vec::new, Block::exits),
            Block::Column(items) => items.iter().flat_map(Block::exits).collect(),
            Block::Parallel { merge, .. } => vec![*merge],
        }
    }
}

/// An arrow, with the label it carries (the type that flows, and the
/// branch it enters).
#[derive(Debug, Clone)]
pub(super) struct Arrow {
    pub(super) from: Id,
    pub(super) to: Id,
    pub(super) label: String,
    /// Its ends disagree on the type.
    pub(super) red: bool,
}

impl Arrow {
    /// An arrow without a label (within the source side).
    fn plain(from: Id, to: Id) -> Arrow {
        Arrow {
            from,
            to,
            label: String::new(),
            red: false,
        }
    }
}

/// The whole picture of a plan, without geometry.
#[derive(Debug)]
pub(super) struct Picture {
    /// The schedule, a line each (the DOT's graph label).
    pub(super) header: Vec<String>,
    pub(super) shapes: HashMap<Id, Shape>,
    /// The blocks from the source side to the sink, in a row.
    pub(super) row: Vec<Block>,
    pub(super) arrows: Vec<Arrow>,
}

/// A step of a walk from the source to the sink: a node, or a whole
/// parallel body.
enum Step {
    Node(NodeIndex),
    Parallel {
        split: NodeIndex,
        /// Each branch's name and steps, in branch order.
        branches: Vec<(String, Vec<Step>)>,
        merge: NodeIndex,
    },
}

impl Picture {
    /// The picture of `plan`.
    pub(super) fn of(plan: &Plan) -> Picture {
        let mut shapes = HashMap::new();
        for n in plan.graph.node_indices() {
            shapes.insert(Id::Plan(n), node_shape(plan, n));
        }
        let mut arrows = plan_arrows(plan);
        let mut read_row = source_side(plan.sources(), &mut shapes, &mut arrows, plan.source);
        read_row.push(Block::Shape(Id::Plan(plan.source)));
        let read_pool = plan
            .schedule
            .pool(LoaderStage::Read)
            .map(|p| format!(" · {}", p.short()))
            .unwrap_or_default();
        let mut row = vec![Block::Group {
            look: Look::Read,
            label: format!("read{read_pool}"),
            row: read_row,
        }];
        let mut seen = HashSet::new();
        let (steps, _) = walk(plan, next(plan, plan.source), &mut seen);
        row.extend(blocks(plan, &steps));
        row.push(Block::Shape(Id::Plan(plan.sink)));
        Picture {
            header: header(plan),
            shapes,
            row,
            arrows,
        }
    }
}

/// The schedule, a line each, less the kernels' line where there is no
/// kernel (as the DOT's graph label).
fn header(plan: &Plan) -> Vec<String> {
    let has_kernels = plan
        .transforms()
        .any(|(_, node)| node.info().is_some_and(|i| i.kernel.is_some()));
    plan.schedule
        .to_string()
        .lines()
        .filter(|line| has_kernels || !line.starts_with("kernels:"))
        .map(str::to_owned)
        .collect()
}

/// The shape of plan node `n`: a transform's name (and where its kernel
/// runs), `source`, `sink` with the batch type that leaves, `split`,
/// `merge`.
fn node_shape(plan: &Plan, n: NodeIndex) -> Shape {
    let node = &plan.graph[n];
    let plain = |lines: Vec<String>, outline| Shape {
        lines,
        outline,
        red: false,
        tooltip: None,
    };
    match node.kind() {
        NodeKind::Source => plain(vec!["source".to_owned()], Outline::Ellipse),
        NodeKind::Sink => {
            let mut lines = vec!["sink".to_owned()];
            lines.extend(crate::dot::sink_type(plan, n));
            plain(lines, Outline::Ellipse)
        }
        NodeKind::Split | NodeKind::Merge => plain(vec![node.name().to_owned()], Outline::Diamond),
        NodeKind::Transform { info, .. } => {
            let mut lines = vec![info.name.to_string()];
            match (info.kernel.is_some(), node.device()) {
                (true, Device::OpenCl) => lines.push("[opencl kernel]".to_owned()),
                (true, _) => lines.push("[kernel: Rust body]".to_owned()),
                (false, _) => {}
            }
            let doc = info.doc.trim();
            Shape {
                lines,
                outline: Outline::Box,
                red: node.is_misplaced(),
                tooltip: (!doc.is_empty()).then(|| doc.to_owned()),
            }
        }
    }
}

/// The plan's edges as arrows, labelled as the DOT labels them.
fn plan_arrows(plan: &Plan) -> Vec<Arrow> {
    plan.graph
        .edge_indices()
        .filter_map(|e| {
            let (from, to) = plan.graph.edge_endpoints(e)?;
            let flow = &plan.graph[e];
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
            Some(Arrow {
                from: Id::Plan(from),
                to: Id::Plan(to),
                label,
                red: flow.is_mismatch(),
            })
        })
        .collect()
}

/// The blocks before the source ([`Sources::boxes`]): the sensors of the
/// first sample, into the trace that synchronizes them, or the dataset
/// alone; nothing where the plan knows no sources.
fn source_side(
    sources: Option<&Sources>,
    shapes: &mut HashMap<Id, Shape>,
    arrows: &mut Vec<Arrow>,
    source: NodeIndex,
) -> Vec<Block> {
    let Some(sources) = sources else {
        return Vec::new();
    };
    let mut add = |b: SourceBox| {
        let id = Id::Source(shapes.len());
        let shape = Shape {
            lines: b.lines,
            outline: Outline::Box,
            red: false,
            tooltip: b.tooltip,
        };
        shapes.insert(id, shape);
        id
    };
    let (sensors, joined) = sources.boxes();
    let sensors: Vec<Id> = sensors.into_iter().map(&mut add).collect();
    let joined = add(joined);
    arrows.extend(sensors.iter().map(|&sensor| Arrow::plain(sensor, joined)));
    arrows.push(Arrow::plain(joined, Id::Plan(source)));
    let mut side = Vec::new();
    if !sensors.is_empty() {
        side.push(Block::Column(
            sensors.into_iter().map(Block::Shape).collect(),
        ));
    }
    side.push(Block::Shape(joined));
    side
}

/// The node after `n`, by its first edge out.
fn next(plan: &Plan, n: NodeIndex) -> Option<NodeIndex> {
    out_edges(plan, n)
        .first()
        .and_then(|&e| plan.graph.edge_endpoints(e))
        .map(|(_, to)| to)
}

/// The edges out of `n`, in the order they were added (branch order).
fn out_edges(plan: &Plan, n: NodeIndex) -> Vec<EdgeIndex> {
    let mut out: Vec<EdgeIndex> = plan
        .graph
        .edges_directed(n, Direction::Outgoing)
        .map(|e| petgraph::visit::EdgeRef::id(&e))
        .collect();
    out.sort();
    out
}

/// The steps from `at` to the merge or sink that ends them, and that end.
fn walk(
    plan: &Plan,
    mut at: Option<NodeIndex>,
    seen: &mut HashSet<NodeIndex>,
) -> (Vec<Step>, Option<NodeIndex>) {
    let mut steps = Vec::new();
    while let Some(n) = at {
        if !seen.insert(n) && !matches!(plan.graph[n].kind(), NodeKind::Merge | NodeKind::Sink) {
            break;
        }
        match plan.graph[n].kind() {
            NodeKind::Merge | NodeKind::Sink => return (steps, Some(n)),
            NodeKind::Split => {
                let mut branches = Vec::new();
                let mut merge = None;
                for e in out_edges(plan, n) {
                    let Some((_, first)) = plan.graph.edge_endpoints(e) else {
                        continue;
                    };
                    let (branch, end) = walk(plan, Some(first), seen);
                    let name = plan.graph[e].branch.clone().unwrap_or_default();
                    branches.push((name, branch));
                    merge = merge.or(end);
                }
                let Some(merge) = merge else {
                    return (steps, None);
                };
                steps.push(Step::Parallel {
                    split: n,
                    branches,
                    merge,
                });
                at = next(plan, merge);
            }
            NodeKind::Source | NodeKind::Transform { .. } => {
                steps.push(Step::Node(n));
                at = next(plan, n);
            }
        }
    }
    (steps, None)
}

/// The blocks of one scope's steps: its transforms grouped by stage, then
/// by device, then by fused group (runs of neighbours, as the DOT's
/// clusters), and its parallel bodies with a group per branch.
fn blocks(plan: &Plan, steps: &[Step]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut run: Vec<NodeIndex> = Vec::new();
    for step in steps {
        match step {
            Step::Node(n) => run.push(*n),
            Step::Parallel {
                split,
                branches,
                merge,
            } => {
                out.extend(stage_groups(plan, &std::mem::take(&mut run)));
                let branches = branches
                    .iter()
                    .map(|(name, steps)| Block::Group {
                        look: Look::Branch,
                        label: format!("branch {name}"),
                        row: blocks(plan, steps),
                    })
                    .collect();
                out.push(Block::Parallel {
                    split: Id::Plan(*split),
                    branches,
                    merge: Id::Plan(*merge),
                });
            }
        }
    }
    out.extend(stage_groups(plan, &run));
    out
}

/// Neighbours of `items` that share `key`, as runs, in order.
fn runs<T: Copy, K: PartialEq>(items: &[T], key: impl Fn(T) -> K) -> Vec<(K, Vec<T>)> {
    let mut out: Vec<(K, Vec<T>)> = Vec::new();
    for &item in items {
        let k = key(item);
        match out.last_mut() {
            Some((last, run)) if *last == k => run.push(item),
            _ => out.push((k, vec![item])),
        }
    }
    out
}

/// A run of transforms as stage groups (labelled with the stage's pool),
/// each of device groups, each of fused groups and lone nodes.
fn stage_groups(plan: &Plan, nodes: &[NodeIndex]) -> Vec<Block> {
    let fused = plan.fused_groups();
    // Every node of a run is a transform, which stands in a stage.
    runs(nodes, |n| {
        plan.graph[n].stands_in().unwrap_or(Stage::Sample)
    })
    .into_iter()
    .map(|(stage, nodes)| {
        let devices = runs(&nodes, |n| plan.graph[n].device())
            .into_iter()
            .map(|(device, nodes)| {
                let label = match (device, &plan.schedule.device) {
                    (Device::OpenCl, Some(name)) => format!("{device}: {name}"),
                    _ => device.to_string(),
                };
                let groups = runs(&nodes, |n| fused.iter().position(|g| g.contains(&n)))
                    .into_iter()
                    .flat_map(|(group, nodes)| match group {
                        Some(k) => {
                            let names: Vec<&str> =
                                fused[k].iter().map(|&m| plan.graph[m].name()).collect();
                            let what = if device == Device::OpenCl {
                                "fused kernel"
                            } else {
                                "fused loop"
                            };
                            vec![Block::Group {
                                look: Look::Fused(device),
                                label: format!("{what}: {}", names.join(" + ")),
                                row: nodes.iter().map(|&n| Block::Shape(Id::Plan(n))).collect(),
                            }]
                        }
                        None => nodes.iter().map(|&n| Block::Shape(Id::Plan(n))).collect(),
                    })
                    .collect();
                Block::Group {
                    look: Look::Device(device),
                    label,
                    row: groups,
                }
            })
            .collect();
        let pool = plan
            .schedule
            .pool(match stage {
                Stage::Sample => LoaderStage::Sample,
                Stage::Collate => LoaderStage::Collate,
                Stage::Batch => LoaderStage::Batch,
            })
            .map(|p| format!(" · {}", p.short()))
            .unwrap_or_default();
        Block::Group {
            look: Look::Stage(stage),
            label: format!("{stage}{pool}"),
            row: devices,
        }
    })
    .collect()
}

//! The plan: a pipeline as a petgraph graph.
//!
//! A [`Plan`] is a [`DiGraph`] whose nodes are [`PlanNode`]s and whose
//! edges are [`Flow`]s, the values that pass between them:
//!
//! ```text
//! source -> pre... -> sample... -> collate -> batch... -> post... -> sink
//! ```
//!
//! A parallel body becomes a `split` node that fans out to one sub-graph
//! per branch (its edges name the branch) and a `merge` node that joins
//! them again; branches nest. Every node but the source, the sink, splits
//! and merges is a transform, listed under a [`Section`] of its pipeline
//! (`pre:`, `sample:`, ...) and tagged with its branch path.
//!
//! Design note: the graph is built once by the [`Planner`](crate::Planner)
//! and never changed, so node and edge indices are stable and follow the
//! order of the description (the source is the first node, the sink the
//! last, a merge comes right after its split; the edges out of a split
//! are in branch order); the DOT export and the path walk rely on that for
//! deterministic output.

use adl_core::description::{Description, Device, NodeInfo, Section, Stage, TypeInfo};
use adl_rules::check::placement;
use petgraph::Direction;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};

use crate::schedule::Schedule;
use crate::sources::Sources;

/// A pipeline as a graph, built from a [`Description`] by the
/// [`Planner`](crate::Planner).
///
/// ```
/// use adl::description::{Body, Description, NodeInfo, Stage};
/// use adl::graph::Planner;
///
/// let description = Description::new(Body::stages(
///     vec![NodeInfo::new("flip", Stage::Sample).typed::<u8, u8>()],
///     vec![NodeInfo::new("default", Stage::Collate).typed::<u8, Vec<u8>>()],
///     vec![],
/// ));
/// let plan = Planner.plan(&description)?;
/// // source, flip, default, sink
/// assert_eq!(plan.graph().node_count(), 4);
/// let names: Vec<&str> = plan.transforms().map(|(_, node)| node.name()).collect();
/// assert_eq!(names, ["flip", "default"]);
/// # Ok::<(), adl::graph::PlanError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Plan {
    pub(crate) graph: DiGraph<PlanNode, Flow>,
    pub(crate) source: NodeIndex,
    pub(crate) sink: NodeIndex,
    /// `scopes[s]` = (parent scope, branch name) of scope `s`; scope 0 is
    /// the root and has neither.
    pub(crate) scopes: Vec<(Option<usize>, Option<String>)>,
    pub(crate) description: Description,
    /// What runs where.
    pub(crate) schedule: Schedule,
    /// The groups of two or more batch kernels that run as one, in order
    /// (see [`Plan::fused_groups`]).
    pub(crate) fused: Vec<Vec<NodeIndex>>,
    /// The source side, where the plan is a loader's (see [`Plan::sources`]).
    pub(crate) sources: Option<Sources>,
}

impl Plan {
    /// The graph.
    pub fn graph(&self) -> &DiGraph<PlanNode, Flow> {
        &self.graph
    }

    /// The source node, where raw samples enter.
    pub fn source(&self) -> NodeIndex {
        self.source
    }

    /// The sink node, where batches leave.
    pub fn sink(&self) -> NodeIndex {
        self.sink
    }

    /// The description the plan was built from.
    pub fn description(&self) -> &Description {
        &self.description
    }

    /// What runs where: each stage's pool, the kernels' device, fusion.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// What the loader's dataset says of its samples (their number, where
    /// the first is read from), drawn before the source by
    /// [`to_svg`](Self::to_svg) and [`to_dot`](Self::to_dot); none for a
    /// plan the [`Planner`](crate::Planner) made alone.
    pub fn sources(&self) -> Option<&Sources> {
        self.sources.as_ref()
    }

    /// The same plan, with its source side.
    pub(crate) fn with_sources(mut self, sources: Sources) -> Self {
        self.sources = Some(sources);
        self
    }

    /// The transform nodes, in the order of the description (depth first
    /// through branches).
    pub fn transforms(&self) -> impl Iterator<Item = (NodeIndex, &PlanNode)> + '_ {
        self.graph
            .node_indices()
            .map(|i| (i, &self.graph[i]))
            .filter(|(_, node)| node.info().is_some())
    }

    /// The paths of the transform nodes (see [`PlanNode::path`]), in the
    /// order of [`transforms`](Self::transforms): what the loader's
    /// statistics and errors name them by. A second node of one path is
    /// numbered (`closure#2`).
    pub fn node_paths(&self) -> Vec<String> {
        let mut seen = std::collections::HashMap::<String, usize>::new();
        self.transforms()
            .map(|(_, node)| {
                let path = node.path();
                let n = seen.entry(path.clone()).or_insert(0);
                *n += 1;
                if *n == 1 { path } else { format!("{path}#{n}") }
            })
            .collect()
    }

    /// Every path from the source to the sink, in branch order. A linear
    /// pipeline has one; a parallel body has one per (innermost) branch.
    pub fn paths(&self) -> Vec<PlanPath> {
        let mut found = Vec::new();
        let mut edges = Vec::new();
        self.walk(self.source, "pipeline".to_owned(), &mut edges, &mut found);
        found
    }

    fn walk(
        &self,
        at: NodeIndex,
        location: String,
        edges: &mut Vec<EdgeIndex>,
        found: &mut Vec<PlanPath>,
    ) {
        if at == self.sink {
            found.push(PlanPath {
                location,
                edges: edges.clone(),
            });
            return;
        }
        // Outgoing edges in the order they were added: branch order.
        let mut out: Vec<EdgeIndex> = self
            .graph
            .edges_directed(at, Direction::Outgoing)
            .map(|e| petgraph::visit::EdgeRef::id(&e))
            .collect();
        out.sort();
        for edge in out {
            let (_, next) = self.graph.edge_endpoints(edge).expect("edge of this graph");
            let location = match &self.graph[edge].branch {
                Some(name) => format!("{location}/{name}"),
                None => location.clone(),
            };
            edges.push(edge);
            self.walk(next, location, edges, found);
            edges.pop();
        }
    }
}

/// One path from the source to the sink of a [`Plan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanPath {
    /// Where the path runs, as violations name it: `pipeline`, then the
    /// branches it takes, e.g. `pipeline/radar`.
    pub location: String,
    /// Its edges, from the source to the sink.
    pub edges: Vec<EdgeIndex>,
}

impl PlanPath {
    /// Its nodes, from the source to the sink.
    pub fn nodes(&self, plan: &Plan) -> Vec<NodeIndex> {
        let mut nodes = vec![plan.source];
        nodes.extend(
            self.edges
                .iter()
                .map(|&e| plan.graph.edge_endpoints(e).expect("edge of this plan").1),
        );
        nodes
    }
}

/// A node of a [`Plan`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlanNode {
    pub(crate) kind: NodeKind,
    pub(crate) branch: Vec<String>,
    pub(crate) scope: usize,
    /// Where it runs: a kernel node scheduled on the device is
    /// [`Device::OpenCl`], every other node the CPU.
    pub(crate) device: Device,
}

impl PlanNode {
    /// What the node is.
    pub fn kind(&self) -> &NodeKind {
        &self.kind
    }

    /// The branches that lead to the node from the root, outermost first
    /// (empty at the root).
    pub fn branch(&self) -> &[String] {
        &self.branch
    }

    /// Where the node runs in this plan's schedule: [`Device::OpenCl`] for
    /// a kernel node scheduled on the device, else [`Device::Cpu`] (a
    /// kernel node there runs its Rust body, or in a fused loop).
    pub fn device(&self) -> Device {
        self.device
    }

    /// The node's path, as errors and statistics name it: its branches and
    /// its name, joined by `/` (`camera/default`).
    pub fn path(&self) -> String {
        let mut path = self.branch.join("/");
        if !path.is_empty() {
            path.push('/');
        }
        path.push_str(self.name());
        path
    }

    /// The node's name: a transform's own, else `source`, `sink`, `split`
    /// or `merge`.
    pub fn name(&self) -> &str {
        match &self.kind {
            NodeKind::Source => "source",
            NodeKind::Sink => "sink",
            NodeKind::Split => "split",
            NodeKind::Merge => "merge",
            NodeKind::Transform { info, .. } => &info.name,
        }
    }

    /// A transform's metadata.
    pub fn info(&self) -> Option<&NodeInfo> {
        match &self.kind {
            NodeKind::Transform { info, .. } => Some(info),
            _ => None,
        }
    }

    /// The section a transform is listed under.
    pub fn section(&self) -> Option<Section> {
        match &self.kind {
            NodeKind::Transform { section, .. } => Some(*section),
            _ => None,
        }
    }

    /// The stage a transform stands in (which may differ from the stage it
    /// is: see [`NodeInfo::stage`]).
    pub fn stands_in(&self) -> Option<Stage> {
        self.section().map(Section::stands_in)
    }

    /// Whether a transform stands in a stage where it may not: a batch
    /// node in the sample stage or a sample node in the batch stage.
    pub fn is_misplaced(&self) -> bool {
        match (self.info(), self.stands_in()) {
            (Some(info), Some(stands_in)) => placement(info.stage, stands_in).is_some(),
            _ => false,
        }
    }
}

/// What a [`PlanNode`] is.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// Where raw samples enter (one per plan).
    Source,
    /// Where batches leave (one per plan).
    Sink,
    /// The start of a parallel body: routes each field (or key) of the
    /// sample to its branch.
    Split,
    /// The end of a parallel body: joins the branches' batches.
    Merge,
    /// A transform or collate node.
    Transform {
        /// What `#[transform]` (or the builder) recorded about it.
        info: NodeInfo,
        /// The section it is listed under.
        section: Section,
    },
}

/// An edge of a [`Plan`]: what flows from one node to the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// The type the node before gives, where known.
    pub given: Option<TypeInfo>,
    /// The type the node after takes, where known.
    pub taken: Option<TypeInfo>,
    /// The branch an edge out of a split leads to.
    pub branch: Option<String>,
}

impl Flow {
    /// The type that flows: the one given, else the one taken, else
    /// unknown (`None`).
    pub fn ty(&self) -> Option<TypeInfo> {
        self.given.or(self.taken)
    }

    /// Whether both ends know their type and they differ (by `TypeId`).
    pub fn is_mismatch(&self) -> bool {
        matches!((self.given, self.taken), (Some(g), Some(t)) if g.id != t.id)
    }
}

//! The planner: from a [`Description`] to a checked [`Plan`].
//!
//! Design note: the planner lays the graph out first (a *draft*, which
//! may break rules, so that a broken pipeline can still be drawn) and then
//! checks it with the composition rules of `adl_core::description`, the same
//! table the `pipeline!` macro uses (see [`Plan::check`]).

use adl_core::description::{Body, Description, Device, NodeInfo, TypeInfo};
use petgraph::graph::{DiGraph, NodeIndex};

use adl_core::description::Section;

use crate::plan::{Flow, NodeKind, Plan, PlanNode};
use crate::schedule::{Schedule, Settings};
use crate::validate::PlanError;

/// Builds [`Plan`]s from [`Description`]s.
///
/// ```
/// use adl::description::{Body, Description, NodeInfo, Rule, Stage};
/// use adl::graph::Planner;
///
/// let twice = Description::new(Body::stages(
///     vec![],
///     vec![NodeInfo::new("a", Stage::Collate), NodeInfo::new("b", Stage::Collate)],
///     vec![],
/// ));
/// let error = Planner.plan(&twice).unwrap_err();
/// assert_eq!(error.violations()[0].rule, Rule::CollateOnce);
/// assert_eq!(
///     error.to_string(),
///     "pipeline/b: a pipeline collates exactly once: `b` would collate again after `a` [collate_once]"
/// );
/// // A draft is not checked: it can be drawn to see what is wrong.
/// assert!(Planner.draft(&twice).to_dot().contains("\"b\""));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Planner;

impl Planner {
    /// Lay out `description` as a graph, check it and schedule it with
    /// [`Settings::default`] (one worker, no device, fusion on): the plan,
    /// or every broken rule. A loader schedules its own plan with its
    /// settings ([`schedule`](Self::schedule)).
    pub fn plan(&self, description: &Description) -> Result<Plan, PlanError> {
        self.schedule(description, &Settings::default())
    }

    /// Lay out `description` as a graph, check it and schedule it for
    /// `settings`: which pool runs each stage, which device each batch node
    /// runs on, which batch kernels run as one.
    pub fn schedule(
        &self,
        description: &Description,
        settings: &Settings,
    ) -> Result<Plan, PlanError> {
        let plan = self.draft_with(description, settings);
        let violations = plan.check();
        if violations.is_empty() {
            Ok(plan)
        } else {
            Err(PlanError::new(violations))
        }
    }

    /// Lay out `description` as a graph without checking it (scheduled with
    /// [`Settings::default`]).
    pub fn draft(&self, description: &Description) -> Plan {
        self.draft_with(description, &Settings::default())
    }

    /// Lay out `description` as a graph for `settings`, without checking
    /// it.
    pub fn draft_with(&self, description: &Description, settings: &Settings) -> Plan {
        let mut layout = Layout {
            graph: DiGraph::new(),
            scopes: vec![(None, None)],
        };
        let source = layout.add(NodeKind::Source, &[], 0);
        let tails = layout.lay(description, &[], 0, vec![(source, None)]);
        let sink = layout.add(NodeKind::Sink, &[], 0);
        layout.connect(tails, sink);
        let mut plan = Plan {
            graph: layout.graph,
            source,
            sink,
            scopes: layout.scopes,
            description: description.clone(),
            schedule: Schedule::of(settings),
            fused: Vec::new(),
            sources: None,
        };
        plan.place_kernels(settings);
        plan
    }
}

impl TryFrom<&Description> for Plan {
    type Error = PlanError;

    /// [`Planner::plan`].
    fn try_from(description: &Description) -> Result<Plan, PlanError> {
        Planner.plan(description)
    }
}

/// The nodes whose outgoing edge is still to be drawn, each with the
/// branch that edge enters (edges out of a split).
type Tails = Vec<(NodeIndex, Option<String>)>;

struct Layout {
    graph: DiGraph<PlanNode, Flow>,
    scopes: Vec<(Option<usize>, Option<String>)>,
}

impl Layout {
    fn add(&mut self, kind: NodeKind, branch: &[String], scope: usize) -> NodeIndex {
        self.graph.add_node(PlanNode {
            kind,
            branch: branch.to_vec(),
            scope,
            device: Device::Cpu,
        })
    }

    /// Draw an edge from every tail to `to`.
    fn connect(&mut self, tails: Tails, to: NodeIndex) {
        let taken = input_of(&self.graph[to]);
        for (from, branch) in tails {
            let given = output_of(&self.graph[from]);
            self.graph.add_edge(
                from,
                to,
                Flow {
                    given,
                    taken,
                    branch,
                },
            );
        }
    }

    /// Lay out `description` after `tails`; returns the new tails.
    fn lay(
        &mut self,
        description: &Description,
        branch: &[String],
        scope: usize,
        mut tails: Tails,
    ) -> Tails {
        self.chain(&description.pre, Section::Pre, branch, scope, &mut tails);
        match &description.body {
            Body::Stages {
                sample,
                collate,
                batch,
                ..
            } => {
                self.chain(sample, Section::Sample, branch, scope, &mut tails);
                self.chain(collate, Section::Collate, branch, scope, &mut tails);
                self.chain(batch, Section::Batch, branch, scope, &mut tails);
            }
            Body::Parallel { branches, .. } => {
                // The merge is added before the branches so that each
                // branch is joined to it as soon as it is laid out: the
                // split's edges then follow the order of the branches, even
                // where a branch is empty (an edge from split to merge).
                let split = self.add(NodeKind::Split, branch, scope);
                let merge = self.add(NodeKind::Merge, branch, scope);
                self.connect(tails, split);
                for (name, inner) in branches {
                    let inner_scope = self.scopes.len();
                    self.scopes.push((Some(scope), Some(name.clone())));
                    let mut path = branch.to_vec();
                    path.push(name.clone());
                    let joined =
                        self.lay(inner, &path, inner_scope, vec![(split, Some(name.clone()))]);
                    self.connect(joined, merge);
                }
                // With no branch, nothing reaches the merge: no path runs
                // through an empty parallel body (rule `no_branches`).
                tails = vec![(merge, None)];
            }
        }
        self.chain(&description.post, Section::Post, branch, scope, &mut tails);
        tails
    }

    /// Lay out `nodes` one after the other after `tails`.
    fn chain(
        &mut self,
        nodes: &[NodeInfo],
        section: Section,
        branch: &[String],
        scope: usize,
        tails: &mut Tails,
    ) {
        for info in nodes {
            let kind = NodeKind::Transform {
                info: info.clone(),
                section,
            };
            let node = self.add(kind, branch, scope);
            self.connect(std::mem::take(tails), node);
            tails.push((node, None));
        }
    }
}

fn input_of(node: &PlanNode) -> Option<TypeInfo> {
    node.info().and_then(|i| i.input)
}

fn output_of(node: &PlanNode) -> Option<TypeInfo> {
    node.info().and_then(|i| i.output)
}

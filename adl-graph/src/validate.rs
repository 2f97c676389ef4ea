//! Validation: the composition rules on the built graph.
//!
//! A plan is checked twice over, with the one checker of the rules
//! (`adl_rules::check`), which `pipeline!` uses too:
//!
//! 1. [`Description::check`](adl_core::description::Description::check), the
//!    very check the `pipeline!` macro's rules stand for;
//! 2. a walk of every source-to-sink path of the petgraph graph, each path
//!    handed to the same checker (`check_steps`): one collate per path,
//!    sample stage before it, batch stage after, batch nodes not under
//!    `sample:` nor sample nodes under `batch:`, and neighbours' `TypeId`s
//!    within a segment (a split or a merge starts a new one).
//!
//! The two agree on every path's rules (the tests hold them to it); the
//! description adds what is no path's (a branch name given twice, a form
//! without branches). Each violation is reported once, at the node's own
//! place: a node before a split or after a merge stands on every branch's
//! path, at the root. Types are not compared across a split or a merge: a
//! branch takes one field of the sample, and the merge gives a whole batch
//! again.

use adl_core::description::{Rule, TypeInfo, Violation};
use adl_rules::check::{Step, check_steps};

use crate::plan::{NodeKind, Plan};

/// A pipeline that breaks composition rules: every broken rule, with its
/// id and where.
///
/// `Display` writes one violation a line:
/// `` pipeline/radar/flip: `flip` is not a batch node; it cannot stand
/// under `batch:` [sample_node_in_batch] ``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    violations: Vec<Violation>,
}

impl PlanError {
    /// An error of these violations.
    pub fn new(violations: Vec<Violation>) -> Self {
        PlanError { violations }
    }

    /// Every broken rule, in the order found.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The ids of the broken rules, in the order found (repeats kept).
    pub fn rules(&self) -> impl Iterator<Item = Rule> + '_ {
        self.violations.iter().map(|v| v.rule)
    }

    /// The violations, by value.
    pub fn into_violations(self) -> Vec<Violation> {
        self.violations
    }
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, violation) in self.violations.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{violation}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PlanError {}

impl Plan {
    /// Every composition rule the plan breaks (empty: it is sound): those
    /// of its description, then any the walk of its graph's paths
    /// ([`check_paths`](Plan::check_paths)) finds besides, each once.
    pub fn check(&self) -> Vec<Violation> {
        let mut found = self.description.check();
        for violation in self.check_paths() {
            if !found.contains(&violation) {
                found.push(violation);
            }
        }
        found
    }

    /// The rules on every source-to-sink path of the graph.
    pub fn check_paths(&self) -> Vec<Violation> {
        let mut found = Vec::new();
        for path in self.paths() {
            let at = path.location.clone();
            let mut steps: Vec<(Step<String, TypeInfo>, usize)> = Vec::new();
            let mut segment = 0;
            for n in path.nodes(self) {
                let node = &self.graph[n];
                match node.kind() {
                    NodeKind::Split | NodeKind::Merge => segment += 1,
                    NodeKind::Source | NodeKind::Sink => {}
                    NodeKind::Transform { info, .. } => {
                        let stands_in = node.stands_in().expect("a transform stands in a stage");
                        // The node's own path: a node before a split is
                        // at the root on every branch's path.
                        let site = std::iter::once("pipeline")
                            .chain(node.branch().iter().map(String::as_str))
                            .chain(std::iter::once(&*info.name))
                            .collect::<Vec<_>>()
                            .join("/");
                        let step = adl_core::__private::checker_step(info, stands_in, site);
                        steps.push((step, segment));
                    }
                }
            }
            let path: Vec<(&Step<String, TypeInfo>, usize)> = steps
                .iter()
                .map(|(step, segment)| (step, *segment))
                .collect();
            for violation in check_steps(&at, &[], &path, false) {
                let violation = Violation::from(violation);
                // One violation per place: a node before a split stands on
                // every branch's path.
                if !found.contains(&violation) {
                    found.push(violation);
                }
            }
        }
        found
    }
}

//! Validation: the composition rules on the built graph.
//!
//! A plan is checked twice over, with the one rule table of
//! `adl_core::graph`:
//!
//! 1. [`Description::check`](adl_core::graph::Description::check), the
//!    very check the `pipeline!` macro's rules stand for;
//! 2. a walk of every source-to-sink path of the petgraph graph, which
//!    applies the same rules to each path: nodes in the stage they stand
//!    in ([`check_path`]: one collate per path, sample stage before it,
//!    batch stage after), batch nodes not under `sample:` nor sample nodes
//!    under `batch:`, and neighbours' `TypeId`s.
//!
//! On what a description shows, the two agree (the tests hold them to it);
//! the walk adds what only the graph shows: the `post:` nodes of a
//! parallel body, which stand after the merge on every branch's path.
//! Types are not compared across a split or a merge: a branch takes one
//! field of the sample, and the merge gives a whole batch again.

use adl_core::graph::{Rule, Stage, Violation, check_path, misplaced};

use crate::plan::Plan;

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
    /// of its description, then those only its graph shows (see the
    /// module docs of `validate`), each once.
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
            let at = path.location.as_str();
            let nodes: Vec<_> = path
                .nodes(self)
                .into_iter()
                .filter(|&n| self.graph[n].info().is_some())
                .collect();
            for &n in &nodes {
                let node = &self.graph[n];
                if let (Some(info), Some(stands_in)) = (node.info(), node.stands_in()) {
                    found.extend(misplaced(at, info, stands_in));
                }
            }
            let positions: Vec<(&str, Stage)> = nodes
                .iter()
                .map(|&n| {
                    (
                        self.graph[n].name(),
                        self.graph[n].stands_in().expect("a transform"),
                    )
                })
                .collect();
            found.extend(check_path(at, &positions));
            for &edge in &path.edges {
                let flow = &self.graph[edge];
                // Only transforms give and take types: a mismatch is between
                // two of them.
                if flow.is_mismatch() {
                    let (_, after) = self.graph.edge_endpoints(edge).expect("edge of this plan");
                    let name = self.graph[after].name();
                    let given = flow.given.expect("a mismatch has both types").short_name();
                    found.push(Violation {
                        rule: Rule::TypeMismatch,
                        at: format!("{at}/{name}"),
                        message: Rule::TypeMismatch.render(&[("Self", name), ("T", &given)]),
                    });
                }
            }
        }
        found
    }
}

use std::collections::HashSet;

use super::{NodeInfo, Rule, Stage, Violation, check_path};

/// A whole pipeline as data: pre-composed transforms, a body, and
/// post-composed transforms. `pipeline!` builds one for every pipeline it
/// expands (`.graph()`), and the planner in `adl-graph` turns it into a
/// graph, checks it and draws it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Description {
    /// Transforms before the body (`pre:`), applied to every raw sample.
    pub pre: Vec<NodeInfo>,
    /// The stages, or parallel branches.
    pub body: Body,
    /// Transforms after the body (`post:`), applied to every batch.
    pub post: Vec<NodeInfo>,
}

/// The body of a [`Description`].
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// `sample: ... , collate: ..., batch: ...`. The nodes are listed
    /// under the stage they *stand in*; each node's own
    /// [`stage`](NodeInfo::stage) says what it *is*.
    Stages {
        /// Nodes under `sample:`, in order.
        sample: Vec<NodeInfo>,
        /// The nodes under `collate:` (exactly one is right).
        collate: Vec<NodeInfo>,
        /// Nodes under `batch:`, in order.
        batch: Vec<NodeInfo>,
    },
    /// One branch per field (or key) of the sample, each a whole pipeline.
    Parallel {
        /// `(field or key, its pipeline)`, in order.
        branches: Vec<(String, Description)>,
    },
}

impl Default for Body {
    fn default() -> Self {
        Body::Stages {
            sample: Vec::new(),
            collate: Vec::new(),
            batch: Vec::new(),
        }
    }
}

impl Description {
    /// Check every composition rule that the description can show: on
    /// every path, one collate and nodes in the stage they belong to;
    /// neighbours whose types are both known must agree; branch names are
    /// unique. Returns every violation (empty: the pipeline is sound).
    pub fn check(&self) -> Vec<Violation> {
        let mut found = Vec::new();
        self.check_into("pipeline", &mut Vec::new(), &mut found);
        found
    }

    /// Walk the paths below this description; `prefix` holds the nodes of
    /// enclosing `pre:` stages (they stand in the sample stage).
    fn check_into(
        &self,
        at: &str,
        prefix: &mut Vec<(NodeInfo, Stage)>,
        found: &mut Vec<Violation>,
    ) {
        let start = prefix.len();
        prefix.extend(self.pre.iter().map(|n| (n.clone(), Stage::Sample)));
        match &self.body {
            Body::Stages {
                sample,
                collate,
                batch,
            } => {
                let mut path = prefix.clone();
                path.extend(sample.iter().map(|n| (n.clone(), Stage::Sample)));
                path.extend(collate.iter().map(|n| (n.clone(), Stage::Collate)));
                path.extend(batch.iter().map(|n| (n.clone(), Stage::Batch)));
                // `post:` of this and of enclosing descriptions stand in the
                // batch stage; enclosing ones are checked by the caller.
                path.extend(self.post.iter().map(|n| (n.clone(), Stage::Batch)));
                check_one_path(at, &path, found);
            }
            Body::Parallel { branches } => {
                let mut seen = HashSet::new();
                if branches.is_empty() {
                    found.push(Violation {
                        rule: Rule::NoBranches,
                        at: at.to_owned(),
                        message: Rule::NoBranches.template().to_owned(),
                    });
                }
                for (name, branch) in branches {
                    if !seen.insert(name.as_str()) {
                        found.push(Violation {
                            rule: Rule::DuplicateBranch,
                            at: format!("{at}/{name}"),
                            message: Rule::DuplicateBranch.render(&[("name", name)]),
                        });
                    }
                    let mut inner = prefix.clone();
                    branch.check_into(&format!("{at}/{name}"), &mut inner, found);
                }
            }
        }
        prefix.truncate(start);
    }
}

/// The rules on one path: positions (via [`check_path`] on the stage each
/// node *is*, after checking it stands where it may) and neighbour types.
fn check_one_path(at: &str, path: &[(NodeInfo, Stage)], found: &mut Vec<Violation>) {
    // A node standing in a stage other than its own: report it under the
    // stage it stands in, as the DSL does.
    for (node, position) in path {
        let rule = match (node.stage, position) {
            (Stage::Batch, Stage::Sample) => Some(Rule::BatchNodeInSample),
            (Stage::Sample, Stage::Batch) => Some(Rule::SampleNodeInBatch),
            _ => None,
        };
        if let Some(rule) = rule {
            found.push(Violation {
                rule,
                at: format!("{at}/{}", node.name),
                message: rule.render(&[("Self", &node.name)]),
            });
        }
    }
    let positions: Vec<(&str, Stage)> = path.iter().map(|(n, p)| (n.name.as_ref(), *p)).collect();
    found.extend(check_path(at, &positions));
    for pair in path.windows(2) {
        let (before, after) = (&pair[0].0, &pair[1].0);
        // A collate takes `Vec<T>` of the sample type: compare with its
        // declared element input.
        if let (Some(out), Some(input)) = (before.output, after.input)
            && out.id != input.id
        {
            let given = out.short_name();
            found.push(Violation {
                rule: Rule::TypeMismatch,
                at: format!("{at}/{}", after.name),
                message: Rule::TypeMismatch.render(&[("Self", &after.name), ("T", &given)]),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &'static str, stage: Stage) -> NodeInfo {
        NodeInfo::new(name, stage)
    }

    #[test]
    fn a_sound_pipeline_has_no_violation() {
        let d = Description {
            pre: vec![node("decode", Stage::Sample).typed::<Vec<u8>, String>()],
            body: Body::Stages {
                sample: vec![node("upper", Stage::Sample).typed::<String, String>()],
                collate: vec![node("default", Stage::Collate).typed::<String, Vec<String>>()],
                batch: vec![],
            },
            post: vec![],
        };
        assert_eq!(d.check(), vec![]);
    }

    #[test]
    fn violations_are_found_on_every_branch() {
        let stages = |collate: Vec<NodeInfo>, batch: Vec<NodeInfo>| Description {
            pre: vec![],
            body: Body::Stages {
                sample: vec![],
                collate,
                batch,
            },
            post: vec![],
        };
        let d = Description {
            pre: vec![],
            body: Body::Parallel {
                branches: vec![
                    ("radar".into(), stages(vec![], vec![])),
                    (
                        "lidar".into(),
                        stages(
                            vec![node("c", Stage::Collate)],
                            vec![node("flip", Stage::Sample)],
                        ),
                    ),
                    (
                        "lidar".into(),
                        stages(vec![node("c", Stage::Collate)], vec![]),
                    ),
                ],
            },
            post: vec![],
        };
        let rules: Vec<Rule> = d.check().into_iter().map(|v| v.rule).collect();
        assert!(rules.contains(&Rule::MissingCollate));
        assert!(rules.contains(&Rule::SampleNodeInBatch));
        assert!(rules.contains(&Rule::DuplicateBranch));
    }

    #[test]
    fn neighbour_types_must_agree() {
        let d = Description {
            pre: vec![],
            body: Body::Stages {
                sample: vec![
                    node("a", Stage::Sample).typed::<u8, u16>(),
                    node("b", Stage::Sample).typed::<u32, u32>(),
                ],
                collate: vec![node("c", Stage::Collate)],
                batch: vec![],
            },
            post: vec![],
        };
        let v = d.check();
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].message,
            "type mismatch: `b` does not take `u16`, which the node before it gives"
        );
    }
}

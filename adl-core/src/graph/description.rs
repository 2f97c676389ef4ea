use std::collections::HashSet;

use super::{NodeInfo, Rule, Stage, Violation, check_path, placement};

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

/// One node on a path: what it is, where it stands, and which segment of
/// the pipeline it belongs to. Types are compared only between neighbours
/// of one segment: a parallel split routes one field to each branch and a
/// merge rebuilds the sample, so the types across them differ by design.
#[derive(Clone)]
struct Step<'a> {
    node: &'a NodeInfo,
    stands_in: Stage,
    segment: usize,
}

impl Description {
    /// Every node of the pipeline, in canonical order: the `pre` nodes,
    /// then the body (for [`Body::Stages`] its `sample`, then its `collate`,
    /// then its `batch` nodes; for [`Body::Parallel`] each branch's
    /// `nodes()`, in branch order), then the `post` nodes.
    ///
    /// The index of a node in this list is its
    /// [`NodeId`](crate::exec::NodeId), which `pipeline!` passes to the
    /// node at run time (it wraps every node in an
    /// [`exec::Tagged`](crate::exec::Tagged)).
    pub fn nodes(&self) -> Vec<&NodeInfo> {
        let mut nodes = Vec::new();
        self.nodes_into(&mut nodes);
        nodes
    }

    /// [`nodes`](Description::nodes), appended to `nodes`.
    fn nodes_into<'a>(&'a self, nodes: &mut Vec<&'a NodeInfo>) {
        nodes.extend(&self.pre);
        match &self.body {
            Body::Stages {
                sample,
                collate,
                batch,
            } => nodes.extend(sample.iter().chain(collate).chain(batch)),
            Body::Parallel { branches } => {
                for (_, branch) in branches {
                    branch.nodes_into(nodes);
                }
            }
        }
        nodes.extend(&self.post);
    }

    /// Check every composition rule that the description can show: on
    /// every path from the source to the sink, one collate and every node in
    /// the stage it belongs to; neighbours whose types are both known must
    /// agree; branch names are unique. Returns every violation (empty: the
    /// pipeline is sound).
    pub fn check(&self) -> Vec<Violation> {
        let mut found = Vec::new();
        let mut segments = 0;
        self.check_into("pipeline", &[], &[], &mut segments, &mut found);
        found
    }

    /// Walk the paths below this description. `prefix` holds the enclosing
    /// `pre:` nodes (they stand in the sample stage) and `suffix` the
    /// enclosing `post:` nodes (they stand in the batch stage).
    fn check_into<'a>(
        &'a self,
        at: &str,
        prefix: &[Step<'a>],
        suffix: &[Step<'a>],
        segments: &mut usize,
        found: &mut Vec<Violation>,
    ) {
        let segment = *segments;
        *segments += 1;
        let steps = |nodes: &'a [NodeInfo], stands_in: Stage, segment: usize| {
            nodes.iter().map(move |node| Step {
                node,
                stands_in,
                segment,
            })
        };
        match &self.body {
            Body::Stages {
                sample,
                collate,
                batch,
            } => {
                let path: Vec<Step<'a>> = prefix
                    .iter()
                    .cloned()
                    .chain(steps(&self.pre, Stage::Sample, segment))
                    .chain(steps(sample, Stage::Sample, segment))
                    .chain(steps(collate, Stage::Collate, segment))
                    .chain(steps(batch, Stage::Batch, segment))
                    .chain(steps(&self.post, Stage::Batch, segment))
                    .chain(suffix.iter().cloned())
                    .collect();
                check_one_path(at, &path, found);
            }
            Body::Parallel { branches } => {
                if branches.is_empty() {
                    found.push(Violation {
                        rule: Rule::NoBranches,
                        at: at.to_owned(),
                        message: Rule::NoBranches.template().to_owned(),
                    });
                }
                let inner_prefix: Vec<Step<'a>> = prefix
                    .iter()
                    .cloned()
                    .chain(steps(&self.pre, Stage::Sample, segment))
                    .collect();
                // After the merge: a segment of its own.
                let merged = *segments;
                *segments += 1;
                let inner_suffix: Vec<Step<'a>> = steps(&self.post, Stage::Batch, merged)
                    .chain(suffix.iter().cloned())
                    .collect();
                let mut seen = HashSet::new();
                for (name, branch) in branches {
                    let here = format!("{at}/{name}");
                    if !seen.insert(name.as_str()) {
                        found.push(Violation {
                            rule: Rule::DuplicateBranch,
                            at: here.clone(),
                            message: Rule::DuplicateBranch.render(&[("name", name)]),
                        });
                    }
                    branch.check_into(&here, &inner_prefix, &inner_suffix, segments, found);
                }
            }
        }
    }
}

/// The violation of a node of its own stage standing in `stands_in`, if it
/// may not stand there (see [`PLACEMENT`](super::PLACEMENT)). Shared with
/// the planner's graph walk.
pub fn misplaced(at: &str, node: &NodeInfo, stands_in: Stage) -> Option<Violation> {
    let rule = placement(node.stage, stands_in)?;
    let given = node
        .input
        .map(|t| t.short_name())
        .unwrap_or_else(|| "the samples".to_owned());
    Some(Violation {
        rule,
        at: format!("{at}/{}", node.name),
        message: rule.render(&[("Self", &node.name), ("T", &given)]),
    })
}

/// The rules on one path: every node standing where it may, then the
/// stage order (via [`check_path`] on the stage each node stands in), then
/// neighbour types within a segment.
fn check_one_path(at: &str, path: &[Step<'_>], found: &mut Vec<Violation>) {
    for step in path {
        found.extend(misplaced(at, step.node, step.stands_in));
    }
    let positions: Vec<(&str, Stage)> = path
        .iter()
        .map(|s| (s.node.name.as_ref(), s.stands_in))
        .collect();
    found.extend(check_path(at, &positions));
    for pair in path.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        if before.segment != after.segment {
            continue;
        }
        if let (Some(out), Some(input)) = (before.node.output, after.node.input)
            && out.id != input.id
        {
            let given = out.short_name();
            found.push(Violation {
                rule: Rule::TypeMismatch,
                at: format!("{at}/{}", after.node.name),
                message: Rule::TypeMismatch.render(&[("Self", &after.node.name), ("T", &given)]),
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
    fn types_are_not_compared_across_a_split_or_a_merge_but_post_is_checked() {
        let branch = |ty: fn() -> NodeInfo| Description {
            pre: vec![],
            body: Body::Stages {
                sample: vec![ty()],
                collate: vec![node("c", Stage::Collate)],
                batch: vec![],
            },
            post: vec![],
        };
        let d = Description {
            pre: vec![node("decode", Stage::Sample).typed::<Vec<u8>, (u8, u16)>()],
            body: Body::Parallel {
                branches: vec![
                    (
                        "0".into(),
                        branch(|| node("a", Stage::Sample).typed::<u8, u8>()),
                    ),
                    (
                        "1".into(),
                        branch(|| node("b", Stage::Sample).typed::<u16, u16>()),
                    ),
                ],
            },
            post: vec![node("to_tensor", Stage::Batch).typed::<String, String>()],
        };
        assert_eq!(d.check(), vec![]);
        let mut bad = d.clone();
        bad.post = vec![node("flip", Stage::Sample)];
        let rules: Vec<Rule> = bad.check().into_iter().map(|v| v.rule).collect();
        assert_eq!(
            rules,
            vec![Rule::SampleNodeInBatch, Rule::SampleNodeInBatch]
        );
    }

    #[test]
    fn collates_stand_only_under_collate() {
        let d = Description {
            pre: vec![],
            body: Body::Stages {
                sample: vec![node("stack", Stage::Collate)],
                collate: vec![node("flip", Stage::Sample)],
                batch: vec![],
            },
            post: vec![],
        };
        let rules: Vec<Rule> = d.check().into_iter().map(|v| v.rule).collect();
        assert!(rules.contains(&Rule::CollateOutOfPlace), "{rules:?}");
        assert!(rules.contains(&Rule::NotACollate), "{rules:?}");
    }

    #[test]
    fn nodes_are_listed_in_canonical_order() {
        let stages =
            |sample: &'static str, collate: &'static str, batch: &'static str| Description {
                pre: vec![],
                body: Body::Stages {
                    sample: vec![node(sample, Stage::Sample)],
                    collate: vec![node(collate, Stage::Collate)],
                    batch: vec![node(batch, Stage::Batch)],
                },
                post: vec![],
            };
        let inner = Description {
            pre: vec![node("inner_pre", Stage::Sample)],
            body: Body::Parallel {
                branches: vec![
                    ("x".into(), stages("xs", "xc", "xb")),
                    ("y".into(), stages("ys", "yc", "yb")),
                ],
            },
            post: vec![node("inner_post", Stage::Batch)],
        };
        let d = Description {
            pre: vec![node("p0", Stage::Sample), node("p1", Stage::Sample)],
            body: Body::Parallel {
                branches: vec![("a".into(), inner), ("b".into(), stages("bs", "bc", "bb"))],
            },
            post: vec![node("q0", Stage::Batch)],
        };
        let names: Vec<&str> = d.nodes().iter().map(|n| n.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "p0",
                "p1",
                "inner_pre",
                "xs",
                "xc",
                "xb",
                "ys",
                "yc",
                "yb",
                "inner_post",
                "bs",
                "bc",
                "bb",
                "q0"
            ]
        );
        let mut flat = stages("s", "c", "b");
        flat.pre = vec![node("pre", Stage::Sample)];
        flat.post = vec![node("post", Stage::Batch)];
        let names: Vec<&str> = flat.nodes().iter().map(|n| n.name.as_ref()).collect();
        assert_eq!(names, ["pre", "s", "c", "b", "post"]);
        assert!(Description::default().nodes().is_empty());
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

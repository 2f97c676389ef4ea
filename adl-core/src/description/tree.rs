use adl_rules::check::{Branch, Core, Level, Step, TypeKey, check_level};

use super::{NodeInfo, Stage, TypeInfo, Violation};

/// A whole pipeline as data: pre-composed transforms, a body, and
/// post-composed transforms. `pipeline!` builds one for every pipeline it
/// expands (`.graph()`), and the planner in `adl-graph` turns it into a
/// graph, checks it and draws it. Built with [`Description::new`] (or the
/// engine's `GraphBuilder`), so that a field added later breaks no program.
///
/// ```
/// use adl::description::{Body, Description, NodeInfo, Stage};
///
/// let description = Description::new(Body::stages(
///     vec![NodeInfo::new("flip", Stage::Sample)],
///     vec![NodeInfo::new("default", Stage::Collate)],
///     vec![],
/// ))
/// .with_pre(vec![NodeInfo::new("decode", Stage::Sample)]);
/// let names: Vec<&str> = description.nodes().iter().map(|n| &*n.name).collect();
/// assert_eq!(names, ["decode", "flip", "default"]);
/// assert!(description.check().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Description {
    /// Transforms before the body (`pre:`), applied to every raw sample.
    pub pre: Vec<NodeInfo>,
    /// The stages, or parallel branches.
    pub body: Body,
    /// Transforms after the body (`post:`), applied to every batch.
    pub post: Vec<NodeInfo>,
}

/// The body of a [`Description`]: built with [`Body::stages`] or
/// [`Body::parallel`].
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// `sample: ... , collate: ..., batch: ...`. The nodes are listed
    /// under the stage they *stand in*; each node's own
    /// [`stage`](NodeInfo::stage) says what it *is*.
    #[non_exhaustive]
    Stages {
        /// Nodes under `sample:`, in order.
        sample: Vec<NodeInfo>,
        /// The nodes under `collate:` (exactly one is right).
        collate: Vec<NodeInfo>,
        /// Nodes under `batch:`, in order.
        batch: Vec<NodeInfo>,
    },
    /// One branch per field (or key) of the sample, each a whole pipeline.
    #[non_exhaustive]
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

impl Body {
    /// `sample: ..., collate: ..., batch: ...`: the nodes under each, in
    /// order.
    pub fn stages(sample: Vec<NodeInfo>, collate: Vec<NodeInfo>, batch: Vec<NodeInfo>) -> Self {
        Body::Stages {
            sample,
            collate,
            batch,
        }
    }

    /// One branch per field (or key): `(field or key, its pipeline)`, in
    /// order.
    pub fn parallel(branches: Vec<(String, Description)>) -> Self {
        Body::Parallel { branches }
    }
}

impl Description {
    /// A pipeline of `body`, with nothing before or after it.
    pub fn new(body: Body) -> Self {
        Description {
            pre: Vec::new(),
            body,
            post: Vec::new(),
        }
    }

    /// With `pre` before the body (`pre:`).
    pub fn with_pre(mut self, pre: Vec<NodeInfo>) -> Self {
        self.pre = pre;
        self
    }

    /// With `post` after the body (`post:`).
    pub fn with_post(mut self, post: Vec<NodeInfo>) -> Self {
        self.post = post;
        self
    }

    /// Every node of the pipeline, in canonical order: the `pre` nodes,
    /// then the body (for [`Body::Stages`] its `sample`, then its `collate`,
    /// then its `batch` nodes; for [`Body::Parallel`] each branch's
    /// `nodes()`, in branch order), then the `post` nodes.
    ///
    /// The index of a node in this list is its
    /// [`NodeId`](adl_exec::NodeId), which `pipeline!` passes to the
    /// node at run time (it wraps every node in an
    /// [`exec::Tagged`](crate::pipeline::Tagged)).
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
    /// pipeline is sound). The checker is the one `pipeline!` and the
    /// planner use (`adl_rules::check`), locating violations by node path
    /// (`pipeline/radar/flip`).
    pub fn check(&self) -> Vec<Violation> {
        check_level(&self.level("pipeline"), &"pipeline".to_owned())
            .into_iter()
            .map(Violation::from)
            .collect()
    }

    /// The description at node path `at` as the checker reads it, each
    /// node located at its own path.
    fn level(&self, at: &str) -> Level<String, TypeInfo> {
        let step = |node: &NodeInfo, stands_in| {
            checker_step(node, stands_in, format!("{at}/{}", node.name))
        };
        let steps = |nodes: &[NodeInfo], stands_in: Stage| -> Vec<Step<String, TypeInfo>> {
            nodes.iter().map(|node| step(node, stands_in)).collect()
        };
        let mut level = Level {
            pre: steps(&self.pre, Stage::Sample),
            post: steps(&self.post, Stage::Batch),
            ..Level::default()
        };
        match &self.body {
            Body::Stages {
                sample,
                collate,
                batch,
            } => {
                level.sample = steps(sample, Stage::Sample);
                level.cores = collate
                    .iter()
                    .map(|node| Core::Collate(step(node, Stage::Collate)))
                    .collect();
                level.batch = steps(batch, Stage::Batch);
            }
            Body::Parallel { branches } => {
                level.cores = vec![Core::Parallel {
                    name: "{ .. }".to_owned(),
                    site: String::new(),
                    body: String::new(),
                    branches: branches
                        .iter()
                        .map(|(name, branch)| Branch {
                            name: Some(name.clone()),
                            site: String::new(),
                            body: String::new(),
                            level: branch.level(&format!("{at}/{name}")),
                        })
                        .collect(),
                }];
            }
        }
        level
    }
}

/// A node as the checker (`adl_rules::check`) reads it, standing in
/// `stands_in`, at its node path `site` (`pipeline/radar/flip`): for
/// [`Description::check`] and the planner's walk of its graph.
#[doc(hidden)]
pub fn checker_step(node: &NodeInfo, stands_in: Stage, site: String) -> Step<String, TypeInfo> {
    Step {
        name: node.name.to_string(),
        is: Some(node.stage),
        stands_in,
        input: node.input,
        output: node.output,
        site,
    }
}

/// Types compare by `TypeId` and are named as a user writes them.
impl TypeKey for TypeInfo {
    fn same(&self, other: &Self) -> bool {
        self.id == other.id
    }
    fn short_name(&self) -> String {
        TypeInfo::short_name(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::Rule;

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
        // After the merge, on both branches' paths, where it stands: once.
        let found: Vec<(Rule, String)> = bad.check().into_iter().map(|v| (v.rule, v.at)).collect();
        assert_eq!(
            found,
            vec![(Rule::SampleNodeInBatch, "pipeline/flip".to_owned())]
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

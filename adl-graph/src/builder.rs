//! Building a [`Description`] at run time, for pipelines that are not
//! written with `pipeline!` (read from a configuration, say), so that the
//! planner checks them with the same rules.
//!
//! Design note: a body has stages *or* parallel branches, never both, so
//! there are two builders: [`GraphBuilder`] for `pre`, `sample`,
//! `collate`, `batch`, `post`, and [`ParallelBuilder`] (from
//! [`GraphBuilder::parallel`]) for `pre`, branches, `post`. The builders
//! only record: every rule is checked by [`Planner::plan`](crate::Planner::plan).

use adl_core::description::{Body, Description, NodeInfo, Stage};

/// Builds the [`Description`] of a pipeline with stages.
///
/// ```
/// use adl::description::{NodeInfo, Rule, Stage};
/// use adl::graph::{GraphBuilder, Planner};
///
/// let description = GraphBuilder::new()
///     .sample(NodeInfo::new("decode", Stage::Sample).typed::<Vec<u8>, String>())
///     .collate(NodeInfo::new("default", Stage::Collate).typed::<String, Vec<String>>())
///     .collate(NodeInfo::new("again", Stage::Collate))
///     .build();
/// let error = Planner.plan(&description).unwrap_err();
/// assert_eq!(error.violations()[0].rule, Rule::CollateOnce);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphBuilder {
    pre: Vec<NodeInfo>,
    sample: Vec<NodeInfo>,
    collate: Vec<NodeInfo>,
    batch: Vec<NodeInfo>,
    post: Vec<NodeInfo>,
}

impl GraphBuilder {
    /// An empty pipeline.
    pub fn new() -> Self {
        GraphBuilder::default()
    }

    /// A pipeline of parallel branches.
    pub fn parallel() -> ParallelBuilder {
        ParallelBuilder::default()
    }

    /// Add `node` under `pre:`.
    pub fn pre(mut self, node: NodeInfo) -> Self {
        self.pre.push(node);
        self
    }

    /// Add `node` under `sample:`.
    pub fn sample(mut self, node: NodeInfo) -> Self {
        self.sample.push(node);
        self
    }

    /// Add `node` under `collate:` (one is right; the planner rejects
    /// more).
    pub fn collate(mut self, node: NodeInfo) -> Self {
        self.collate.push(node);
        self
    }

    /// Add `node` under `batch:`.
    pub fn batch(mut self, node: NodeInfo) -> Self {
        self.batch.push(node);
        self
    }

    /// Add `node` under `post:`.
    pub fn post(mut self, node: NodeInfo) -> Self {
        self.post.push(node);
        self
    }

    /// Add `node` under the section of `stage`, e.g. one named in a
    /// configuration file ([`Stage::from_keyword`]).
    pub fn node(self, stage: Stage, node: NodeInfo) -> Self {
        match stage {
            Stage::Sample => self.sample(node),
            Stage::Collate => self.collate(node),
            Stage::Batch => self.batch(node),
        }
    }

    /// The description.
    pub fn build(self) -> Description {
        Description::new(Body::stages(self.sample, self.collate, self.batch))
            .with_pre(self.pre)
            .with_post(self.post)
    }
}

impl From<GraphBuilder> for Description {
    fn from(builder: GraphBuilder) -> Self {
        builder.build()
    }
}

/// Builds the [`Description`] of a pipeline of parallel branches, one per
/// field (or key) of the sample, each a whole pipeline.
///
/// ```
/// use adl::description::{NodeInfo, Stage};
/// use adl::graph::{GraphBuilder, Planner};
///
/// let branch = |name: &'static str| {
///     GraphBuilder::new()
///         .sample(NodeInfo::new(name, Stage::Sample))
///         .collate(NodeInfo::new("default", Stage::Collate))
/// };
/// let description = GraphBuilder::parallel()
///     .branch("radar", branch("crop"))
///     .branch("lidar", branch("voxelize"))
///     .build();
/// let plan = Planner.plan(&description)?;
/// assert_eq!(plan.paths().len(), 2);
/// assert_eq!(plan.paths()[1].location, "pipeline/lidar");
/// # Ok::<(), adl::graph::PlanError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParallelBuilder {
    pre: Vec<NodeInfo>,
    branches: Vec<(String, Description)>,
    post: Vec<NodeInfo>,
}

impl ParallelBuilder {
    /// Add `node` under `pre:`, before the branches.
    pub fn pre(mut self, node: NodeInfo) -> Self {
        self.pre.push(node);
        self
    }

    /// Add a branch for the field (or key) `name`: a [`GraphBuilder`], a
    /// nested [`ParallelBuilder`] or a [`Description`].
    pub fn branch(mut self, name: impl Into<String>, pipeline: impl Into<Description>) -> Self {
        self.branches.push((name.into(), pipeline.into()));
        self
    }

    /// Add `node` under `post:`, after the branches are merged.
    pub fn post(mut self, node: NodeInfo) -> Self {
        self.post.push(node);
        self
    }

    /// The description.
    pub fn build(self) -> Description {
        Description::new(Body::parallel(self.branches))
            .with_pre(self.pre)
            .with_post(self.post)
    }
}

impl From<ParallelBuilder> for Description {
    fn from(builder: ParallelBuilder) -> Self {
        builder.build()
    }
}

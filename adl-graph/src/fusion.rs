//! The fusion pass: which consecutive batch kernels run as one kernel.
//!
//! A run of two or more consecutive batch nodes whose kernels are
//! elementwise ([`NodeInfo::fusable`](adl_core::graph::NodeInfo::fusable):
//! the built-in kernels) compiles into one OpenCL kernel at run time: one
//! read and one write of the batch. This pass finds those runs in a plan,
//! so that the DOT shows them; the executor (`adl::opencl`) makes the same
//! groups from the nodes' launches. Fusion is on unless switched off with
//! [`Plan::with_fusion`] (or, for plans and the executor alike,
//! `ADL_OPENCL_FUSION=0`).

use adl_core::graph::Stage;
use petgraph::Direction;
use petgraph::graph::NodeIndex;

use crate::plan::Plan;

impl Plan {
    /// This plan with fusion on or off (for its DOT; the executor's switch
    /// is `OpenCl::fusion`).
    pub fn with_fusion(mut self, on: bool) -> Self {
        self.fusion = on;
        self
    }

    /// Whether fused kernels are shown.
    pub fn fuses(&self) -> bool {
        self.fusion
    }

    /// The groups of nodes that run as one fused kernel, in order: runs of
    /// two or more consecutive batch nodes with elementwise kernels. Empty
    /// when fusion is off.
    ///
    /// ```
    /// use adl::graph::{NodeInfo, Stage};
    /// use adl::engine::{GraphBuilder, Planner};
    ///
    /// let kernel = |name: &'static str| {
    ///     NodeInfo::new(name, Stage::Batch).typed::<Vec<f32>, Vec<f32>>().with_kernel("v").fusable()
    /// };
    /// let description = GraphBuilder::new()
    ///     .collate(NodeInfo::new("default", Stage::Collate).typed::<f32, Vec<f32>>())
    ///     .batch(kernel("scale"))
    ///     .batch(kernel("clamp"))
    ///     .build();
    /// let plan = Planner.plan(&description)?;
    /// let names: Vec<Vec<&str>> = plan
    ///     .fused_groups()
    ///     .iter()
    ///     .map(|g| g.iter().map(|&n| plan.graph()[n].name()).collect())
    ///     .collect();
    /// assert_eq!(names, [["scale", "clamp"]]);
    /// assert!(plan.to_dot().contains("fused kernel: scale + clamp"));
    /// assert!(plan.with_fusion(false).fused_groups().is_empty());
    /// # Ok::<(), adl::engine::PlanError>(())
    /// ```
    pub fn fused_groups(&self) -> Vec<Vec<NodeIndex>> {
        if !self.fusion {
            return Vec::new();
        }
        let fusable = |n: NodeIndex| {
            let node = &self.graph[n];
            node.stands_in() == Some(Stage::Batch)
                && node
                    .info()
                    .is_some_and(|info| info.kernel.is_some() && info.fusable)
        };
        let mut groups: Vec<Vec<NodeIndex>> = Vec::new();
        for n in self.graph.node_indices().filter(|&n| fusable(n)) {
            let mut before = self.graph.neighbors_directed(n, Direction::Incoming);
            let previous = match (before.next(), before.next()) {
                (Some(p), None) => Some(p),
                _ => None,
            };
            match groups.last_mut() {
                Some(group) if previous.is_some() && group.last().copied() == previous => {
                    group.push(n);
                }
                _ => groups.push(vec![n]),
            }
        }
        groups.retain(|g| g.len() >= 2);
        groups
    }
}

//! Where the batch kernels of a plan run, and which run as one.
//!
//! A *kernel chain* is a run of consecutive batch nodes with a kernel (the
//! nodes `pipeline!` links into one chain: any other node, a split or a
//! merge ends it). A chain runs on the schedule's device when there is one
//! and it runs every element type of the chain, else on the CPU; within
//! it, [`groups`](adl_rules::fusion::groups), the one rule of fusion that
//! the executors follow too, says which kernels run as one.

use adl_core::description::{Device, Stage};
use adl_rules::fusion::{Fusion, Target, groups};
use petgraph::Direction;
use petgraph::graph::NodeIndex;

use crate::plan::Plan;
use crate::schedule::Settings;

impl Plan {
    /// Place every kernel chain on its device and find its fused groups,
    /// for `settings`.
    pub(crate) fn place_kernels(&mut self, settings: &Settings) {
        let mut fused = Vec::new();
        for chain in self.kernel_chains() {
            let runs_there = |n: &NodeIndex| {
                let elements = self.graph[*n]
                    .info()
                    .and_then(|info| info.kernel.as_ref())
                    .and_then(|k| k.elements);
                settings.device.as_ref().is_some_and(|device| {
                    elements.is_none_or(|(i, o)| device.supports(i) && device.supports(o))
                })
            };
            let (target, device) = if chain.iter().all(runs_there) {
                (Target::Device, Device::OpenCl)
            } else {
                (Target::Cpu, Device::Cpu)
            };
            let classes: Vec<Fusion> = chain
                .iter()
                .filter_map(|&n| self.graph[n].info().and_then(|i| i.fusion()))
                .collect();
            for &n in &chain {
                self.graph[n].device = device;
            }
            for group in groups(&classes, target, settings.fusion) {
                if group.len() >= 2 {
                    fused.push(chain[group].to_vec());
                }
            }
        }
        self.fused = fused;
    }

    /// The kernel chains, in the order of the description: runs of
    /// consecutive batch-stage nodes with a kernel, each joined to the next
    /// by its one edge.
    fn kernel_chains(&self) -> Vec<Vec<NodeIndex>> {
        let is_kernel = |n: NodeIndex| {
            let node = &self.graph[n];
            node.stands_in() == Some(Stage::Batch)
                && node.info().is_some_and(|info| info.kernel.is_some())
        };
        let mut chains: Vec<Vec<NodeIndex>> = Vec::new();
        for n in self.graph.node_indices().filter(|&n| is_kernel(n)) {
            let mut before = self.graph.neighbors_directed(n, Direction::Incoming);
            let previous = match (before.next(), before.next()) {
                (Some(p), None) => Some(p),
                _ => None,
            };
            match chains.last_mut() {
                Some(chain) if previous.is_some() && chain.last().copied() == previous => {
                    chain.push(n);
                }
                _ => chains.push(vec![n]),
            }
        }
        chains
    }

    /// The groups of two or more batch kernels that run as one, in order:
    /// one kernel on the device, or one loop on the CPU (see the node's
    /// [`device`](crate::PlanNode::device)). Empty when fusion is off.
    ///
    /// ```
    /// use adl::description::{KernelInfo, NodeInfo, Stage};
    /// use adl::kernel::Fusion;
    /// use adl::graph::{DeviceFacts, GraphBuilder, Planner, Settings};
    ///
    /// let kernel = |name: &'static str| {
    ///     NodeInfo::new(name, Stage::Batch)
    ///         .typed::<Vec<f32>, Vec<f32>>()
    ///         .with_kernel_info(KernelInfo::new("v", Fusion::Map))
    /// };
    /// let description = GraphBuilder::new()
    ///     .collate(NodeInfo::new("default", Stage::Collate).typed::<f32, Vec<f32>>())
    ///     .batch(kernel("scale"))
    ///     .batch(kernel("clamp"))
    ///     .build();
    /// let on_gpu = Settings::default().device(DeviceFacts::named("gpu"), "the first GPU");
    /// let plan = Planner.schedule(&description, &on_gpu)?;
    /// let names: Vec<Vec<&str>> = plan
    ///     .fused_groups()
    ///     .iter()
    ///     .map(|g| g.iter().map(|&n| plan.graph()[n].name()).collect())
    ///     .collect();
    /// assert_eq!(names, [["scale", "clamp"]]);
    /// assert!(plan.to_dot().contains("fused kernel: scale + clamp"));
    /// let unfused = Planner.schedule(&description, &on_gpu.fusion(false))?;
    /// assert!(unfused.fused_groups().is_empty());
    /// # Ok::<(), adl::graph::PlanError>(())
    /// ```
    pub fn fused_groups(&self) -> &[Vec<NodeIndex>] {
        &self.fused
    }

    /// Whether consecutive batch kernels run as one in this plan.
    pub fn fuses(&self) -> bool {
        self.schedule.fusion
    }

    /// The fused group `node` runs in, if any: its nodes by their
    /// [paths](Plan::node_paths), in order (itself included).
    pub fn fused_with(&self, node: NodeIndex) -> Option<Vec<String>> {
        let group = self.fused.iter().find(|g| g.contains(&node))?;
        let paths: std::collections::HashMap<NodeIndex, String> = self
            .transforms()
            .map(|(n, _)| n)
            .zip(self.node_paths())
            .collect();
        Some(group.iter().map(|n| paths[n].clone()).collect())
    }
}

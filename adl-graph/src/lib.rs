//! # adl-graph
//!
//! The adl engine. It holds a pipeline as a petgraph graph of nodes (name,
//! stage, device, input and output types), validates it with the
//! composition rules of `adl-core`, and exports it to DOT and to SVG (drawn
//! in pure Rust, no Graphviz needed), and runs pipelines: the [`Loader`] runs sample
//! nodes on a rayon pool (the samples of a batch in parallel, parallel
//! branches joined) with prefetch, sharding, exact resume and per-node
//! statistics; batch kernels run on an OpenCL device ([`opencl`], the
//! `opencl` feature) or, without one, as their Rust bodies.
//!
//! - [`Planner`] turns a [`Description`](adl_core::graph::Description)
//!   (from `pipeline!`'s `.graph()`, or from the run-time builders) into a
//!   [`Plan`], or a [`PlanError`] listing every broken rule.
//! - [`Plan`]: the [`petgraph`] graph of [`PlanNode`]s and [`Flow`]s, its
//!   source-to-sink [`PlanPath`]s, [`Plan::check`], [`Plan::to_dot`],
//!   [`Plan::to_svg`].
//! - [`GraphBuilder`] and [`ParallelBuilder`] describe pipelines at run
//!   time, e.g. from a configuration.
//! - [`loader`]: the [`Loader`] and its epochs, states and
//!   statistics.
//!
//! ```
//! use adl::graph::{NodeInfo, Stage};
//! use adl::engine::{GraphBuilder, Planner};
//!
//! let description = GraphBuilder::new()
//!     .sample(NodeInfo::new("flip", Stage::Sample).typed::<Vec<u8>, Vec<u8>>())
//!     .collate(NodeInfo::new("default", Stage::Collate).typed::<Vec<u8>, Vec<Vec<u8>>>())
//!     .batch(NodeInfo::new("normalize", Stage::Batch).typed::<Vec<Vec<u8>>, Vec<f32>>().with_kernel("__kernel void normalize() {}"))
//!     .build();
//! let plan = Planner.plan(&description)?;
//! let dot = plan.to_dot();
//! assert!(dot.contains("subgraph cluster_batch_opencl {"));
//! assert!(dot.contains("label=\"normalize\\n[opencl kernel]\""));
//! # Ok::<(), adl::engine::PlanError>(())
//! ```

mod builder;
pub mod loader;

mod dot;
mod fusion;
mod notice;
#[cfg(feature = "opencl")]
pub mod opencl;
mod plan;
mod planner;
mod svg;
mod validate;

pub use adl_core as core;
pub use petgraph;

pub use adl_core::graph::Section;
pub use builder::{GraphBuilder, ParallelBuilder};
pub use loader::{Loader, LoaderState, OnError, Sampler, ShardTail, Statistics};
pub use plan::{Flow, NodeKind, Plan, PlanNode, PlanPath};
pub use planner::Planner;
pub use svg::SvgError;
pub use validate::PlanError;

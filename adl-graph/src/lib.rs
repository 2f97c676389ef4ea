//! # adl-graph
//!
//! The adl engine. It holds a pipeline as a petgraph graph of nodes (name,
//! stage, input and output types, kernel), checks it with the composition
//! rules of `adl-rules`, **schedules** it (which pool runs each stage and
//! with how many threads, which device each batch node runs on, which batch
//! kernels run as one), draws it as DOT and SVG (drawn in pure Rust, no
//! Graphviz needed), and runs it: the [`Loader`](loader::Loader) makes its
//! plan once, from its settings, and runs what the plan says. Sample nodes
//! run on a rayon pool (the samples of a batch in parallel, parallel
//! branches joined) with batches built ahead, sharding, exact resume and per-node
//! statistics; batch kernels run on an OpenCL device ([`opencl`], the
//! `opencl` feature) or, without one, as their Rust bodies.
//!
//! - [`Planner`] turns a [`Description`](adl_core::description::Description)
//!   (from `pipeline!`'s `.graph()`, or from the run-time builders) into a
//!   [`Plan`] for some [`Settings`], or a [`PlanError`] listing every broken
//!   rule.
//! - [`Plan`]: the [`petgraph`] graph of [`PlanNode`]s and [`Flow`]s, its
//!   source-to-sink [`PlanPath`]s, its [`Schedule`], [`Plan::check`],
//!   [`Plan::to_dot`], [`Plan::to_svg`].
//! - [`GraphBuilder`] and [`ParallelBuilder`] describe pipelines at run
//!   time, e.g. from a configuration.
//! - [`loader`]: the [`Loader`](loader::Loader) and its epochs, states and
//!   statistics; [`Loader::plan`](loader::Loader::plan) is the plan it runs.
//!
//! ```
//! use adl::description::{NodeInfo, Stage};
//! use adl::graph::{DeviceFacts, GraphBuilder, Planner, Settings};
//!
//! let description = GraphBuilder::new()
//!     .sample(NodeInfo::new("flip", Stage::Sample).typed::<Vec<u8>, Vec<u8>>())
//!     .collate(NodeInfo::new("default", Stage::Collate).typed::<Vec<u8>, Vec<Vec<u8>>>())
//!     .batch(NodeInfo::new("normalize", Stage::Batch).typed::<Vec<Vec<u8>>, Vec<f32>>().with_kernel("__kernel void normalize() {}"))
//!     .build();
//! // Two workers and a GPU: the kernel runs there.
//! let settings = Settings::default().workers(2).device(DeviceFacts::named("GPU 0"), "the first GPU");
//! let plan = Planner.schedule(&description, &settings)?;
//! let dot = plan.to_dot();
//! assert!(dot.contains("subgraph cluster_batch_opencl {"));
//! assert!(dot.contains("label=\"normalize\\n[opencl kernel]\""));
//! assert!(dot.contains("label=\"sample · 2 workers + consumer\""));
//! // Without a device, its Rust body runs on the workers.
//! let dot = Planner.plan(&description)?.to_dot();
//! assert!(dot.contains("label=\"normalize\\n[kernel: Rust body]\""));
//! # Ok::<(), adl::graph::PlanError>(())
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
mod schedule;
mod sources;
mod svg;
mod validate;

pub use petgraph;

pub use builder::{GraphBuilder, ParallelBuilder};
pub use plan::{Flow, NodeKind, Plan, PlanNode, PlanPath};
pub use planner::Planner;
pub use schedule::{DeviceFacts, LoaderStage, Pool, Schedule, Settings, StagePlan};
pub use sources::Sources;
pub use svg::SvgError;
pub use validate::PlanError;

//! # adl-graph
//!
//! The adl engine. It holds a pipeline as a petgraph graph of nodes (name,
//! stage, device, input and output types), validates it with the composition
//! rules of `adl-core`, exports it to DOT, and runs it: sample nodes in
//! parallel on rayon, one collate, batch nodes as OpenCL kernels with a CPU
//! fallback, behind a `Loader` that shuffles, shards, batches and prefetches.
//!
//! Nothing is exported yet: the planner and the executor arrive with the
//! pipeline and DSL work (issues 3 and 4). The crate already depends on
//! `adl-core`, whose specification traits it will schedule.

pub use adl_core as core;

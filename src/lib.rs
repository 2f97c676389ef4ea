//! # adl
//!
//! A typed dataflow engine for machine-learning data loading, built on the
//! [Abstract Dataloader](https://wiselabcmu.github.io/abstract-dataloader/)
//! (ADL) specification.
//!
//! Describe multimodal time-series data as typed [`Sensor`]s, synchronize
//! them into a [`Recording`] (a trace), concatenate traces into a
//! [`Dataset`]:
//!
//! ```
//! use adl::prelude::*;
//!
//! let load = |i: usize| -> adl::Result<usize> { Ok(i) };
//! let imu = Series::new("imu", Timestamps::new("imu", vec![0.00, 0.01, 0.02, 0.03])?, load);
//! let gps = Series::new("gps", Timestamps::new("gps", vec![0.005, 0.025])?, load);
//! let trace = Recording::new("flight", vec![imu, gps], &Nearest::new("gps", 0.006)?)?;
//! let dataset = Concat::new(vec![trace])?;
//! assert_eq!(dataset.len(), 2);
//! # Ok::<(), adl::Error>(())
//! ```
//!
//! Sensors of different types go in one recording as a struct with
//! `#[derive(SensorSet)]` (or a tuple): each synchronized sample is a typed
//! struct with one field per sensor.
//!
//! ```
//! use adl::prelude::*;
//! use ndarray::Array2;
//!
//! #[derive(SensorSet)]
//! #[sensor_set(sample = Frame, derive(Debug, Clone))]
//! struct Rig<R, I> {
//!     radar: R,
//!     imu: I,
//! }
//!
//! let radar = Series::new("radar", Timestamps::new("radar", vec![0.0, 0.1, 0.2])?, |i| {
//!     Ok(Array2::<f32>::from_elem((4, 8), i as f32))
//! });
//! let imu = Series::new("imu", Timestamps::new("imu", (0..21).map(|i| i as f64 * 0.01).collect())?, |i| {
//!     Ok([i as f32; 6])
//! });
//! let imu = Window::new(imu, 4, 0)?.clamped(); // the last 5 readings
//! let trace = Recording::new("run", Rig { radar, imu }, &Nearest::new("radar", 0.005)?)?;
//! let frame: Frame<Array2<f32>, Vec<[f32; 6]>> = trace.get(2)?;
//! assert_eq!(frame.radar[[0, 0]], 2.0);
//! assert_eq!(frame.imu.len(), 5);
//! assert_eq!(frame.imu[4][0], 20.0); // the reading at 0.2 s
//! # Ok::<(), adl::Error>(())
//! ```
//!
//! From a dataset to batches: a typed [`Pipeline`] of a
//! per-sample transform, the default collate (structure-preserving, like
//! PyTorch's `default_collate`) and a batch transform, over batches of
//! dataset indices:
//!
//! ```
//! use adl::prelude::*;
//! use ndarray::{Array1, array};
//!
//! #[derive(adl::Collate, Clone)]
//! struct Reading {
//!     accel: Array1<f32>,
//!     label: i64,
//! }
//! // -> ReadingBatch { accel: Array2<f32>, label: Array1<i64> }
//!
//! let dataset: InMemory<Reading> = (0..10)
//!     .map(|i| Reading { accel: Array1::from_elem(3, i as f32), label: i % 2 })
//!     .collect();
//! let pipeline = Stages::new()
//!     .with_sample(|r: Reading| Reading { accel: r.accel * 2.0, ..r })
//!     .with_collate(DefaultCollate)
//!     .with_batch(|b: ReadingBatch| (b.accel.sum_axis(ndarray::Axis(1)), b.label));
//!
//! let mut batches = Vec::new();
//! for samples in dataset.batch(4)?.iter() {
//!     batches.push(adl::pipeline::run(&pipeline, samples?)?);
//! }
//! assert_eq!(batches.len(), 3); // 4 + 4 + 2: the last batch is partial
//! let (accel_sums, labels) = &batches[0];
//! assert_eq!(accel_sums, &array![0.0f32, 6.0, 12.0, 18.0]);
//! assert_eq!(labels, &array![0i64, 1, 0, 1]);
//! # Ok::<(), adl::Error>(())
//! ```
//!
//! The crates behind the facade: `adl-core` (the specification and its
//! generic components), `adl-macros` (the DSL), `adl-graph` (the engine).

pub use adl_core::*;

/// `#[derive(Collate)]`: see [`collate`].
pub use adl_macros::Collate;
/// `#[derive(Recycle)]`: a batch struct of your own whose memory a loader
/// reuses (see [`exec::Recycle`]).
pub use adl_macros::Recycle;
/// `#[derive(SensorSet)]`: a struct of sensors of different types whose
/// recording gives typed samples (see [`SensorSet`]).
pub use adl_macros::SensorSet;
/// `pipeline! { sample: ..., collate: ..., batch: ... }`: a typed pipeline with the description of its graph (see `docs/dsl.md`).
pub use adl_macros::pipeline;
/// `#[transform]`: declare a typed, named pipeline node (see [`graph::Node`]).
#[cfg(feature = "opencl")]
pub use adl_macros::transform;
/// `#[transform]`: declare a typed, named pipeline node (see [`graph::Node`]).
/// (Built without the `opencl` feature: `opencl = ...` is an error.)
#[cfg(not(feature = "opencl"))]
pub use adl_macros::transform_without_opencl as transform;

/// The engine (`adl-graph`): the [`Planner`](engine::Planner) that turns a
/// pipeline's [`Description`](adl_core::graph::Description) into a checked
/// petgraph [`Plan`](engine::Plan), the run-time
/// [`GraphBuilder`](engine::GraphBuilder), and DOT/SVG export.
pub use adl_graph as engine;

/// The loader (`adl-graph`): a dataset and a pipeline run with workers,
/// prefetch, per-epoch shuffling, rank sharding, exact resume, an error
/// policy and per-node statistics. See [`Loader`](loader::Loader).
pub use adl_graph::loader;

/// Batch kernels on OpenCL devices (`adl-graph`, the `opencl` feature): the
/// device, its program cache and buffers, fusion. See
/// [`OpenCl`](opencl::OpenCl) and [`kernel`] for the kernel ABI.
#[cfg(feature = "opencl")]
pub use adl_graph::opencl;

/// The names most programs need, in one `use adl::prelude::*;`.
pub mod prelude {
    pub use adl_core::collate::{Collatable, DefaultCollate};
    pub use adl_core::exec::Recycle;
    pub use adl_core::pipeline::{
        IdentityCollate, ParallelPipelines, SequencePipeline, Stages, collate_fn,
    };
    pub use adl_core::pipes::{DatasetExt, IterableDataset, IterableExt, OnError};
    pub use adl_core::sync::{Bound, Decimate, Empty, Margin, Margins, Nearest, Next};
    pub use adl_core::transform::{Identity, ParallelTransforms, TransformExt, fallible, named};
    pub use adl_core::{
        BoxedSensor, Collate, Concat, Dataset, Error, InMemory, Indices, Metadata, Pipeline,
        Record, Recording, Result, Sensor, SensorSet, Series, Synchronization, Timestamps, Trace,
        Transform, Window,
    };
    pub use adl_graph::loader::{Loader, LoaderState, Sampler, ShardTail};
    #[cfg(feature = "opencl")]
    pub use adl_macros::transform;
    #[cfg(not(feature = "opencl"))]
    pub use adl_macros::transform_without_opencl as transform;
    pub use adl_macros::{Collate, Recycle, SensorSet, pipeline};
}

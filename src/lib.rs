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
//! use adl::{Concat, sync::Nearest};
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
//! use adl::{Window, sync::Nearest};
//! use adl::ndarray::Array2;
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
//! use adl::ndarray::{Array1, array};
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
//! # Where things are
//!
//! One path per item. At the root: the specification's traits
//! ([`Metadata`], [`Sensor`], [`Synchronization`], [`Trace`], [`Dataset`],
//! [`Transform`], [`Collate`](trait@Collate), [`Pipeline`]), the errors ([`Error`],
//! [`Result`], [`OnError`]), the sensors, traces and datasets, and the
//! macros. Everything else by what it is: [`sync`], [`transform`](mod@transform),
//! [`pipeline`](mod@pipeline), [`collate`], [`pipes`], [`sample`], [`graph`] (what a
//! pipeline looks like), [`exec`] (what it runs in), [`kernel`] (batch
//! kernels), [`loader`], [`engine`] (the planner and its plans),
//! [`opencl`], [`files`] (sensors read from files, PX4 logs among them). [`prelude`] has the names most programs use.
//! `adl::ndarray` is the `ndarray` adl's arrays are from (0.17).
//!
//! The crates behind the facade: `adl-rules` (the composition rules as
//! data), `adl-core` (the specification and its generic components),
//! `adl-lang` and `adl-macros` (the DSL), `adl-graph` (the engine),
//! `adl-files` (file-backed sensors).

// The specification, at the root.
pub use adl_core::{
    Collate, Dataset, Metadata, Pipeline, Sensor, SensorBatches, SensorStream, Synchronization,
    Trace, Transform,
};
// Errors and the error policy.
pub use adl_core::{BoxError, Error, OnError, Result};
// Sensors, traces, datasets.
pub use adl_core::{
    AnySensor, AsAnySensor, BoxedSensor, Concat, InMemory, IndexRange, Indices, Mapped, Origin,
    Record, Recording, SensorDataset, SensorOrigin, SensorSet, Series, Timestamps, TraceReport,
    TryMapped, Window, WindowMetadata,
};
// Everything else, by what it is.
pub use adl_core::{
    collate, exec, graph, kernel, pipeline, pipes, read_ahead, sample, sync, transform,
};

/// File-backed sensors (`adl-files`, the `files` feature): NumPy arrays
/// memory-mapped, timestamps from files, a sensor per folder, roverd's
/// format, PX4 flight logs (`files::px4`, the `px4` feature).
#[cfg(feature = "files")]
pub use adl_files as files;

/// The loader (`adl-graph`): a dataset and a pipeline run with workers,
/// prefetch, per-epoch shuffling, rank sharding, exact resume, an error
/// policy and per-node statistics, following its plan. See
/// [`Loader`](loader::Loader).
pub use adl_graph::loader;

/// Batch kernels on OpenCL devices (`adl-graph`, the `opencl` feature): the
/// device, its program cache and buffers. See [`OpenCl`](opencl::OpenCl)
/// and [`kernel`] for the kernel ABI.
#[cfg(feature = "opencl")]
pub use adl_graph::opencl;

/// The `ndarray` crate (0.17) that adl's arrays, batches and kernels use:
/// name your arrays' types through it, so that they are adl's.
pub use ndarray;

/// The `num-complex` crate (0.4), ndarray's complex numbers: the element
/// type of complex arrays, such as a radar's `complex64` `.npy` file read
/// as `Npy<num_complex::Complex<f32>, _>`.
pub use num_complex;

/// The engine (`adl-graph`): the [`Planner`](engine::Planner) that turns a
/// pipeline's [`Description`](graph::Description) into a checked and
/// scheduled petgraph [`Plan`](engine::Plan), the run-time
/// [`GraphBuilder`](engine::GraphBuilder), and DOT/SVG export. The plan a
/// loader runs is [`Loader::plan`](loader::Loader::plan).
pub mod engine {
    pub use adl_graph::petgraph;
    pub use adl_graph::{
        DeviceFacts, Flow, GraphBuilder, LoaderStage, NodeKind, ParallelBuilder, Plan, PlanError,
        PlanNode, PlanPath, Planner, Pool, Schedule, Settings, Sources, StagePlan, SvgError,
    };
}

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
/// (Built without the `opencl` feature: `unsafe(opencl = ...)` is an error.)
#[cfg(not(feature = "opencl"))]
pub use adl_macros::transform_without_opencl as transform;

/// What the expansions of adl's macros call and nothing else: not API, no
/// stability promise.
#[doc(hidden)]
pub use adl_core::__private;

/// The names most programs need, in one `use adl::prelude::*;`: the traits
/// whose methods a program calls, the everyday types, and the macros.
/// Everything else is named by its path (`adl::sync::Nearest`,
/// `adl::Window`, ...).
pub mod prelude {
    pub use adl_core::collate::DefaultCollate;
    pub use adl_core::pipeline::Stages;
    pub use adl_core::pipes::{DatasetExt, IterableDataset};
    pub use adl_core::{
        Collate, Dataset, Error, InMemory, OnError, Pipeline, Recording, Result, Sensor, SensorSet,
        Series, Timestamps, Trace, Transform,
    };
    pub use adl_graph::loader::Loader;
    #[cfg(feature = "opencl")]
    pub use adl_macros::transform;
    #[cfg(not(feature = "opencl"))]
    pub use adl_macros::transform_without_opencl as transform;
    pub use adl_macros::{Collate, SensorSet, pipeline};
}

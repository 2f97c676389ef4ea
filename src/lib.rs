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
//! use adl::{InMemory, pipes::DatasetExt};
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
//! One path per item, the crates' own. From `adl-core` (the specification
//! and the data model), at the root: the specification's traits
//! ([`Metadata`], [`Sensor`], [`Synchronization`], [`Trace`], [`Dataset`],
//! [`Transform`], [`Collate`](trait@Collate), [`Pipeline`]), the errors ([`Error`],
//! [`Result`], [`OnError`]), the sensors, traces and datasets, and the
//! macros; by what it is: [`sync`], [`transform`](mod@transform),
//! [`pipeline`](mod@pipeline), [`collate`], [`pipes`], [`sample`],
//! [`description`] (what a pipeline looks like), [`exec`] (what it runs
//! in), [`kernel`] (batch kernels), [`storage`] (the engine's side of a
//! dataset: origins, hints, reads ahead of a sample's `get`). [`graph`] is `adl-graph` (the planner, its plans, the
//! [`Loader`](graph::loader::Loader), OpenCL), [`files`] is `adl-files`
//! (sensors read from files, PX4 logs among them). [`prelude`] has what a
//! loader program needs. `adl::ndarray` is the `ndarray` adl's arrays are
//! from (0.17).
//!
//! The crates behind the facade, from the bottom: `adl-rules` (the
//! composition rules as data), `adl-exec` (how a pipeline runs: the
//! execution context, the accelerator trait, the kernel ABI, its CPU loops
//! and the buffer pool), `adl-core` (the specification and the data
//! model), `adl-ops` (the operations: batch kernels and image
//! transforms), `adl-graph` (the engine), `adl-files` (file-backed
//! sensors); `adl-lang` and `adl-macros` (the DSL) run in the compiler.

// Everything adl-core holds, where it holds it: the specification's traits,
// the errors and the data model (sensors, traces, datasets) at the root,
// and the rest by module (`sync`, `transform`, `pipeline`, `collate`,
// `pipes`, `sample`, `description`, `storage`, `spec`, `error`). A glob,
// so that the facade cannot drift from it; `exec`, `kernel`, `transform`
// and `__private`, below, name the other crates' items beside adl-core's
// (and shadow adl-core's hidden `exec`).
pub use adl_core::*;

/// The execution context: what a pipeline runs *in* (see
/// [`Context`](exec::Context)): joins of parallel branches, each node
/// observed, each node's random generator for the sample at hand, and the
/// services lent to nodes (the device for batch kernels, the pool of batch
/// memory); [`Sequential`](exec::Sequential), the calling thread's.
///
/// The execution crate's (`adl-exec`), with [`Tagged`](exec::Tagged), a
/// node that reports to the context, from `adl-core`.
pub mod exec {
    pub use adl_core::pipeline::Tagged;
    pub use adl_exec::rng;
    pub use adl_exec::{
        BufferPool, BufferStatistics, Buffers, CACHE_LINE, Context, NodeId, Recycle, Recycler,
        SampleRng, Sequential, Services, WithServices, join_each, mix64, panic_message, prefetch,
        prefetch_head, sensor_times, timed_sensor,
    };
}

pub use adl_ops::kernel;

/// Transforms and their composition (adl-core's, see
/// [`adl_core::transform`]), and the operations on images (`adl-ops`'
/// [`image`](adl_ops::image)): [`RandomResizedCrop`](transform::RandomResizedCrop),
/// [`RandomFlip`](transform::RandomFlip), [`resized_crop`](transform::resized_crop)
/// and [`resized_area`](transform::resized_area).
pub mod transform {
    pub use adl_core::transform::*;
    pub use adl_ops::image::*;
}

/// What the expansions of adl's macros call and nothing else (adl-core's
/// checks and witnesses, adl-ops' links between kernel nodes). Not part
/// of the API; no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use adl_core::__private::*;
    pub use adl_ops::__private::*;
}

/// The engine (`adl-graph`): the graph of a pipeline and what runs it. The
/// [`Planner`](graph::Planner) turns a pipeline's
/// [`Description`](description::Description) into a checked and scheduled
/// petgraph [`Plan`](graph::Plan) (DOT and SVG export); the
/// [`Loader`](graph::loader::Loader) runs a dataset and a pipeline by it
/// (workers, batches ahead, per-epoch shuffling, rank sharding, exact
/// resume, an error policy, per-node statistics); with the `opencl`
/// feature, [`opencl`](graph::opencl) runs batch kernels on OpenCL
/// devices.
pub use adl_graph as graph;

/// File-backed sensors (`adl-files`, the `files` feature): NumPy arrays
/// memory-mapped, timestamps from files, a sensor per folder, roverd's
/// format, PX4 flight logs (`files::px4`, the `px4` feature).
#[cfg(feature = "files")]
pub use adl_files as files;

/// The `ndarray` crate (0.17) that adl's arrays, batches and kernels use:
/// name your arrays' types through it, so that they are adl's.
pub use ndarray;

/// The `num-complex` crate (0.4), ndarray's complex numbers: the element
/// type of complex arrays, such as a radar's `complex64` `.npy` file read
/// as `Npy<num_complex::Complex<f32>, _>`.
pub use num_complex;

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
/// `#[transform]`: declare a typed, named pipeline node (see [`description::Node`]).
#[cfg(feature = "opencl")]
pub use adl_macros::transform;
/// `#[transform]`: declare a typed, named pipeline node (see [`description::Node`]).
/// (Built without the `opencl` feature: `unsafe(opencl = ...)` is an error.)
#[cfg(not(feature = "opencl"))]
pub use adl_macros::transform_without_opencl as transform;

/// What a loader program needs, in one `use adl::prelude::*;`: the traits
/// whose methods it calls, the sensors and the trace it builds its dataset
/// from, the pipeline's stages, the loader, the errors, and the macros.
/// Everything else is named by its path (`adl::sync::Nearest`,
/// `adl::pipes::DatasetExt`, `adl::InMemory`, ...).
pub mod prelude {
    pub use adl_core::collate::DefaultCollate;
    pub use adl_core::pipeline::Stages;
    pub use adl_core::{
        Collate, Dataset, Error, OnError, Pipeline, Recording, Result, Sensor, SensorSet, Series,
        Timestamps, Trace, Transform,
    };
    pub use adl_graph::loader::Loader;
    #[cfg(feature = "opencl")]
    pub use adl_macros::transform;
    #[cfg(not(feature = "opencl"))]
    pub use adl_macros::transform_without_opencl as transform;
    pub use adl_macros::{Collate, SensorSet, pipeline};
}

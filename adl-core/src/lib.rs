//! # adl-core
//!
//! The [Abstract Dataloader](https://wiselabcmu.github.io/abstract-dataloader/)
//! specification as Rust traits, and the generic components that implement
//! it. This crate is pure data logic: synchronous, no threads, no I/O beyond
//! what a sensor's loader does (file formats are `adl-files`'). The
//! composition rules it checks are `adl-rules`'; the engine
//! (the planner whose plan is the schedule, the loader, the OpenCL
//! executor) is `adl-graph`; the macros are `adl-macros`; users depend on
//! the facade `adl`.
//!
//! - [`spec`]: the eight traits of the specification — [`Metadata`],
//!   [`Sensor`], [`Synchronization`], [`Trace`], [`Dataset`], [`Transform`],
//!   [`Collate`], [`Pipeline`] — with their composition rules.
//! - [`transform`] and [`pipeline`]: composition — `a.then(b)`, named and
//!   fallible steps, three-stage pipelines ([`Stages`](pipeline::Stages)),
//!   pre/post-composition, parallel and sequence pipelines.
//! - Sensors: [`Timestamps`] (validated metadata), [`Series`] (a sensor made
//!   of timestamps and a loader), [`Window`] (past and future samples around
//!   each one), [`SensorDataset`].
//! - [`sync`]: the synchronization policies [`Empty`](sync::Empty),
//!   [`Next`](sync::Next), [`Nearest`](sync::Nearest),
//!   [`Decimate`](sync::Decimate), and their [`Margin`](sync::Margin)s.
//! - Traces and datasets: [`Recording`] (a trace of named sensors,
//!   synchronized once), [`Record`] (one synchronized sample), [`Concat`]
//!   (traces concatenated into a dataset).
//! - [`sample`]: low-discrepancy sampling ([`sample_ld`](sample::sample_ld))
//!   and [`Sampled`](sample::Sampled) datasets.
//! - [`collate`]: PyTorch `default_collate` semantics and the strategies of
//!   `#[derive(Collate)]`; [`pipes`]: the functional, lazy dataset API.
//! - [`description`]: what a pipeline looks like (its [`Description`](description::Description)),
//!   and the marker traits of the composition rules.
//!
//! What runs is not here:
//!
//! - Below this crate, `adl-exec` holds how a pipeline runs: the
//!   execution context that every stage method's `_in` twin takes
//!   ([`adl_exec::Context`]: parallel branches, per-node observation,
//!   per-sample random generators, the services lent to nodes), the
//!   accelerator trait, the kernel ABI and its CPU loops, the buffer pool
//!   and recycling. It names nothing of this crate. (This crate's
//!   [`Tagged`](pipeline::Tagged), a node that reports to the context,
//!   stands above the specification, in [`pipeline`].)
//! - Beside it, `adl-ops` holds the operations: the batch kernels (a
//!   transform that is a kernel, adl's built-in ones, their fusion) and
//!   the image transforms.
//!
//! The facade `adl` names them where a user looks: the context as
//! `adl::exec`, the kernels as `adl::kernel`, the image transforms in
//! `adl::transform` beside this crate's.
//!
//! ```
//! use adl::{Concat, Dataset, Recording, Series, Timestamps, sync::Nearest};
//!
//! let sensor = |name: &str, times: Vec<f64>| -> adl::Result<_> {
//!     let ts = Timestamps::new(name, times)?;
//!     Ok(Series::new(name, ts, |i| Ok(i)))
//! };
//! let trace = Recording::new(
//!     "flight-1",
//!     vec![
//!         sensor("imu", vec![0.0, 0.01, 0.02, 0.03])?,
//!         sensor("gps", vec![0.0, 0.02])?,
//!     ],
//!     &Nearest::new("gps", 0.005)?,
//! )?;
//! let dataset = Concat::new(vec![trace])?;
//! let sample = dataset.get(1)?;
//! assert_eq!((sample["imu"], sample["gps"]), (2, 1));
//! # Ok::<(), adl::Error>(())
//! ```

pub mod collate;
mod concat;
pub mod description;
pub mod error;
/// The execution crate (`adl-exec`) under the name the expansions of adl's
/// derives write (`#[collate(crate = "adl_core")]` inside adl's own crates
/// names `adl_core::exec::Context`, `adl_core::exec::Recycle`, ...). Users
/// name it `adl::exec`.
#[doc(hidden)]
pub use adl_exec as exec;

mod fetched;
mod in_memory;
mod index_range;
mod indices;
pub mod interpolate;
mod on_error;
mod origin;
pub mod pipeline;
pub mod pipes;
pub mod progress;
mod record;
mod recording;
pub mod sample;
mod sensor;
mod sensor_set;
pub mod spec;
pub mod storage;
pub mod sync;
mod timestamps;
mod traces;
pub mod transform;

/// What the expansions of adl's macros (`pipeline!`, `#[derive(Collate)]`,
/// `#[derive(Recycle)]`) call and nothing else: compile-time checks, type
/// witnesses and autoref dispatch. Not part of the API; no stability
/// promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::description::assert::{
        assert_batch_feeds, assert_batch_node, assert_collate_after, assert_feeds,
        assert_sample_feeds, assert_sample_node, assert_takes_field,
    };
    pub use crate::description::node::info_of;
    pub use crate::description::tree::checker_step;
    pub use crate::pipeline::witness::{Witness, assert_gives, collate_node};
    pub use crate::sensor_set::{any_sensor, check_rows, fetched_parts};
    pub use crate::sync::picture::escape as svg_escape;
    pub use adl_exec::{RecycleField, RecycleKnown, RecycleOther};
}

/// How adl was compiled: `"release"` (optimised) or `"debug"` (Rust's
/// debug assertions on, as `cargo xtask test` builds it), for the
/// benchmarks to say what they measured (`adl.BUILD` in Python, each
/// `adl-bench` row's `"build"`).
pub const BUILD: &str = if cfg!(debug_assertions) {
    "debug"
} else {
    "release"
};

pub use concat::Concat;
pub use error::{BoxError, Error, Result};
pub use in_memory::InMemory;
pub use index_range::IndexRange;
pub use indices::Indices;
pub use on_error::OnError;
pub use origin::{Origin, SensorOrigin};
pub use record::Record;
pub use recording::Recording;
pub use sensor::{
    BoxedSensor, Gaps, Interpolated, InterpolatedFrom, Mapped, SensorDataset, Series, TryMapped,
    Window, WindowMetadata,
};
pub use sensor_set::{AnySensor, AsAnySensor, SensorSet};
pub use spec::{
    Collate, Dataset, Metadata, Pipeline, Sensor, SensorBatches, SensorStream, Synchronization,
    Trace, Transform,
};
pub use timestamps::Timestamps;
pub use traces::TraceReport;

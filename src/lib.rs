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
//! The crates behind the facade: `adl-core` (the specification and its
//! generic components), `adl-macros` (the DSL), `adl-graph` (the engine).

pub use adl_core::*;

/// `#[derive(Collate)]`: see [`collate`].
pub use adl_macros::Collate;

/// The names most programs need, in one `use adl::prelude::*;`.
pub mod prelude {
    pub use adl_core::collate::{Collatable, DefaultCollate};
    pub use adl_core::pipeline::{
        IdentityCollate, ParallelPipelines, SequencePipeline, Stages, collate_fn,
    };
    pub use adl_core::pipes::{DatasetExt, IterableDataset, IterableExt, OnError};
    pub use adl_core::sync::{Bound, Decimate, Empty, Margin, Margins, Nearest, Next};
    pub use adl_core::transform::{Identity, ParallelTransforms, TransformExt, fallible, named};
    pub use adl_core::{
        Collate, Concat, Dataset, Error, InMemory, Indices, Metadata, Pipeline, Record, Recording,
        Result, Sensor, Series, Synchronization, Timestamps, Trace, Transform,
    };
}

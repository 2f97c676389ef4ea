//! The Abstract Dataloader specification as Rust traits.
//!
//! Data is a tree, **Dataset → Trace → Sensor**; samples flow through a
//! **Pipeline**: `sample` (per sample) → `collate` (exactly once) → `batch`.
//!
//! | trait | Python protocol | role |
//! |---|---|---|
//! | [`Metadata`] | `spec.Metadata` | a sensor's in-memory book-keeping: its timestamps |
//! | [`Sensor`] | `spec.Sensor` | one modality of one recording, read by its own index |
//! | [`Synchronization`] | `spec.Synchronization` | timestamps of every sensor → one index array per sensor |
//! | [`Trace`] | `spec.Trace` | one recording: synchronized multimodal samples, sensors by name |
//! | [`Dataset`] | `spec.Dataset` | random access to samples; traces concatenated |
//! | [`Transform`] | `spec.Transform` | any `In → Out` step; composes sequentially |
//! | [`Collate`] | `spec.Collate` | `Vec<T> → Batch`; composes only in parallel |
//! | [`Pipeline`] | `spec.Pipeline` | sample → collate → batch |
//!
//! Type parameters of the Python protocols become associated types here, so
//! the compiler checks what Python's type checkers only suggest.

mod collate;
mod dataset;
mod metadata;
mod pipeline;
mod sensor;
mod synchronization;
mod trace;
mod transform;

pub use collate::Collate;
pub use dataset::Dataset;
pub use metadata::Metadata;
pub use pipeline::Pipeline;
pub use sensor::{Sensor, SensorBatches, SensorStream};
pub use synchronization::Synchronization;
pub use trace::Trace;
pub use transform::Transform;

//! The execution context: what a pipeline runs *in*.
//!
//! Every stage method of a pipeline has a twin that takes a
//! [`&dyn Context`](Context): [`Transform::apply_in`](crate::Transform::apply_in),
//! [`Collate::collate_in`](crate::Collate::collate_in) and
//! [`Pipeline::sample_in`](crate::Pipeline::sample_in) /
//! [`collate_in`](crate::Pipeline::collate_in) /
//! [`batch_in`](crate::Pipeline::batch_in). Composite pipelines pass the
//! context down to their parts, so the context can
//!
//! - run parallel branches at once ([`join`](Context::join_dyn): the
//!   branches of a tuple, [`Branch`](crate::pipeline::Branch) list or
//!   [`ParallelPipelines`](crate::pipeline::ParallelPipelines));
//! - observe each node ([`enter`](Context::enter) / [`leave`](Context::leave)
//!   around every [`Tagged`] node: `pipeline!` tags each node with its
//!   [`NodeId`], its position in the pipeline's
//!   [`Description`](crate::description::Description));
//! - hand a node its own random generator for the sample at hand: a
//!   [`SampleRng`] of (seed, epoch, sample index, node), the same whatever
//!   thread or worker count runs it ([`rng`](Context::rng); a
//!   `#[transform]` node asks for it with an `rng: &mut SampleRng`
//!   parameter, a closure with [`random`](crate::transform::random));
//! - lend the nodes its execution services, all through one method,
//!   [`services`](Context::services): the device that runs batch kernels
//!   (an [`Accelerator`](crate::kernel::Accelerator)) and the pool that
//!   batch memory comes from ([`Buffers`]).
//!
//! Batch memory is recycled through the context: a loader keeps a
//! [`BufferPool`] and lends it to its jobs, the collate builders and batch
//! kernels take their memory from it ([`Buffers::take`]), and a batch the
//! consumer drops gives its memory back ([`Recycle`]). Outside a loader,
//! [`WithServices`] gives a context a pool or a device of its own. (The
//! device's types, defined beside the context, are named through
//! [`kernel`](crate::kernel).)
//!
//! [`Sequential`] (this crate) runs everything on the calling thread and
//! records nothing: the plain methods (`apply`, `sample`, ...) of the
//! composite pipelines are their `_in` twins run in it. The engine
//! (`adl-graph`) has a rayon context that joins branches on a thread pool
//! and keeps per-node statistics, used by its `Loader`.
//!
//! # Design notes
//!
//! The context is a trait object, not a type parameter: a `&dyn Context`
//! costs one indirect call per node and per join, no allocation and no
//! lock, and keeps `Transform` and `Pipeline` object-safe (boxed pipelines
//! pass it through too). Parallelism needs `Send` data; only the parallel
//! compositions (tuples, branches) ask for it, in their own impls, so a
//! plain `Stages` pipeline of non-`Send` values still runs sequentially.

pub(crate) mod accelerator;
mod context;
mod sample_rng;
mod sensor_times;
mod sequential;
mod services;
mod tagged;
mod with_services;

pub use crate::rng::mix64;
pub use adl_kernel::{BufferPool, BufferStatistics, Buffers, NodeId, Recycle, Recycler, prefetch};
pub(crate) use context::filled;
pub use context::{Context, join_each, panic_message};
pub use sample_rng::SampleRng;
pub use sensor_times::{sensor_times, timed_sensor};
pub use sequential::Sequential;
pub use services::Services;
pub use tagged::Tagged;
pub use with_services::WithServices;

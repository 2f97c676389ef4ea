//! # adl-exec
//!
//! How a pipeline runs: the execution context it runs in, the devices
//! (accelerators) that run its batch kernels, the kernel ABI of those
//! kernels and the CPU loops that run them, and the buffer pool that
//! batches are built in. Everything below adl's specification and data
//! model (`adl-core`) that is about running, not about data.
//!
//! - The execution context: [`Context`] (what every stage method's `_in`
//!   twin takes: joins of parallel branches, each node observed, each
//!   node's [`SampleRng`], the [`Services`] lent to nodes), [`join_each`],
//!   [`Sequential`] (the calling thread's), [`WithServices`] (a context
//!   given a pool or a device), [`sensor_times`] / [`timed_sensor`] (each
//!   sensor's share of a read), and the seeded generators behind every
//!   order ([`rng`], [`mix64`]).
//! - Devices: [`Accelerator`], the trait a device that runs batch kernels
//!   implements (the engine's OpenCL executor does).
//! - The kernel ABI: a [`Launch`] (one kernel of a batch node, as OpenCL C
//!   with its element types: made by `unsafe` constructors, since a device
//!   runs it unchecked) with its [`Op`] and [`KernelArg`]s, and the
//!   [`NodeId`] of the node it belongs to.
//! - Kernel data: [`Element`] and [`ElementType`] (the numbers a kernel
//!   reads and writes), byte views of them ([`typed`], [`typed_mut`],
//!   [`same_len`]), a batch as host bytes ([`HostBatch`], [`HostData`])
//!   and the [`Output`] a run appends to.
//! - CPU kernels: [`BlockKernel`] (one node's work on one block of a batch),
//!   [`ScatteredBlocks`] (rows read where they lie), [`run_blocked`] (a
//!   chain run block by block), [`Lane`]s and the wide-vector loops
//!   ([`Loop`], [`widest`]: compiled once per vector unit, picked at run
//!   time).
//! - Batch memory: [`BufferPool`] (recycled buffers), [`Buffers`] (the
//!   pool a context hands its nodes), [`Recycle`] and [`Recycler`] (how a
//!   batch gives its memory back), and [`prefetch`].
//! - [`KernelError`]: what a batch's bytes that do not fit a kernel give.
//!
//! # Why a crate of its own
//!
//! Nothing here knows sensors, datasets, transforms or pipelines, and the
//! specification needs it (every stage method has a twin that takes a
//! [`Context`]; collation builds its batches in a context's pool): so it
//! stands below `adl-core`, which depends on it and names its items where
//! they belong in adl's API (the kernel types and the [`Accelerator`]
//! through `adl::kernel`, the context and the memory through
//! `adl::exec`). What does know them stays above: `Tagged` (a node that
//! reports to the context) is adl-core's, and the kernel nodes (a
//! transform that is a kernel, and their fusion) are `adl-ops`'. As a crate, that
//! layering is the compiler's to keep: nothing here can name the crates
//! above, and it depends on no adl crate but `adl-rules` (the fusion
//! class of a launch), which depends on nothing (`tests/suite/architecture.rs`
//! checks both with `cargo tree`).

mod accelerator;
mod blocks;
mod buffers;
mod bytes;
mod context;
mod element;
mod error;
mod geometry;
mod host;
mod lanes;
mod launch;
mod node_id;
mod output;
mod pool;
mod prefetch;
mod raw_buffer;
mod recycle;
mod recycler;
pub mod rng;
mod run_blocked;
mod sample_rng;
mod scattered;
mod sensor_times;
mod sequential;
mod services;
mod simd;
mod with_services;

pub use accelerator::Accelerator;
pub use blocks::{BlockInfo, BlockKernel, rows_one_by_one};
pub use buffers::Buffers;
pub use bytes::{same_len, typed, typed_mut};
pub use context::{Context, join_each, panic_message};
pub use element::{Element, ElementType};
pub use error::{KernelError, Result};
pub use geometry::{Geometry, shape_variables};
pub use host::{HostBatch, HostData};
pub use lanes::{Lane, LanePair, Same, lane_rows, not_whole_rows, run_lane};
pub use launch::{KernelArg, Launch, Op, cl_f32, cl_f32_by_channel};
pub use node_id::NodeId;
pub use output::{Output, filled_vec};
pub use pool::{BufferPool, BufferStatistics};
pub use prefetch::{CACHE_LINE, prefetch, prefetch_head};
pub use recycle::Recycle;
/// What `#[derive(Recycle)]`'s expansion calls (through
/// `adl::__private`): a field recycled where its type can be, dropped
/// otherwise. Not part of the API.
#[doc(hidden)]
pub use recycle::{RecycleField, RecycleKnown, RecycleOther};
pub use recycler::Recycler;
pub use rng::mix64;
pub use run_blocked::run_blocked;
pub use sample_rng::SampleRng;
pub use scattered::ScatteredBlocks;
pub use sensor_times::{sensor_times, timed_sensor};
pub use sequential::Sequential;
pub use services::Services;
pub use simd::{Loop, widest};
pub use with_services::WithServices;

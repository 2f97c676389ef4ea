//! The plumbing below the specification: the byte-level machinery that the
//! kernels and collations run on, and the memory they run in.
//!
//! - Kernel data: [`Element`] and [`ElementType`] (the numbers a kernel
//!   reads and writes), byte views of them (`bytes`), a batch as host bytes
//!   ([`HostBatch`], [`HostData`]) and the [`Output`] a run appends to.
//! - CPU kernels: [`BlockKernel`] (one node's work on one block of a batch),
//!   [`ScatteredBlocks`] (rows read where they lie), `run_blocked` (a chain
//!   run block by block), [`Lane`]s and the wide-vector loops (`simd`:
//!   compiled once per vector unit, picked at run time).
//! - Batch memory: [`BufferPool`] (recycled buffers), [`Buffers`] (the
//!   pool a context hands its nodes), [`Recycle`] and [`Recycler`] (how a
//!   batch gives its memory back), and [`prefetch`].
//!
//! It stands below everything else of the crate, in the spirit of rayon's
//! `iter::plumbing`: it names no module of the crate but `error` (a test,
//! `tests/architecture.rs`, reads these files to keep it so), so that no
//! dependency runs in a circle through it and it could become a crate of
//! its own. Its public items are reached where they belong in the API:
//! the kernel types through `adl::kernel`, the memory through `adl::exec`.

mod blocks;
mod buffers;
mod bytes;
mod element;
mod host;
mod lanes;
mod output;
mod pool;
mod prefetch;
mod raw_buffer;
mod recycle;
mod recycler;
mod run_blocked;
mod scattered;
mod simd;

pub(crate) use blocks::rows_one_by_one;
pub use blocks::{BlockInfo, BlockKernel};
pub use buffers::Buffers;
pub(crate) use bytes::{same_len, typed, typed_mut};
pub use element::{Element, ElementType};
pub use host::{HostBatch, HostData};
pub use lanes::{Lane, LanePair, Same};
pub(crate) use lanes::{lane_rows, not_whole_rows, run_lane};
pub use output::Output;
pub(crate) use output::filled_vec;
pub use pool::{BufferPool, BufferStatistics, POOLED_BYTES};
pub use prefetch::prefetch;
pub use recycle::{Recycle, RecycleField, RecycleKnown, RecycleOther};
pub use recycler::Recycler;
pub(crate) use run_blocked::run_blocked;
pub use scattered::ScatteredBlocks;
pub(crate) use simd::{Loop, widest};

//! Batch kernels: batch nodes that run on an accelerator (an OpenCL device
//! through the engine's `adl::graph::opencl`) and, where there is none, as their
//! Rust body on the CPU, with the same bits.
//!
//! A kernel node is a batch node that describes its work as [`Launch`]es
//! (and, for the CPU, a Rust body that gives the same bits); it runs on
//! the context's [`Accelerator`] when there is one. Nodes come from
//!
//! - `#[transform(batch, unsafe(opencl = "..."))]`: a kernel of your own,
//!   in OpenCL C, with the ABI below; the function's body is the CPU
//!   reference;
//! - the [built-in kernels](#built-in-kernels).
//!
//! # Safety
//!
//! OpenCL C is not checked by anything: on a CPU device (POCL) a kernel
//! runs in this process's memory, and one that reads or writes outside
//! the buffers it is given is undefined behaviour here, whatever the
//! Rust around it. So a kernel of your own is an `unsafe` opt-in, as
//! Rust's own unchecked attributes are: `unsafe(opencl = ...)` is your
//! promise that the kernel keeps to the ABI below (it reads and writes
//! only `input[0..n]`, `output[0..n]`, `flags` and its own arguments
//! within their lengths, and it ends). Say why next to it, in a
//! `// SAFETY:` comment. A plain `opencl = ...` is an error (rule
//! `kernel_without_unsafe`). Below the macro, every [`Launch`] is made by
//! an `unsafe` constructor with the same promise, so a safe
//! [`KernelNode`] implementation can only
//! hand out launches someone vouched for; the built-in kernels' are
//! expressions adl writes itself.
//!
//! # The kernel ABI
//!
//! A node's input is an ndarray array of an [`Element`] type (any number
//! of axes, batch axis first), or such an array with one `bool` flag per
//! sample (`(Array<T, D>, Array1<bool>)`); its output is an array of an
//! `Element` type with the input's shape (elements in row-major order).
//! The kernel runs once per element, on a one-dimensional range of `n`
//! work items (`i = get_global_id(0)`, the flat row-major index), with
//! these arguments in this order:
//!
//! ```c
//! __kernel void NAME(__global const IN* input,   // the batch, row-major
//!                    __global OUT* output,        // the result, as many elements
//!                    __global const uchar* flags, // one 0/1 per sample (a single 0 if none)
//!                    const ulong n,               // elements in the batch
//!                    const ulong per_sample,      // elements per sample
//!                    const ulong channels,        // length of axis 1 (1 for fewer axes)
//!                    const ulong inner,           // product of axes 2.. (elements per channel)
//!                    const ulong last,            // length of the last axis (1 for fewer axes)
//!                    /* the node's own arguments, from args(...) */)
//! ```
//!
//! `NAME` is the node's name (the function's, or `name = "..."`). The
//! node's own arguments come from `#[transform(batch, unsafe(opencl =
//! "..."), args(field, ...))]` on an impl block: each field becomes one argument
//! ([`KernelArg`]: a scalar, or an array as a `__global const` pointer).
//! Every program is built with `-cl-fp32-correctly-rounded-divide-sqrt`
//! and starts with `#pragma OPENCL FP_CONTRACT OFF`, so `/` and `sqrt` are
//! correctly rounded and `a * b + c` is never fused: the kernel gives the
//! bits of the Rust body (never build with `-cl-fast-relaxed-math`).
//!
//! # Built-in kernels
//!
//! [`U8ToF32`] (bytes to floats with a scale), [`Normalize`] (per
//! channel), [`FlipByFlag`] (horizontal flip of the samples whose flag is
//! set), [`Clamp`], [`Affine`]. They are elementwise, so consecutive ones
//! fuse into one kernel: one read and one write of the batch.
//!
//! # Fusion
//!
//! `pipeline!` links every run of consecutive kernel nodes of a batch
//! stage into one chain (the types it builds are in the hidden
//! `adl::__private`: they are what the expansion writes). Which nodes of a
//! chain run as one is [`groups`]'s to say, the one rule of fusion that the
//! plan (`adl::graph::Plan::fused_groups`) and both executors follow, by
//! each node's [`Fusion`] class:
//!
//! - on a device, the chain is one program (the data stays on the device
//!   between its kernels), and each group compiles into one kernel: runs of
//!   elementwise nodes ([`Op::Map`], with an [`Op::Gather`] first);
//! - on the CPU, the chain's tail after its last kernel of its own runs as
//!   one loop, block by block (one channel plane of one sample at a time),
//!   so the batch is read once and written once with the steps between
//!   them in cache; every other node runs its Rust body.
//!
//! Consecutive [`Lanewise`] nodes (the built-in kernels: a flip only
//! reverses the rows it reads) go further on the CPU: `pipeline!` links
//! them into [`FusedLanes`], one loop in which each element goes through
//! every step in registers, as a hand-written C loop would (W2's flip,
//! conversion and normalisation: 1.6x faster than three passes over each
//! block). Fusion can be switched off (`ADL_FUSION=0`, or the loader's
//! `fusion(false)`): every kernel then runs alone, on either side.

//! # Rows read where they lie
//!
//! A kernel node also takes [`Rows`](adl_core::collate::Rows) (what a
//! [`Gather`](adl_core::collate::Gather) of an
//! [`InPlace`](adl_core::collate::InPlace) table gives, with or without an
//! `Array1<bool>` of flags): the samples' rows still in their table. On the
//! CPU the fused loop reads each block straight from the table (the next
//! block prefetched), so the rows are never copied into a batch of their
//! own; where a sample is one block (`[batch, features]` rows, say), a
//! run of samples with the same flag goes to the kernel at once
//! ([`BlockKernel::run_rows`] over [`ScatteredBlocks`]), so that a
//! [`Lanewise`] kernel looks its constants up once a run, not once a row.
//! On a device the rows are gathered once, into the pinned upload buffer
//! ([`HostData::Rows`]).

mod builtin;
mod data;
pub(crate) mod lanes;
pub(crate) mod link;
pub(crate) mod node;
mod spare;
mod tagged;

pub use adl_exec::Accelerator;
pub use adl_exec::{
    BlockInfo, BlockKernel, Element, ElementType, HostBatch, HostData, KernelArg, KernelError,
    Lane, LanePair, Launch, Op, Output, Same, ScatteredBlocks, cl_f32, cl_f32_by_channel,
    shape_variables,
};
pub use adl_rules::fusion::{Fusion, Target, groups};
pub use builtin::{Affine, Clamp, FlipByFlag, Normalize, U8ToF32};
pub use data::{KernelInput, KernelOutput};
pub use lanes::{FusedLanes, Lanewise};
pub(crate) use node::{KernelNode, Member, run};

//! # adl-ops
//!
//! adl's operations on data, above the specification (`adl-core`) whose
//! traits they implement and beside the file formats (`adl-files`):
//!
//! - [`kernel`]: batch kernels, transforms of a batch that run as an
//!   OpenCL kernel on a device and as their Rust body elsewhere, with the
//!   same bits: the [`KernelNode`](kernel::KernelNode)s that
//!   `#[transform(batch, unsafe(opencl = ...))]` writes, adl's built-in
//!   ones ([`U8ToF32`](kernel::U8ToF32), [`Normalize`](kernel::Normalize),
//!   [`FlipByFlag`](kernel::FlipByFlag), [`Clamp`](kernel::Clamp),
//!   [`Affine`](kernel::Affine)), and their fusion into one kernel or one
//!   loop. The kernel ABI they run by, the CPU loops and the accelerator
//!   trait are the execution crate's (`adl-exec`), named here too.
//! - [`image`]: the image transforms ([`RandomResizedCrop`](image::RandomResizedCrop),
//!   [`RandomFlip`](image::RandomFlip), the resize they share).
//!
//! Users name them through the facade: `adl::kernel` is [`kernel`], and
//! the image transforms are in `adl::transform` beside adl-core's
//! compositions.
//!
//! # Where an operation goes
//!
//! A new batch kernel of adl's own is a file in `kernel/builtin/` (its
//! `Lane` if it is elementwise, so that it fuses into one loop); a new
//! sample-stage operation on images is a file in `image/`. A program's
//! own operation needs no change here: `#[transform]` writes it.

pub mod image;
pub mod kernel;

/// What the expansion of `pipeline!` calls to link consecutive kernel
/// nodes (through `adl::__private`) and nothing else. Not part of the API;
/// no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::kernel::link::{
        ChainThem, End, FuseLanes, FuseThem, Link, LinkKernels, LinkLanes, LinkOther, Rest,
    };
    pub use crate::kernel::node::{Fused, KernelNode, Member, run as run_kernel};
}

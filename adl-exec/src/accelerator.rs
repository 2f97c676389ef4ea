//! [`Accelerator`]: a device that runs the launches of batch nodes.

use std::ops::Range;

use crate::{ElementType, HostBatch, Launch, Output};

use crate::Result;

/// A device that runs batch kernels: the engine's OpenCL executor
/// (`adl::graph::opencl::OpenCl`) implements it. A context hands it to the nodes
/// (one of its [`services`](crate::Context::services)); without
/// one, kernel nodes run their Rust bodies.
pub trait Accelerator: Send + Sync {
    /// The device, in words (for errors and notices).
    fn name(&self) -> &str;

    /// Run `launches` in order on `input`, appending the result's elements
    /// (as many as the input's, of the last launch's output type) to
    /// `output`. Data between launches stays on the device. `groups`
    /// (index ranges of `launches`, covering them in order) are the
    /// launches that run as one kernel, as
    /// [`groups`](adl_rules::fusion::groups) decided for this device: a group of one
    /// is a kernel of its own.
    ///
    /// `Ok(false)` when this device cannot run them (say, `double` without
    /// `cl_khr_fp64`): the caller runs the nodes' Rust bodies instead.
    fn run(
        &self,
        launches: &[Launch],
        groups: &[Range<usize>],
        input: HostBatch<'_>,
        output: &mut Output<'_>,
    ) -> Result<bool>;

    /// Whether it runs kernels on elements of `element` (a device without
    /// `cl_khr_fp64` has no `double`): what a plan asks before it puts a
    /// kernel node there. Default: every element type.
    fn supports(&self, element: ElementType) -> bool {
        let _ = element;
        true
    }
}

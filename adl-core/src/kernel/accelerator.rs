//! [`Accelerator`]: a device that runs the launches of batch nodes.

use super::data::{HostBatch, Output};
use super::launch::Launch;
use crate::Result;

/// A device that runs batch kernels: the engine's OpenCL executor
/// (`adl::opencl::OpenCl`) implements it. A context hands it to the nodes
/// ([`Context::accelerator`](crate::exec::Context::accelerator)); without
/// one, kernel nodes run their Rust bodies.
pub trait Accelerator: Send + Sync {
    /// The device, in words (for errors and notices).
    fn name(&self) -> &str;

    /// Run `launches` in order on `input`, appending the result's elements
    /// (as many as the input's, of the last launch's output type) to
    /// `output`. Data between launches stays on the device.
    ///
    /// `Ok(false)` when this device cannot run them (say, `double` without
    /// `cl_khr_fp64`): the caller runs the nodes' Rust bodies instead.
    fn run(
        &self,
        launches: &[Launch],
        input: HostBatch<'_>,
        output: &mut Output<'_>,
    ) -> Result<bool>;
}

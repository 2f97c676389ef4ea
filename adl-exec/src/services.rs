//! [`Services`]: what a context lends the nodes that run in it, through
//! one channel.

use crate::Buffers;

use crate::Accelerator;

/// The execution services of a context, all handed out by one method,
/// [`Context::services`](super::Context::services): the device that runs
/// batch kernels, and the pool that batch memory comes from. A context
/// lends them for as long as it is borrowed; nodes reach them as
/// `cx.accelerator()` and `cx.buffers()`.
///
/// New services are added here, not as methods of `Context`, so that a
/// context that forwards to another (a node's view of it, say) forwards
/// them all with one method.
///
/// ```
/// use std::sync::Arc;
/// use adl::exec::{BufferPool, Buffers, Services};
///
/// let pool = Arc::new(BufferPool::new(2));
/// let services = Services::new().with_buffers(Buffers::from_pool(&pool));
/// assert!(services.accelerator().is_none());
/// assert!(services.buffers().pool().is_some());
/// ```
#[derive(Clone, Copy, Default)]
pub struct Services<'a> {
    accelerator: Option<&'a dyn Accelerator>,
    buffers: Buffers<'a>,
}

impl std::fmt::Debug for Services<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("accelerator", &self.accelerator.map(|a| a.name()))
            .field("buffers", &self.buffers)
            .finish()
    }
}

impl<'a> Services<'a> {
    /// None: kernels run their Rust bodies, and memory is allocated fresh.
    pub fn new() -> Self {
        Self::default()
    }

    /// These, with `accelerator` for the batch kernels.
    pub fn with_accelerator(self, accelerator: &'a dyn Accelerator) -> Self {
        Services {
            accelerator: Some(accelerator),
            ..self
        }
    }

    /// These, with batch memory from `buffers`.
    pub fn with_buffers(self, buffers: Buffers<'a>) -> Self {
        Services { buffers, ..self }
    }

    /// The device that runs batch kernels, if any: kernel nodes
    /// (`adl::kernel`) run on it, and as their Rust bodies
    /// without one.
    pub fn accelerator(self) -> Option<&'a dyn Accelerator> {
        self.accelerator
    }

    /// Where batch memory comes from: the collate builders and the batch
    /// kernels take it here, and give back what they consumed.
    pub fn buffers(self) -> Buffers<'a> {
        self.buffers
    }
}

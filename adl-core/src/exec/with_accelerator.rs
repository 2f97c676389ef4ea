use std::time::Instant;

use adl_rules::Device;

use super::accelerator::Accelerator;
use super::{Context, NodeId, SampleRng, Services};

/// A context with a device for batch kernels: everything else (its other
/// services too) as in `cx`.
///
/// ```
/// use adl::exec::{Context, Sequential, WithAccelerator};
/// use adl::kernel::{Accelerator, HostBatch, Launch, Output};
/// struct Nothing;
/// impl Accelerator for Nothing {
///     fn name(&self) -> &str { "nothing" }
///     fn run(&self, _: &[Launch], _: &[std::ops::Range<usize>], _: HostBatch<'_>, _: &mut Output<'_>) -> adl::Result<bool> { Ok(false) }
/// }
/// let device = Nothing; // in practice, adl::opencl::OpenCl
/// let sequential = Sequential::new();
/// let cx = WithAccelerator::new(&sequential, &device);
/// assert_eq!(cx.services().accelerator().map(|a| a.name()), Some("nothing"));
/// let cx: &dyn Context = &cx;
/// assert_eq!(cx.accelerator().map(|a| a.name()), Some("nothing"));
/// ```
#[derive(Clone, Copy)]
pub struct WithAccelerator<'a> {
    cx: &'a dyn Context,
    accelerator: &'a dyn Accelerator,
}

impl<'a> WithAccelerator<'a> {
    /// `cx`, with `accelerator` for the kernels.
    pub fn new(cx: &'a dyn Context, accelerator: &'a dyn Accelerator) -> Self {
        WithAccelerator { cx, accelerator }
    }
}

impl std::fmt::Debug for WithAccelerator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithAccelerator")
            .field("accelerator", &self.accelerator.name())
            .finish()
    }
}

impl Context for WithAccelerator<'_> {
    fn join_dyn(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        self.cx.join_dyn(a, b)
    }

    fn enter(&self, node: NodeId) -> Option<Instant> {
        self.cx.enter(node)
    }

    fn leave(&self, node: NodeId, entered: Option<Instant>) {
        self.cx.leave(node, entered)
    }

    fn rng(&self, node: NodeId) -> SampleRng {
        self.cx.rng(node)
    }

    fn sample_index(&self) -> Option<usize> {
        self.cx.sample_index()
    }

    fn services(&self) -> Services<'_> {
        self.cx.services().with_accelerator(self.accelerator)
    }

    fn node(&self) -> Option<NodeId> {
        self.cx.node()
    }

    fn fusion(&self) -> bool {
        self.cx.fusion()
    }

    fn ran(&self, group: &[NodeId], device: Device) {
        self.cx.ran(group, device)
    }
}

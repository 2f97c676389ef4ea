//! [`WithServices`]: a context with a device or a buffer pool of its own.

use std::sync::Arc;
use std::time::Instant;

use crate::{BufferPool, Buffers};
use adl_rules::Device;

use super::accelerator::Accelerator;
use super::{Context, NodeId, SampleRng, Services};

/// A context whose execution services are set here: a device for the
/// batch kernels ([`accelerator`](Self::accelerator)), a pool for batch
/// memory ([`buffers`](Self::buffers)); everything not set, and everything
/// else, as in `cx`. A loader's jobs have their loader's device and pool;
/// this gives them to pipelines run by hand (a benchmark of the batch
/// stage, a test).
///
/// ```
/// use std::sync::Arc;
/// use adl::collate::DefaultCollate;
/// use adl::exec::{BufferPool, Context, Sequential, WithServices};
/// use adl::kernel::{Accelerator, HostBatch, Launch, Output};
/// use adl::Collate;
/// use ndarray::Array1;
///
/// struct Nothing;
/// impl Accelerator for Nothing {
///     fn name(&self) -> &str { "nothing" }
///     fn run(&self, _: &[Launch], _: &[std::ops::Range<usize>], _: HostBatch<'_>, _: &mut Output<'_>) -> Result<bool, adl::kernel::KernelError> { Ok(false) }
/// }
/// let device = Nothing; // in practice, adl::graph::opencl::OpenCl
/// let pool = Arc::new(BufferPool::new(2));
/// let sequential = Sequential::new();
/// let cx = WithServices::new(&sequential).accelerator(&device).buffers(&pool);
/// assert_eq!(cx.services().accelerator().map(|a| a.name()), Some("nothing"));
///
/// let samples = || (0..8192).map(|i| i as f32).collect::<Vec<_>>();
/// let batch = DefaultCollate.collate_in(&cx, samples())?;
/// pool.recycle(batch); // the consumer is done with it
/// let again: Array1<f32> = DefaultCollate.collate_in(&cx, samples())?;
/// assert_eq!(pool.statistics().reused, 1);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct WithServices<'a> {
    cx: &'a dyn Context,
    accelerator: Option<&'a dyn Accelerator>,
    pool: Option<&'a Arc<BufferPool>>,
}

impl<'a> WithServices<'a> {
    /// `cx` as it is: its services until some are set.
    pub fn new(cx: &'a dyn Context) -> Self {
        WithServices {
            cx,
            accelerator: None,
            pool: None,
        }
    }

    /// With `accelerator` for the batch kernels.
    pub fn accelerator(self, accelerator: &'a dyn Accelerator) -> Self {
        WithServices {
            accelerator: Some(accelerator),
            ..self
        }
    }

    /// With batch memory from `pool`.
    pub fn buffers(self, pool: &'a Arc<BufferPool>) -> Self {
        WithServices {
            pool: Some(pool),
            ..self
        }
    }
}

impl std::fmt::Debug for WithServices<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithServices")
            .field("accelerator", &self.accelerator.map(|a| a.name()))
            .field("pool", &self.pool)
            .finish()
    }
}

impl Context for WithServices<'_> {
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
        let mut services = self.cx.services();
        if let Some(accelerator) = self.accelerator {
            services = services.with_accelerator(accelerator);
        }
        if let Some(pool) = self.pool {
            services = services.with_buffers(Buffers::from_pool(pool));
        }
        services
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

//! [`WithBuffers`]: a context whose batch memory comes from a pool.

use std::sync::Arc;
use std::time::Instant;

use adl_rules::Device;

use super::{Context, NodeId, SampleRng, Services};
use crate::plumbing::{BufferPool, Buffers};

/// A context whose batch memory comes from `pool`: everything else as in
/// `cx`. A loader's jobs have their loader's pool; this gives one to
/// pipelines run by hand (a benchmark of the batch stage, say).
///
/// ```
/// use std::sync::Arc;
/// use adl::collate::DefaultCollate;
/// use adl::exec::{BufferPool, Context, Sequential, WithBuffers};
/// use adl::Collate;
/// use ndarray::Array1;
///
/// let pool = Arc::new(BufferPool::new(2));
/// let sequential = Sequential::new();
/// let cx = WithBuffers::new(&sequential, &pool);
/// let samples = || (0..8192).map(|i| i as f32).collect::<Vec<_>>();
/// let batch = DefaultCollate.collate_in(&cx, samples())?;
/// pool.recycle(batch); // the consumer is done with it
/// let again: Array1<f32> = DefaultCollate.collate_in(&cx, samples())?;
/// assert_eq!(pool.statistics().reused, 1);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct WithBuffers<'a> {
    cx: &'a dyn Context,
    pool: &'a Arc<BufferPool>,
}

impl<'a> WithBuffers<'a> {
    /// `cx`, with batch memory from `pool`.
    pub fn new(cx: &'a dyn Context, pool: &'a Arc<BufferPool>) -> Self {
        WithBuffers { cx, pool }
    }
}

impl std::fmt::Debug for WithBuffers<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithBuffers")
            .field("pool", &self.pool)
            .finish()
    }
}

impl Context for WithBuffers<'_> {
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
        self.cx
            .services()
            .with_buffers(Buffers::from_pool(self.pool))
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

//! [`Buffers`]: the buffer pool an execution context hands its nodes, or
//! none.

use std::mem::size_of;
use std::sync::Arc;

use super::Recycle;
use super::pool::BufferPool;
use super::recycler::POOLED_BYTES;

/// Where batch memory comes from in a context: its [`BufferPool`], or
/// none (fresh allocations, and memory given back is freed).
///
/// A context hands it out with its other services (a loader's jobs have
/// the loader's pool; `Context::services`, or `cx.buffers()` for short).
/// The collate builders take the memory of the arrays they build here
/// ([`take`](Buffers::take)), and a batch kernel gives back the memory of
/// the input it consumed ([`release`](Buffers::release)). It is a copy of
/// a reference: pass it down freely.
///
/// ```
/// use std::sync::Arc;
/// use adl::exec::{BufferPool, Buffers};
/// use ndarray::Array1;
///
/// let pool = Arc::new(BufferPool::new(2));
/// let buffers = Buffers::from_pool(&pool);
/// buffers.release(Array1::<f32>::zeros(8192)); // a consumed input
/// let v: Vec<f32> = buffers.take(8192); // served from its memory
/// assert_eq!(pool.statistics().reused, 1);
/// // Small requests are plain allocations; without a pool, all are.
/// let _: Vec<f32> = buffers.take(16);
/// let _: Vec<f32> = Buffers::none().take(8192);
/// assert_eq!(pool.statistics().allocated, 0);
/// ```
#[derive(Clone, Copy, Default)]
pub struct Buffers<'a> {
    pool: Option<&'a Arc<BufferPool>>,
}

impl std::fmt::Debug for Buffers<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffers")
            .field("pool", &self.pool.is_some())
            .finish()
    }
}

impl<'a> Buffers<'a> {
    /// No pool: every buffer is a fresh allocation, and memory given back
    /// is freed.
    #[inline]
    pub const fn none() -> Self {
        Buffers { pool: None }
    }

    /// The memory of `pool`.
    #[inline]
    pub fn from_pool(pool: &'a Arc<BufferPool>) -> Self {
        Buffers { pool: Some(pool) }
    }

    /// The pool, if there is one (to keep it past this borrow: a builder
    /// that allocates when it finishes, say).
    #[inline]
    pub fn pool(self) -> Option<&'a Arc<BufferPool>> {
        self.pool
    }

    /// An empty `Vec` with room for at least `capacity` elements: from the
    /// pool when there is one and the request is at least
    /// 16 KiB (smaller blocks are cheap for any allocator), else freshly
    /// allocated.
    #[inline]
    pub fn take<A>(self, capacity: usize) -> Vec<A> {
        match self.pool {
            Some(pool) if capacity.saturating_mul(size_of::<A>()) >= POOLED_BYTES => {
                pool.take(capacity)
            }
            _ => Vec::with_capacity(capacity),
        }
    }

    /// Give the memory of `value` (a batch, or a batch's input that a node
    /// has consumed) to the pool, if there is one; else drop it.
    pub fn release<B: Recycle>(self, value: B) {
        match self.pool {
            Some(pool) => pool.recycle(value),
            None => drop(value),
        }
    }
}

//! [`Recycler`]: what a batch hands its memory to.

use std::mem::size_of;

use super::raw_buffer::RawBuffer;

/// The smallest request a context's [`Buffers`](super::Buffers) serve from
/// the pool, and the smallest buffer a [`Recycler`] keeps: 16 KiB. Small
/// blocks are cheap for any allocator (no page faults, no trims), and
/// keeping them out of the pool keeps its lock off the per-sample path.
pub(crate) const POOLED_BYTES: usize = 16 * 1024;

/// Collects the buffers of one batch for a [`BufferPool`](super::BufferPool): what a
/// [`Recycle`](super::Recycle) implementation hands its memory to.
#[derive(Default)]
pub struct Recycler {
    pub(crate) buffers: Vec<RawBuffer>,
    pub(crate) bytes: usize,
    /// The bytes of every buffer given, kept or not (too small to pool).
    pub(crate) whole: usize,
}

impl std::fmt::Debug for Recycler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recycler")
            .field("buffers", &self.buffers.len())
            .field("bytes", &self.bytes)
            .field("whole", &self.whole)
            .finish()
    }
}

impl Recycler {
    /// Keep the memory of `v` (its values are dropped first; memory of
    /// element types that need a drop is freed instead).
    pub fn vec<A>(&mut self, mut v: Vec<A>) {
        v.clear();
        self.whole = self
            .whole
            .saturating_add(v.capacity().saturating_mul(size_of::<A>()));
        // Small blocks are never taken from the pool (see `Buffers::take`).
        if v.capacity().saturating_mul(size_of::<A>()) < POOLED_BYTES {
            return;
        }
        if let Some(buffer) = RawBuffer::from_vec(v) {
            self.bytes += buffer.layout.size();
            self.buffers.push(buffer);
        }
    }

    /// The bytes collected so far (the buffers kept).
    #[inline]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The bytes of every buffer given so far, those too small to keep
    /// included: the batch's memory as a loader under a memory budget
    /// counts it.
    #[inline]
    pub fn whole_bytes(&self) -> usize {
        self.whole
    }
}

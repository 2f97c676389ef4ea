//! [`RawBuffer`]: the memory of a recycled `Vec`, held without its type.

use std::alloc::{Layout, dealloc};
use std::mem::{ManuallyDrop, align_of, needs_drop, size_of};
use std::ptr::NonNull;

/// The memory of one recycled `Vec`: an allocation of the global allocator
/// that holds no values.
pub(crate) struct RawBuffer {
    ptr: NonNull<u8>,
    pub(crate) layout: Layout,
    /// When it was put in the pool (the pool's clock): the oldest goes first
    /// when the pool is over its limit.
    pub(crate) stamp: u64,
    /// The thread that last wrote it, as [`BufferPool`](super::BufferPool)
    /// numbers threads (0: not known): its memory is likeliest in that
    /// thread's core's cache.
    pub(crate) writer: u64,
}

// SAFETY: a RawBuffer owns its allocation alone (the `Vec` it came from was
// forgotten) and holds no values (only element types that need no drop are
// kept, and their values are never read), so it can move between threads.
unsafe impl Send for RawBuffer {}

impl Drop for RawBuffer {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated by the global allocator with `layout`
        // (a `Vec<A>` of capacity c allocates `Layout::array::<A>(c)`), and
        // nothing else owns it.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

impl RawBuffer {
    /// The memory of `v`, if its element type can be recycled (it needs no
    /// drop and is not zero-sized) and it has any; otherwise `v` is dropped.
    pub(crate) fn from_vec<A>(v: Vec<A>) -> Option<RawBuffer> {
        if needs_drop::<A>() || size_of::<A>() == 0 || v.capacity() == 0 {
            return None;
        }
        let layout = Layout::array::<A>(v.capacity()).ok()?;
        let mut v = ManuallyDrop::new(v);
        // A Vec's pointer is never null.
        let ptr = NonNull::new(v.as_mut_ptr().cast::<u8>())?;
        Some(RawBuffer {
            ptr,
            layout,
            stamp: 0,
            writer: 0,
        })
    }

    /// Where the memory starts: the address a `Vec` made of it had.
    pub(crate) fn address(&self) -> usize {
        self.ptr.as_ptr() as usize
    }

    /// How many `A` fit, if this memory can be a `Vec<A>`: same alignment,
    /// and a size that is a whole number of `A`.
    pub(crate) fn capacity_for<A>(&self) -> Option<usize> {
        let size = size_of::<A>();
        (size != 0
            && self.layout.align() == align_of::<A>()
            && self.layout.size().is_multiple_of(size))
        .then(|| self.layout.size() / size)
    }

    /// This memory as an empty `Vec<A>` of `capacity` elements
    /// (`capacity_for::<A>()`).
    pub(crate) fn into_vec<A>(self, capacity: usize) -> Vec<A> {
        debug_assert_eq!(self.capacity_for::<A>(), Some(capacity));
        let this = ManuallyDrop::new(self);
        // SAFETY: the memory was allocated by the global allocator with an
        // alignment equal to `A`'s and a size of `capacity * size_of::<A>()`
        // (checked by `capacity_for`), and it is owned by this buffer alone,
        // which is forgotten here; the Vec is empty, so no value is read.
        unsafe { Vec::from_raw_parts(this.ptr.as_ptr().cast::<A>(), 0, capacity) }
    }
}

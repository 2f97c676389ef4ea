//! [`LimitedAllocator`]: the system allocator, but an allocation larger than
//! [`ALLOCATION_LIMIT`] aborts the process, so that a length field read
//! from a file and trusted (2^60 elements) is a finding, not a slow
//! allocation the fuzzer may or may not notice.

use std::alloc::{GlobalAlloc, Layout, System};

/// The largest single allocation a parser may make: 1 GiB. The largest a
/// valid input needs is an image's pixels at the decoders' largest side
/// (16 384 x 16 384 x 3 bytes, 768 MiB); anything past it came from a
/// length that was not checked against the file.
pub const ALLOCATION_LIMIT: usize = 1 << 30;

/// The system allocator with a limit on each allocation: install it with
/// `#[global_allocator] static ALLOCATOR: LimitedAllocator = LimitedAllocator;`.
#[derive(Debug, Clone, Copy, Default)]
pub struct LimitedAllocator;

impl LimitedAllocator {
    fn check(size: usize) {
        if size > ALLOCATION_LIMIT {
            // No formatting here: it would allocate. A fixed message, then
            // abort, which the fuzzer reports as a crash with this input.
            let message = b"adl-fuzz: an allocation over the 1 GiB limit\n";
            // SAFETY: writing a static buffer to the standard error file
            // descriptor, which is open for the process's life.
            unsafe { libc_write(2, message.as_ptr(), message.len()) };
            std::process::abort();
        }
    }
}

unsafe extern "C" {
    #[link_name = "write"]
    fn libc_write(fd: i32, buffer: *const u8, count: usize) -> isize;
}

// SAFETY: every method forwards to `System` with the same arguments, after
// a check that allocates nothing.
unsafe impl GlobalAlloc for LimitedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::check(layout.size());
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::check(layout.size());
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::check(new_size);
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
}

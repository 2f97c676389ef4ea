//! [`prefetch`]: a cache hint for data read soon; [`prefetch_head`] for
//! the start of it only.

/// The bytes of a cache line: what one prefetch hint brings.
pub const CACHE_LINE: usize = 64;

/// Ask the CPU to start loading `values` into its caches, without waiting
/// for them: what the `Storage::prefetch` of an in-memory dataset calls on
/// the sample's data. One hint per cache line; nothing on targets without a
/// prefetch instruction.
///
/// ```
/// let rows = vec![0f32; 64 * 1000];
/// adl::exec::prefetch(&rows[640..704]); // row 10, read soon
/// ```
#[inline]
pub fn prefetch<T>(values: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let start = values.as_ptr().cast::<i8>();
        let bytes = std::mem::size_of_val(values);
        let mut offset = 0;
        while offset < bytes {
            // SAFETY: a prefetch is a hint: it never faults and reads no
            // value; the address is inside `values`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.add(offset)) };
            offset += CACHE_LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = values;
    }
}

/// [`prefetch`] of the first `bytes` of `values` (at least its first
/// element): the head of a run read in order, whose rest the CPU's own
/// prefetcher follows once the first lines arrive. Asking for all of a
/// long block far ahead fills the CPU's line fill buffers, and the loop
/// then stalls on the prefetch instructions themselves (W2's 4 KiB
/// channel planes: `docs/performance.md`); a short row (W1's 256 bytes)
/// is asked for whole, its `bytes` its length.
///
/// ```
/// let rows = vec![0f32; 64 * 1000];
/// // The first line of row 10 (16 floats), read soon.
/// adl::exec::prefetch_head(&rows[640..704], adl::exec::CACHE_LINE);
/// ```
#[inline]
pub fn prefetch_head<T>(values: &[T], bytes: usize) {
    let elements = (bytes / std::mem::size_of::<T>().max(1)).max(1);
    prefetch(&values[..values.len().min(elements)]);
}

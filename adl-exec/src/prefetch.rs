//! [`prefetch`]: a cache hint for data read soon.

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
        const LINE: usize = 64;
        let start = values.as_ptr().cast::<i8>();
        let bytes = std::mem::size_of_val(values);
        let mut offset = 0;
        while offset < bytes {
            // SAFETY: a prefetch is a hint: it never faults and reads no
            // value; the address is inside `values`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.add(offset)) };
            offset += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = values;
    }
}

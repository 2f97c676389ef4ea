//! libFuzzer over [`adl_fuzz::npy_rows`], with the allocation limit.
#![no_main]

#[global_allocator]
static ALLOCATOR: adl_fuzz::LimitedAllocator = adl_fuzz::LimitedAllocator;

libfuzzer_sys::fuzz_target!(|data: &[u8]| adl_fuzz::npy_rows(data));

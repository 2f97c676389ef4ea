//! libFuzzer over [`adl_fuzz::state`], with the allocation limit.
#![no_main]

#[global_allocator]
static ALLOCATOR: adl_fuzz::LimitedAllocator = adl_fuzz::LimitedAllocator;

libfuzzer_sys::fuzz_target!(|data: &[u8]| adl_fuzz::state(data));

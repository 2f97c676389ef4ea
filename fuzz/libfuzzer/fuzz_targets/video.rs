//! libFuzzer over [`adl_fuzz::video`], with the allocation limit.
#![no_main]

#[global_allocator]
static ALLOCATOR: adl_fuzz::LimitedAllocator = adl_fuzz::LimitedAllocator;

libfuzzer_sys::fuzz_target!(|data: &[u8]| adl_fuzz::video(data));

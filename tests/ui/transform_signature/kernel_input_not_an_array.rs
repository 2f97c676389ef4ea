// A kernel node must take an ndarray array (or a Vec) of numbers.
#[adl::transform(
    batch,
    unsafe(opencl = "__kernel void count(__global const uchar* input, __global ulong* output) {}")
)]
fn count(names: Vec<String>) -> Vec<u64> {
    vec![names.len() as u64]
}

fn main() {}

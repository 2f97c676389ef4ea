// The kernel function is not named like the node.
use ndarray::Array2;

#[adl::transform(
    batch,
    unsafe(opencl = "__kernel void brighten_kernel(__global const float* input, __global float* output) {}")
)]
fn brighten(b: Array2<f32>) -> Array2<f32> {
    b + 0.1
}

fn main() {}

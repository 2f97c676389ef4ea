// The opt-in is unsafe code where the user wrote it: a crate that forbids
// unsafe code is told so at its `unsafe`, as for any unsafe block.
#![forbid(unsafe_code)]
use adl::ndarray::Array2;

// SAFETY: kernels/scale.cl reads `input[i]` and writes `output[i]` for its
// own `i < n`.
#[adl::transform(batch, unsafe(opencl = include_str!("../../kernels/scale.cl")), name = "scale")]
fn halve(batch: Array2<f32>) -> Array2<f32> {
    batch * 0.5
}

fn main() {}

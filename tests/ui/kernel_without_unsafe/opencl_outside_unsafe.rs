// A kernel given as a plain option: OpenCL C that nothing checks, so
// it must stand inside `unsafe(...)`. One error, at `opencl`.
use adl::ndarray::Array2;

#[adl::transform(batch, opencl = include_str!("../../kernels/scale.cl"), name = "scale")]
fn halve(batch: Array2<f32>) -> Array2<f32> {
    batch * 0.5
}

fn main() {}

// Batch nodes, with and without a kernel: inline, a file, a constant.
use adl::description::{Node, Stage};

const SCALE_CL: &str = "__kernel void scale(__global float* x) {}";

#[adl::transform(batch)]
fn sum(b: Vec<f32>) -> f32 {
    b.iter().sum()
}

#[adl::transform(batch, unsafe(opencl = "__kernel void negate(__global float* x) {}"))]
fn negate(b: Vec<f32>) -> Vec<f32> {
    b.into_iter().map(|x| -x).collect()
}

#[adl::transform(batch, unsafe(opencl = include_str!("../../kernels/scale.cl")))]
fn scale(b: Vec<f32>) -> Vec<f32> {
    b
}

#[adl::transform(unsafe(opencl = SCALE_CL), batch)]
fn scale_const(b: Vec<f32>) -> Vec<f32> {
    b
}

fn main() {
    assert_eq!(sum {}.info().stage, Stage::Batch);
    assert!(sum {}.info().kernel.is_none());
    assert!(negate {}.info().kernel.is_some());
    assert!(scale {}.info().kernel.unwrap().source.contains("__kernel"));
    assert_eq!(
        scale_const {}.info().kernel.map(|k| k.source),
        Some(SCALE_CL.into())
    );
}

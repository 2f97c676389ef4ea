// Batch nodes, with and without a kernel: inline, a file, a constant;
// taking the loader's buffers.
use adl::description::{Node, Stage};
use adl::exec::Buffers;

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

#[adl::transform(batch)]
fn doubled(b: Vec<f32>, buffers: Buffers<'_>) -> Vec<f32> {
    let mut out = buffers.take(b.len());
    out.extend(b.iter().map(|x| 2.0 * x));
    out
}

#[adl::transform(batch, unsafe(opencl = "__kernel void halved(__global float* x) {}"))]
fn halved(b: Vec<f32>, buffers: Buffers<'_>) -> Vec<f32> {
    let mut out = buffers.take(b.len());
    out.extend(b.iter().map(|x| x / 2.0));
    out
}

struct Offset(f32);

#[adl::transform(batch)]
impl Offset {
    fn apply(&self, b: Vec<f32>, buffers: adl::exec::Buffers<'_>) -> Vec<f32> {
        let mut out = buffers.take(b.len());
        out.extend(b.iter().map(|x| x + self.0));
        out
    }
}

pub(crate) fn main() {
    use adl::Transform;
    assert_eq!(doubled {}.apply(vec![1.0]).unwrap(), vec![2.0]);
    assert_eq!(halved {}.apply(vec![1.0]).unwrap(), vec![0.5]);
    assert_eq!(
        Transform::apply(&Offset(1.0), vec![1.0]).unwrap(),
        vec![2.0]
    );
    assert_eq!(sum {}.info().stage, Stage::Batch);
    assert!(sum {}.info().kernel.is_none());
    assert!(negate {}.info().kernel.is_some());
    assert!(scale {}.info().kernel.unwrap().source.contains("__kernel"));
    assert_eq!(
        scale_const {}.info().kernel.map(|k| k.source),
        Some(SCALE_CL.into())
    );
}

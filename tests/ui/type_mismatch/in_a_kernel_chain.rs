// A node of the wrong type between two built-in kernels: one error at it,
// naming the array it is given, none about the chain the kernels make.
use adl::kernel::{Normalize, U8ToF32};
use adl::ndarray::{Array3, Array4};
use adl::{pipeline, transform};

#[derive(adl::Collate, Clone)]
struct Frame {
    image: Array3<u8>,
}

#[transform(batch)]
fn images(b: FrameBatch) -> Array4<u8> {
    b.image
}

#[transform(batch)]
fn planes(b: Array3<f32>) -> Array3<f32> {
    b
}

fn main() {
    let _ = pipeline! {
        collate: default,
        batch: images -> (U8ToF32::divide(255.0)) -> planes -> (Normalize::per_channel(vec![0.5; 3], vec![0.25; 3])),
    };
}

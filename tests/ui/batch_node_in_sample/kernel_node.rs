// A built-in kernel (a batch node) after a sample node, under `sample:`:
// one error, that it is not a sample node (not also that it does not take
// the sample).
use adl::kernel::U8ToF32;
use adl::ndarray::Array3;
use adl::{pipeline, transform};

#[derive(adl::Collate, Clone)]
struct Frame {
    image: Array3<u8>,
}

#[transform]
fn crop(f: Frame) -> Frame {
    f
}

fn main() {
    let _ = pipeline! {
        sample: crop -> (U8ToF32::divide(255.0)),
        collate: default,
    };
}

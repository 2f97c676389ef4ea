// The loader's buffers: last, by value.
use adl::exec::{Buffers, SampleRng};
use adl::transform;

#[transform]
fn early(x: Vec<f32>, _buffers: Buffers<'_>, _rng: &mut SampleRng) -> Vec<f32> {
    x
}

#[transform(batch)]
fn borrowed(x: Vec<f32>, _buffers: &Buffers<'_>) -> Vec<f32> {
    x
}

fn main() {}

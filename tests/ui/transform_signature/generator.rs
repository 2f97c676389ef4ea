// The per-sample generator: on a sample node only, after the input, as
// `&mut SampleRng`.
use adl::exec::SampleRng;
use adl::transform;

#[transform(batch)]
fn shuffle_rows(b: Vec<f32>, rng: &mut SampleRng) -> Vec<f32> {
    b
}

#[transform]
fn first(rng: &mut SampleRng, x: f32) -> f32 {
    x
}

#[transform]
fn shared(x: f32, rng: &SampleRng) -> f32 {
    x
}

#[transform]
fn seeded(x: f32, seed: u64) -> f32 {
    x
}

fn main() {}

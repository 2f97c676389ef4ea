// `random(..)` is a sample node: under `batch:` it is this rule's error.
use adl::pipeline;
use adl::transform::random;

fn main() {
    let _ = pipeline! {
        sample: |x: f32| x,
        collate: default,
        batch: random(|b, rng| b * rng.unit_f32()),
    };
}

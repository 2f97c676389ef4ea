// Random augmentations: a `#[transform]` node (a function, or an impl
// block's `apply`) that takes the per-sample generator, and
// `random(|x, rng| ...)` written as a node, typed or inferred from the node
// before it, by its name or its path.
use adl::exec::SampleRng;
use adl::pipeline::run;
use adl::transform::random;
use adl::{pipeline, transform};

#[transform]
fn jitter(x: f32, rng: &mut SampleRng) -> f32 {
    x + rng.unit_f32()
}

struct Dropout {
    p: f64,
}

#[transform]
impl Dropout {
    fn apply(&self, x: f32, rng: &mut adl::exec::SampleRng) -> f32 {
        if rng.chance(self.p) { 0.0 } else { x }
    }
}

pub(crate) fn main() {
    let p = pipeline! {
        pre: random(|x: f32, rng: &mut SampleRng| x * rng.unit_f32()),
        sample: jitter -> Dropout { p: 0.0 } -> random(|x, rng| x + rng.unit_f32())
            -> adl::transform::random(|x, _| x),
        collate: default,
    };
    let batch = run(&p, vec![1.0, 2.0]).unwrap();
    assert_eq!(batch.len(), 2);
}

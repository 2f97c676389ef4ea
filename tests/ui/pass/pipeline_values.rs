// Stateful nodes are expressions: a call, a struct literal, a variable in
// parentheses. Collates too: `default`, a value, `collate_fn`, a closure.
use adl::pipeline::{collate_fn, run};
use adl::{Collate, pipeline, transform};

pub struct Scale {
    k: f32,
}

#[transform]
impl Scale {
    fn apply(&self, x: f32) -> f32 {
        x * self.k
    }
}

fn scale(k: f32) -> Scale {
    Scale { k }
}

struct Sum;

impl Collate<f32> for Sum {
    type Batch = f32;
    fn collate(&self, samples: Vec<f32>) -> adl::Result<f32> {
        Ok(samples.into_iter().sum())
    }
}

pub(crate) fn main() {
    let half = scale(0.5);
    let a = pipeline! {
        sample: scale(2.0) -> Scale { k: 3.0 } -> (half),
        collate: Sum,
    };
    assert_eq!(run(&a, vec![1.0f32, 2.0]).unwrap(), 9.0);

    let sum = Sum;
    let b = pipeline! { sample: scale(1.0), collate: (sum) };
    let c = pipeline! { sample: scale(1.0), collate: collate_fn(|v: Vec<f32>| v.len()) };
    let d = pipeline! { sample: scale(1.0), collate: |v: Vec<f32>| v.len() };
    assert_eq!(run(&b, vec![1.0f32]).unwrap(), 1.0);
    assert_eq!(run(&c, vec![1.0f32]).unwrap(), 1);
    assert_eq!(run(&d, vec![1.0f32, 2.0]).unwrap(), 2);
}

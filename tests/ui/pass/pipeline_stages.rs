// Stages: `sample: a -> b, collate: default, batch: c -> d`; sample and
// batch default to the identity.
use adl::pipeline::run;
use adl::{pipeline, transform};
use ndarray::Array1;

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

#[transform]
fn to_f32(x: i64) -> f32 {
    x as f32
}

#[transform(batch)]
fn total(b: Array1<f32>) -> f32 {
    b.sum()
}

#[transform(batch)]
fn halve(x: f32) -> f32 {
    x / 2.0
}

mod nodes {
    #[adl::transform]
    pub fn negate(x: f32) -> f32 {
        -x
    }
}

pub(crate) fn main() {
    let p = pipeline! {
        sample: double -> to_f32 -> nodes::negate,
        collate: default,
        batch: total -> halve,
    };
    assert_eq!(run(&p, vec![1, 2]).unwrap(), -3.0);

    let only_collate = pipeline! { collate: default };
    let trailing_comma = pipeline! { sample: double, collate: default, };
    assert_eq!(
        run(&only_collate, vec![1i64]).unwrap(),
        Array1::from(vec![1i64])
    );
    assert_eq!(
        run(&trailing_comma, vec![1i64]).unwrap(),
        Array1::from(vec![2i64])
    );
    assert!(p.graph().check().is_empty());
}

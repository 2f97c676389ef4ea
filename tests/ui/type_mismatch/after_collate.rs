// The batch node after the collate takes something else than the batch.
use adl::{pipeline, transform};
use ndarray::Array1;

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

#[transform(batch)]
fn total(b: Vec<f32>) -> f32 {
    b.iter().sum()
}

fn main() {
    let _ = pipeline! {
        sample: double,
        collate: default,
        batch: total,
    };
    let _ = |_: Array1<i64>| ();
}

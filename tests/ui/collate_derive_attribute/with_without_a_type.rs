// `with` names a strategy's type; without one it is one error, and the
// field is stacked, so the batch is still there.
use adl::prelude::*;
use ndarray::{Array1, Array2};

#[derive(Collate)]
struct Reading {
    #[collate(with)]
    accel: Array1<f32>,
    label: i64,
}

fn main() {
    let batch: ReadingBatch = adl::pipeline::run(
        &Stages::new().with_collate(DefaultCollate),
        vec![Reading { accel: Array1::zeros(3), label: 1 }],
    )
    .unwrap();
    let _: (Array2<f32>, ndarray::Array1<i64>) = (batch.accel, batch.label);
}

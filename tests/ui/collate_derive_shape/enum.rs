// One mistake, one error: the batch type is still declared, so the
// function that names it is not a second error.
use adl::prelude::*;

#[derive(Collate)]
enum Reading {
    Imu(f32),
    Gps(f64),
}

fn summarize(_batch: ReadingBatch) {}

fn main() {
    let _ = summarize;
    let _ = Reading::Imu(1.0);
    let _ = Reading::Gps(1.0);
}

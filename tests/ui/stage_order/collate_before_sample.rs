// Stages out of order.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

fn main() {
    let _ = pipeline! {
        collate: default,
        sample: double,
    };
}

// A transform under `collate:`: only a collate collates.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

struct Sum;

fn main() {
    let _ = pipeline! {
        sample: double,
        collate: Sum,
    };
}

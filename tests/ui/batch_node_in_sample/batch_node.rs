// A batch node under `sample:`.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

#[transform(batch)]
fn clip(b: i64) -> i64 {
    b.min(10)
}

fn main() {
    let _ = pipeline! {
        sample: double -> clip,
        collate: default,
    };
}

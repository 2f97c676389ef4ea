// The same stage twice.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

fn main() {
    let _ = pipeline! {
        sample: double,
        sample: double,
        collate: default,
    };
}

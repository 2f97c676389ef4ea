// A stage that does not exist.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

fn main() {
    let _ = pipeline! {
        smaple: double,
        collate: default,
    };
}

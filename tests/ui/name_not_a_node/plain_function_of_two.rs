// A plain function of two parameters in the middle of a chain: rustc's one
// error at its name, nothing about its neighbours.
use adl::{pipeline, transform};

fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

fn main() {
    let _ = pipeline! {
        sample: double -> add -> double,
        collate: default,
    };
}

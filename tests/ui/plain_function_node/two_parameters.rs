// A plain function of two parameters: a node takes one input, so the
// closure the help shows takes a pair. The function is left out of the
// chain, so nothing else is reported.
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

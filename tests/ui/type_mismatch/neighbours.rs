// Neighbours whose types do not fit.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

#[transform]
fn shout(s: String) -> String {
    s.to_uppercase()
}

fn main() {
    let _ = pipeline! {
        sample: double -> shout,
        collate: default,
    };
}

// A plain function (no `#[transform]`) written as a node: the error says
// so and shows the closure that wraps it; the node after it is still
// checked against the closure's output (no other error).
use adl::{pipeline, transform};

fn parse_id(s: String) -> i64 {
    s.len() as i64
}

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

fn main() {
    let _ = pipeline! {
        sample: parse_id -> double,
        collate: default,
    };
}

// A plain function (no `#[transform]`) written as a node: a bare name is a
// node type, so rustc says the function is not one, once, at its name.
// The fix (docs/dsl.md): `#[transform]`, or a closure `|s: String| parse_id(s)`.
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

// Every error of one macro call is reported, not only the first: the
// rules the tokens show (unknown, duplicate and empty stages, a second
// collate) and those the types show (a batch node under `sample:`).
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

#[transform(batch)]
fn total(b: Vec<i64>) -> i64 {
    b.iter().sum()
}

fn main() {
    let _ = pipeline! {
        sample: total,
        smaple: double,
        collate: adl::pipeline::IdentityCollate -> default,
        batch:,
        batch: total,
    };
}

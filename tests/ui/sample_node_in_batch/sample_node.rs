// A sample node under `batch:`, and one under `post:`.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

#[transform]
fn negate(x: Vec<i64>) -> Vec<i64> {
    x.into_iter().map(|x| -x).collect()
}

fn main() {
    let _ = pipeline! {
        collate: adl::pipeline::IdentityCollate,
        batch: negate,
        post: double,
    };
}

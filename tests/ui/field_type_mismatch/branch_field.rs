// The first node of a branch takes something else than its field.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

struct Frame {
    name: String,
}

fn main() {
    let _ = pipeline! {
        Frame { name: { sample: double, collate: default } }
    };
}

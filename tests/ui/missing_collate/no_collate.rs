// A pipeline, or a branch, that never collates.
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

struct Frame {
    label: i64,
    name: String,
}

fn main() {
    let _ = pipeline! {
        sample: double,
    };
    let _ = pipeline! {
        Frame {
            label: { sample: double },
            name: { collate: default },
        }
    };
}

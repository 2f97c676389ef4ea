// `collate: default` after a node whose samples cannot be collated: the
// error says what to derive.
use adl::{pipeline, transform};

struct Reading {
    value: i64,
}

#[transform]
fn read(x: i64) -> Reading {
    Reading { value: x }
}

fn main() {
    let _ = pipeline! {
        sample: read,
        collate: default,
    };
    let _ = Reading { value: 1 }.value;
}

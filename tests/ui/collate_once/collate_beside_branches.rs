// A collate beside a parallel form, whose branches collate already; and a
// second `collate:` entry.
use adl::pipeline;

struct Frame {
    label: i64,
}

fn main() {
    let _ = pipeline! {
        Frame { label: { collate: default } },
        collate: default,
    };
}

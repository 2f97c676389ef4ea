// Two branches for one field, and for one key.
use adl::pipeline;

struct Frame {
    label: i64,
}

fn main() {
    let _ = pipeline! {
        Frame {
            label: { collate: default },
            label: { collate: default },
        }
    };
    let _ = pipeline! {
        { "a": { collate: default }, "a": { collate: default } }
    };
}

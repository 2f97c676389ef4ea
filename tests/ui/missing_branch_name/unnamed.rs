// A branch without the name of its field.
use adl::pipeline;

struct Frame {
    label: i64,
    name: String,
}

fn main() {
    let _ = pipeline! {
        Frame {
            label: { collate: default },
            { collate: default },
        }
    };
}

// A parallel form without branches.
use adl::pipeline;

struct Frame {
    label: i64,
}

fn main() {
    let _ = pipeline! {
        Frame {}
    };
}

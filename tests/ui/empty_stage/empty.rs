// Stages with no node.
use adl::pipeline;

fn main() {
    let _ = pipeline! {
        sample:,
        collate: default,
        batch:
    };
}

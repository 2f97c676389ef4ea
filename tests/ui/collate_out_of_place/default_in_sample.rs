// The default collate outside `collate:`.
use adl::pipeline;

fn main() {
    let _ = pipeline! {
        sample: default,
        collate: default,
    };
}

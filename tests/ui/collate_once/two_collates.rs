// `collate: a -> b`: a pipeline collates exactly once.
use adl::pipeline;

fn main() {
    let _ = pipeline! {
        collate: default -> default,
    };
}

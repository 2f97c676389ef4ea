// Closures are anonymous nodes of the stage they stand in; after a node,
// they need no type annotations.
use adl::pipeline::run;
use adl::{pipeline, transform};

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

pub(crate) fn main() {
    let k = 3;
    let p = pipeline! {
        sample: |x: i64| x + 1 -> double -> move |x| x * k,
        collate: |v: Vec<i64>| v.iter().sum::<i64>(),
        batch: |s| s - 1 -> |s: i64| -> String { s.to_string() },
    };
    assert_eq!(run(&p, vec![1, 2]).unwrap(), "29");
}

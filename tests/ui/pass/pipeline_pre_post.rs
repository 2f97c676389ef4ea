// Pre- and post-composition around a whole pipeline.
use adl::pipeline::run;
use adl::{pipeline, transform};

#[transform]
fn parse(s: String) -> i64 {
    s.parse().unwrap_or(0)
}

#[transform(batch)]
fn describe(b: ndarray::Array1<i64>) -> String {
    format!("{b}")
}

pub(crate) fn main() {
    let p = pipeline! {
        pre: |s: &str| s.trim().to_owned() -> parse,
        sample: |x: i64| x + 1,
        collate: default,
        post: describe,
    };
    assert_eq!(run(&p, vec![" 1", "2 "]).unwrap(), "[2, 3]");
    let d = p.graph();
    assert_eq!((d.pre.len(), d.post.len()), (2, 1));
}

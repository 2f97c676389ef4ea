// Bare names that the file does not show to be a plain function or a
// local are node types, as written, and nothing is said about them:
// - a node made by a macro (the index cannot see what it defines), with a
//   local of the same name beside it;
// - a call in a `macro_rules!` body, which lands where the macro is used
//   (here in `nodes`, where `double` is a node, while the root's `double`
//   is a plain function);
// - a call inside another macro's arguments (here one that imports the
//   nodes around it);
// - a call a macro writes from its arguments (its tokens are not written
//   at the call), even with a twin written in this file.
use adl::pipeline;
use adl::pipeline::run;

macro_rules! doubling_node {
    ($name:ident) => {
        #[adl::transform]
        pub(crate) fn $name(x: i64) -> i64 {
            x * 2
        }
    };
}

/// A plain function, named like the node in `nodes`.
fn double(x: i64) -> i64 {
    x * 2
}

macro_rules! doubled {
    () => {
        adl::pipeline! { sample: double, collate: default }
    };
}

macro_rules! with_nodes {
    ($e:expr) => {{
        #[allow(unused_imports)]
        use self::nodes::*;
        $e
    }};
}

/// A plain function, named like the node that `with_node!` makes.
fn half(x: i64) -> i64 {
    x / 2
}

/// Never compiled, but written: a twin of the call `with_node!` writes.
#[cfg(any())]
fn stale() {
    let _ = adl::pipeline! { sample: half, collate: default };
}

macro_rules! with_node {
    ($name:ident) => {{
        doubling_node!($name);
        adl::pipeline! { sample: $name, collate: default }
    }};
}

mod nodes {
    use adl::pipeline::run;

    doubling_node!(double);
    doubling_node!(twice);

    pub(crate) fn doubled_in_nodes(samples: Vec<i64>) -> Vec<i64> {
        let pipe = doubled!();
        run(&pipe, samples).unwrap().to_vec()
    }
}

pub(crate) fn main() {
    assert_eq!(double(1), 2);
    assert_eq!(nodes::doubled_in_nodes(vec![1, 2]), vec![2, 4]);
    assert_eq!(half(4), 2);
    let pipe = with_node!(half);
    assert_eq!(run(&pipe, vec![1i64, 2]).unwrap().to_vec(), vec![2, 4]);

    let twice = 3;
    let pipe = with_nodes!(pipeline! {
        sample: twice,
        collate: default,
    });
    let batch = run(&pipe, vec![1i64, twice]).unwrap();
    assert_eq!(batch.to_vec(), vec![2, 6]);
}

// Bare names that the file does not show to be a plain function or a
// local are node types, as written: here the node comes from a macro (the
// index cannot see what it defines), and a local of the same name does
// not change that.
use adl::pipeline;
use adl::pipeline::run;

macro_rules! doubling_node {
    ($name:ident) => {
        #[adl::transform]
        fn $name(x: i64) -> i64 {
            x * 2
        }
    };
}

doubling_node!(double);

fn main() {
    let double = 3;
    let pipe = pipeline! {
        sample: double,
        collate: default,
    };
    let batch = run(&pipe, vec![1i64, double]).unwrap();
    assert_eq!(batch.to_vec(), vec![2, 6]);
}

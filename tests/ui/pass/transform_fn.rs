// #[transform] on a function: a sample node, still a function.
use adl::Transform;
use adl::description::Node;

#[derive(Debug, Clone, PartialEq)]
pub struct Frame(Vec<u8>);

/// Mirror a frame.
#[adl::transform]
pub fn flip(f: Frame) -> Frame {
    Frame(f.0.into_iter().rev().collect())
}

mod inner {
    // Private to its module, like its function.
    #[adl::transform(sample, name = "inc")]
    pub(crate) fn increment(x: i32) -> i32 {
        x + 1
    }
}

pub(crate) fn main() {
    assert_eq!(flip(Frame(vec![1, 2])), Frame(vec![2, 1]));
    assert_eq!(flip {}.apply(Frame(vec![1, 2])).unwrap(), Frame(vec![2, 1]));
    assert_eq!(inner::increment {}.info().name, "inc");
    let _: fn(Frame) -> Frame = flip;
}

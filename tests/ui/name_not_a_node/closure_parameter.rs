// The same mistake with a node given as a parameter, inside a closure.
use adl::{pipeline, transform};

struct Scale {
    by: f64,
}

#[transform]
impl Scale {
    fn apply(&self, x: f64) -> f64 {
        x * self.by
    }
}

fn main() {
    let build = |node: Scale| {
        pipeline! {
            sample: node,
            collate: default,
        }
    };
    let _ = build(Scale { by: 2.0 });
}

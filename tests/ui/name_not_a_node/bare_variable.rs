// A configured node kept in a variable and written bare: a bare name is a
// node type, so rustc says the variable is not one, once, at its name. The
// fix (docs/dsl.md): the value in parentheses, `(scale)`.
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
    let scale = Scale { by: 2.0 };
    let _ = pipeline! {
        sample: scale,
        collate: default,
    };
}

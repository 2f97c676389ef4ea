// A configured node kept in a variable and written bare: a bare name is a
// node type, so the error says to write the value in parentheses.
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

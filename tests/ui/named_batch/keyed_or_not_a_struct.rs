// Only a form over the fields of a struct names its batch struct, by its
// path.
use adl::{Record, pipeline};

struct Frame {
    camera: f32,
}

struct Batches<T> {
    camera: T,
}

fn main() {
    let _ = pipeline! {
        Record<f32> => Batches<f32> { "camera": { collate: default } }
    };
    let _ = pipeline! {
        Frame => (Vec<f32>,) { camera: { collate: default } }
    };
}

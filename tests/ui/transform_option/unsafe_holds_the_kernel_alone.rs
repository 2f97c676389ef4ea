// `unsafe(...)` holds the kernel and nothing else.
use adl::ndarray::Array2;

#[adl::transform(batch, unsafe(name = "halve"))]
fn halve(batch: Array2<f32>) -> Array2<f32> {
    batch * 0.5
}

#[adl::transform(batch, unsafe)]
fn third(batch: Array2<f32>) -> Array2<f32> {
    batch / 3.0
}

fn main() {}

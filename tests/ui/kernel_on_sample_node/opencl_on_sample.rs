// An explicit `sample` node with a kernel file, on an impl block.
struct Jitter {
    amount: f32,
}

#[adl::transform(sample, name = "jitter", unsafe(opencl = include_str!("../../kernels/scale.cl")))]
impl Jitter {
    fn apply(&self, x: f32) -> f32 {
        x + self.amount
    }
}

fn main() {}

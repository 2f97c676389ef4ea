// State lives on the impl block: #[transform] goes there.
#[adl::transform(batch)]
struct Normalize {
    mean: f32,
    std: f32,
}

fn main() {}

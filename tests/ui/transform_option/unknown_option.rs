// An option that #[transform] does not have.
#[adl::transform(stage = "batch")]
fn flip(f: Vec<u8>) -> Vec<u8> {
    f
}

fn main() {}

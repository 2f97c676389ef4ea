// Tokens that are not options at all.
#[adl::transform(batch; name = "x")]
fn flip(f: Vec<u8>) -> Vec<u8> {
    f
}

fn main() {}

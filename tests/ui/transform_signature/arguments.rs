// Not exactly one input.
#[adl::transform]
fn none() -> u8 {
    0
}

#[adl::transform]
fn two(a: u8, b: u8) -> u8 {
    a + b
}

fn main() {}

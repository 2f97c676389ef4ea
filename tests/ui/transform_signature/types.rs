// Inputs and outputs a node cannot have: a borrowed input, `impl Trait`.
#[adl::transform]
fn length(s: &str) -> usize {
    s.len()
}

#[adl::transform]
fn evens(v: Vec<u32>) -> impl Iterator<Item = u32> {
    v.into_iter().filter(|x| x % 2 == 0)
}

#[adl::transform]
unsafe fn raw(p: usize) -> u8 {
    p as u8
}

fn main() {}

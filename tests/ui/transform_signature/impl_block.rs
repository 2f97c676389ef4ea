// Impl blocks: an `apply` taking `&mut self`, and a block without `apply`.
struct Counter {
    n: u64,
}

#[adl::transform]
impl Counter {
    fn apply(&mut self, x: u64) -> u64 {
        self.n += 1;
        x + self.n
    }
}

struct Scale(f32);

#[adl::transform]
impl Scale {
    fn run(&self, x: f32) -> f32 {
        x * self.0
    }
}

fn main() {}

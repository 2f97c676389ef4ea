// Impl blocks that are not a node's: a trait impl, a generic impl.
struct Scale(f32);

#[adl::transform]
impl Clone for Scale {
    fn clone(&self) -> Self {
        Scale(self.0)
    }
}

struct Wrap<T>(T);

#[adl::transform]
impl<T: Clone> Wrap<T> {
    fn apply(&self, x: T) -> (T, T) {
        (x.clone(), x)
    }
}

fn main() {}

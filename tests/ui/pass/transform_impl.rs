// #[transform] on an impl block: configured nodes are values.
use adl::Transform;
use adl::description::Node;

pub struct Normalize {
    mean: f32,
    std: f32,
}

/// Subtract the mean, divide by the std.
#[adl::transform(batch)]
impl Normalize {
    pub fn new(mean: f32, std: f32) -> Self {
        Normalize { mean, std }
    }

    pub fn apply(&self, b: Vec<f32>) -> Vec<f32> {
        b.into_iter().map(|x| (x - self.mean) / self.std).collect()
    }
}

pub struct RandomCrop {
    size: usize,
}

#[adl::transform(name = "crop")]
impl RandomCrop {
    fn apply(&self, v: Vec<u8>) -> Result<Vec<u8>, String> {
        v.get(..self.size)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| format!("shorter than {}", self.size))
    }
}

pub(crate) fn main() {
    let n = Normalize::new(1.0, 2.0);
    assert_eq!(Transform::apply(&n, vec![3.0]).unwrap(), vec![1.0]);
    assert_eq!(n.info().name, "normalize");
    let c = RandomCrop { size: 2 };
    assert_eq!(c.info().name, "crop");
    assert!(Transform::apply(&c, vec![1]).is_err());
}

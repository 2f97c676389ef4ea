//! [`Geometry`]: the shape variables that the kernel ABI passes to every
//! kernel, from a batch's shape.

/// The shape variables of the kernel ABI (its `n`, `per_sample`, `channels`, `inner` and `last` arguments; `adl::kernel` says what each is), for a
/// batch of `shape`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Elements in the batch.
    pub n: usize,
    /// Elements per sample.
    pub per_sample: usize,
    /// The length of axis 1 (1 for fewer axes).
    pub channels: usize,
    /// Elements per channel of a sample: the product of axes 2.. (1 for
    /// fewer axes).
    pub inner: usize,
    /// The length of the last axis of a sample (1 for a batch of scalars).
    pub last: usize,
}

impl Geometry {
    /// The geometry of a batch of `shape`.
    #[inline]
    pub fn of(shape: &[usize]) -> Self {
        let n = shape.iter().product();
        let per_sample = shape.iter().skip(1).product();
        Geometry {
            n,
            per_sample,
            channels: if shape.len() >= 2 { shape[1] } else { 1 },
            inner: shape.iter().skip(2).product(),
            last: if shape.len() >= 2 {
                shape[shape.len() - 1]
            } else {
                1
            },
        }
    }
}

/// The shape variables of the kernel ABI for a batch of `shape`: `(n,
/// per_sample, channels, inner, last)`.
///
/// ```
/// assert_eq!(adl::kernel::shape_variables(&[64, 3, 32, 32]), (196608, 3072, 3, 1024, 32));
/// ```
#[inline]
pub fn shape_variables(shape: &[usize]) -> (usize, usize, usize, usize, usize) {
    let g = Geometry::of(shape);
    (g.n, g.per_sample, g.channels, g.inner, g.last)
}

//! [`SampleRng`]: the random generator of one node on one sample.

use super::NodeId;
use crate::rng::{SplitMix64, mix64};

/// A small random generator for one node on one sample, derived from
/// (seed, epoch, sample index, node): augmentations drawn from it are
/// reproducible and do not depend on the number of threads or on timing.
///
/// SplitMix64, with its state started from a hash of the four numbers.
/// Not for cryptography.
///
/// ```
/// use adl::exec::{NodeId, SampleRng};
///
/// let mut a = SampleRng::new(42, 0, 7, NodeId(1));
/// let mut b = SampleRng::new(42, 0, 7, NodeId(1));
/// assert_eq!(a.next_u64(), b.next_u64());
/// let x = a.unit_f32();
/// assert!((0.0..1.0).contains(&x));
/// assert!(a.below(6) < 6);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleRng(SplitMix64);

impl SampleRng {
    /// The generator of `node` for sample `index` of `epoch`, under `seed`.
    #[inline]
    pub fn new(seed: u64, epoch: u64, index: u64, node: NodeId) -> Self {
        let mut h = mix64(seed ^ 0x6164_6C5F_726E_6700);
        for word in [epoch, index, u64::from(node.0)] {
            h = mix64(h.wrapping_add(0x9E37_79B9_7F4A_7C15) ^ word);
        }
        SampleRng(SplitMix64::new(h))
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform `f32` in `[0, 1)` (24 random bits).
    #[inline]
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// A uniform `f64` in `[0, 1)` (53 random bits).
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (clamped to `[0, 1]`).
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit_f64() < p
    }

    /// A uniform integer in `0..n`, without modulo bias; 0 when `n` is 0.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        match usize::try_from(n) {
            Ok(0) => 0,
            Ok(n) => self.0.below(n) as u64,
            // Wider than usize (32-bit targets): the top bits are uniform.
            Err(_) => ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differs_by_each_input() {
        let base = SampleRng::new(1, 2, 3, NodeId(4));
        for other in [
            SampleRng::new(0, 2, 3, NodeId(4)),
            SampleRng::new(1, 0, 3, NodeId(4)),
            SampleRng::new(1, 2, 0, NodeId(4)),
            SampleRng::new(1, 2, 3, NodeId(0)),
        ] {
            assert_ne!(base, other);
        }
    }
}

//! SplitMix64: a small, self-contained seeded generator, so that an order
//! or a random subset depends only on the seed (not on a crate version or
//! the platform). Shared by shuffling (adl-core's `pipes`), random
//! sampling (its `sample`) and each node's [`SampleRng`](crate::SampleRng),
//! and behind every seeded order ([`mix64`]). A leaf: it uses nothing else
//! of the crate.

/// The SplitMix64 output function (Vigna): a bijective 64-bit mix, the hash
/// behind every seeded order and generator of adl.
///
/// ```
/// // The benchmark workloads' check value: mix64(2024).
/// assert_eq!(adl::exec::mix64(2024), 0xbbbf_12cc_d68b_4479);
/// ```
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Sebastiano Vigna's SplitMix64: the same numbers for the same seed on
/// every platform and version of adl.
///
/// ```
/// use adl::exec::rng::SplitMix64;
///
/// let mut a = SplitMix64::new(7);
/// let mut b = SplitMix64::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// assert_eq!(a.below(0), 0);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    #[inline]
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.state)
    }

    /// A uniform integer in `0..n`, without modulo bias (Lemire's
    /// multiply-and-reject); 0, drawing nothing, when `n` is 0.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let n = n as u64;
        let threshold = n.wrapping_neg() % n;
        loop {
            let product = u128::from(self.next_u64()) * u128::from(n);
            if (product as u64) >= threshold {
                return (product >> 64) as usize;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SplitMix64, mix64};

    #[test]
    fn mix64_matches_the_workloads_check_value() {
        // WORKLOADS.md: S = mix64(2024) = 0xbbbf12ccd68b4479.
        assert_eq!(mix64(2024), 0xbbbf_12cc_d68b_4479);
    }

    #[test]
    fn known_first_outputs() {
        // Reference values of SplitMix64 seeded with 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_covers_its_range() {
        let mut rng = SplitMix64::new(42);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            seen[rng.below(7)] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(SplitMix64::new(1).below(1), 0);
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = SplitMix64::new(7);
        for n in 1..50 {
            for _ in 0..20 {
                assert!(rng.below(n) < n);
            }
        }
    }
}

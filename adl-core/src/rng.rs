//! SplitMix64: a small, self-contained seeded generator, so that an order
//! or a random subset depends only on the seed (not on a crate version or
//! the platform). Shared by shuffling (`pipes`) and random sampling
//! (`sample`).

/// Sebastiano Vigna's SplitMix64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        crate::exec::mix64(self.state)
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias
    /// (Lemire's multiply-and-reject).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
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
    use super::SplitMix64;

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

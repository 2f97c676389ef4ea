//! [`EpochPermutation`]: the benchmark workloads' sample order, as an
//! [`Order`] of adl's loader (a program's own order, as any user may
//! write one).

use std::sync::Arc;

use adl::exec::mix64;
use adl::graph::loader::{EpochOrder, Listed, Order};

/// The workloads' "epoch permutation" (the peers' `permutation` in
/// `bench/peer/workloads.py`): index `i` has the key `mix64(((15 << 56) ^
/// (i << 24) ^ epoch) ^ mix64(seed))`, and indices are sorted by (key,
/// index). It builds the whole order when an epoch starts (`16 n` bytes,
/// `O(n log n)` time), which adl's own [`Shuffle`](adl::graph::loader::Shuffle)
/// does not; the workloads keep it so that their digests match the peers'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochPermutation {
    /// The seed of the keys.
    pub seed: u64,
}

impl EpochPermutation {
    /// Epoch `epoch`'s order over `len` samples.
    pub fn indices(&self, epoch: u64, len: usize) -> Vec<usize> {
        let s = mix64(self.seed);
        let mut keyed: Vec<(u64, usize)> = (0..len)
            .map(|i| (mix64(((15u64 << 56) ^ ((i as u64) << 24) ^ epoch) ^ s), i))
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, i)| i).collect()
    }
}

impl Order for EpochPermutation {
    fn len(&self, dataset_len: usize) -> usize {
        dataset_len
    }

    fn epoch(&self, epoch: u64, dataset_len: usize) -> adl::Result<Arc<dyn EpochOrder>> {
        Listed::new(self.indices(epoch, dataset_len)).epoch(epoch, dataset_len)
    }

    fn describe(&self) -> String {
        format!("sorted-keys-shuffle(seed={})", self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_the_workloads_order() {
        // The first indices of the epoch-0 order of seed 2024, as the
        // peers' workloads.py gives them.
        let order = EpochPermutation { seed: 2024 };
        assert_eq!(
            &order.indices(0, 200_000)[..4],
            &[58145, 12204, 158578, 131788]
        );
        assert_eq!(&order.indices(0, 20_000)[..4], &[12204, 7707, 8401, 10511]);
        assert_eq!(&order.indices(0, 6_000)[..4], &[1407, 4406, 5990, 5854]);
        let mut every = order.indices(3, 1001);
        every.sort_unstable();
        assert_eq!(every, (0..1001).collect::<Vec<_>>());
    }
}

//! The order of an epoch and its split across ranks: stateless functions of
//! (sampler, seed, epoch, dataset length, cursor, rank, world), so that the
//! order never depends on workers or timing, and a resumed epoch can
//! recompute exactly what is left. An order is evaluated per position
//! ([`EpochOrder`]): but for explicit indices and [`Sampler::SortedKeys`],
//! no sampler holds an epoch's order in memory.

use std::sync::Arc;

use adl_core::exec::mix64;
use adl_core::sample::{Permutation, Step, ld_step};
use adl_core::{Error, Result};

/// How a loader orders the indices of an epoch, before sharding.
#[derive(Debug, Clone, PartialEq)]
pub enum Sampler {
    /// `0, 1, ..., n-1`, every epoch.
    Sequential,
    /// A pseudo-random permutation that depends only on (seed, epoch):
    /// [`Permutation`] of the dataset's length with the key `mix64(seed ^
    /// mix64(epoch))`, evaluated per position (a Feistel network with
    /// cycle walking). Constant memory and time per index, so a shuffled
    /// epoch over billions of samples starts at once; each index's
    /// position is uniform over many epochs, and consecutive epochs are
    /// unrelated (tests/suite/shuffle_quality.rs).
    Shuffle {
        /// The permutation's seed.
        seed: u64,
    },
    /// The benchmark workloads' "epoch permutation" (bench/WORKLOADS.md):
    /// index `i` has the key `mix64(((15 << 56) ^ (i << 24) ^ epoch) ^
    /// mix64(seed))`, and indices are sorted by (key, index). It builds the
    /// whole order when an epoch starts: `16 n` bytes and `O(n log n)`
    /// time, so [`Shuffle`](Self::Shuffle) is the loader's shuffle; this
    /// one is kept for orders that must match that definition.
    SortedKeys {
        /// The seed of the keys.
        seed: u64,
    },
    /// A low-discrepancy walk over the whole dataset
    /// ([`sample_ld`](adl_core::sample::sample_ld) with the golden-ratio
    /// step), started `offset + epoch` indices in: every index once, spread
    /// evenly at every prefix. Computed per position.
    LowDiscrepancy {
        /// Where epoch 0 starts.
        offset: i64,
    },
    /// These indices, in this order, every epoch (a subset, or repeats, as
    /// given); each must be below the dataset's length.
    Indices(Arc<[usize]>),
}

impl Sampler {
    /// A short description, stored in a [`LoaderState`](super::LoaderState)
    /// so that a state is not resumed under another sampler.
    pub(crate) fn describe(&self) -> String {
        match self {
            Sampler::Sequential => "sequential".to_owned(),
            Sampler::Shuffle { seed } => format!("index-shuffle(seed={seed})"),
            Sampler::SortedKeys { seed } => format!("sorted-keys-shuffle(seed={seed})"),
            Sampler::LowDiscrepancy { offset } => format!("low-discrepancy(offset={offset})"),
            Sampler::Indices(indices) => {
                let mut hash = Fnv::new();
                for i in indices.iter() {
                    hash.write(&(*i as u64).to_le_bytes());
                }
                format!("indices(len={}, fnv={:016x})", indices.len(), hash.finish())
            }
        }
    }

    /// Check the sampler against a dataset of `len` samples.
    pub(crate) fn check(&self, len: usize) -> Result<()> {
        if let Sampler::Indices(indices) = self
            && let Some((at, &i)) = indices.iter().enumerate().find(|(_, i)| **i >= len)
        {
            return Err(Error::invalid(
                "sampler indices",
                format!(
                    "index {i} at position {at} is out of range for a dataset of {len} samples"
                ),
            ));
        }
        Ok(())
    }

    /// The length of every epoch's order over a dataset of `len` samples,
    /// without computing an order.
    pub(crate) fn len(&self, len: usize) -> usize {
        match self {
            Sampler::Indices(indices) => indices.len(),
            Sampler::Sequential
            | Sampler::Shuffle { .. }
            | Sampler::SortedKeys { .. }
            | Sampler::LowDiscrepancy { .. } => len,
        }
    }

    /// The global order of `epoch` over a dataset of `len` samples.
    pub(crate) fn order(&self, epoch: u64, len: usize) -> Result<EpochOrder> {
        Ok(match self {
            Sampler::Sequential => EpochOrder::Sequential(len),
            Sampler::Shuffle { seed } => {
                EpochOrder::Shuffle(Permutation::new(len, mix64(seed ^ mix64(epoch))))
            }
            Sampler::SortedKeys { seed } => EpochOrder::Listed(sorted_keys(*seed, epoch, len)),
            Sampler::LowDiscrepancy { offset } => {
                let start = offset.wrapping_add(epoch as i64);
                EpochOrder::LowDiscrepancy {
                    len,
                    start: if len == 0 {
                        0
                    } else {
                        i128::from(start).rem_euclid(len as i128) as usize
                    },
                    step: ld_step(len, Step::GoldenRatio)?,
                }
            }
            Sampler::Indices(indices) => EpochOrder::Listed(Arc::clone(indices)),
        })
    }
}

/// One epoch's whole order (before sharding), evaluated per position.
#[derive(Debug, Clone)]
pub(crate) enum EpochOrder {
    /// `0..len`.
    Sequential(usize),
    /// [`Sampler::Shuffle`]'s permutation.
    Shuffle(Permutation),
    /// An order held in memory (explicit indices, sorted keys).
    Listed(Arc<[usize]>),
    /// `(start + k * step) mod len`, the step co-prime with `len`.
    LowDiscrepancy {
        len: usize,
        start: usize,
        step: usize,
    },
}

impl EpochOrder {
    /// The number of positions.
    pub(crate) fn len(&self) -> usize {
        match self {
            EpochOrder::Sequential(len) | EpochOrder::LowDiscrepancy { len, .. } => *len,
            EpochOrder::Shuffle(permutation) => permutation.len(),
            EpochOrder::Listed(indices) => indices.len(),
        }
    }

    /// The dataset index at `position`, or `None` past the end.
    #[inline]
    pub(crate) fn get(&self, position: usize) -> Option<usize> {
        match self {
            EpochOrder::Sequential(len) => (position < *len).then_some(position),
            EpochOrder::Shuffle(permutation) => permutation.get(position),
            EpochOrder::Listed(indices) => indices.get(position).copied(),
            EpochOrder::LowDiscrepancy { len, start, step } => (position < *len).then(|| {
                // 128 bits: position * step does not overflow.
                ((position as u128 * *step as u128 + *start as u128) % *len as u128) as usize
            }),
        }
    }
}

/// The permutation of [`Sampler::SortedKeys`].
fn sorted_keys(seed: u64, epoch: u64, len: usize) -> Arc<[usize]> {
    let s = mix64(seed);
    let mut keyed: Vec<(u64, usize)> = (0..len)
        .map(|i| (mix64(((15u64 << 56) ^ ((i as u64) << 24) ^ epoch) ^ s), i))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// What happens to the tail of an epoch that does not divide evenly among
/// ranks (torch's `DistributedSampler(drop_last=...)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShardTail {
    /// Pad by wrapping around to the start of the epoch's order, so every
    /// rank gets the same number of samples (a few are seen twice).
    #[default]
    Pad,
    /// Drop the last `len % world` indices of the order, so no sample is
    /// seen twice (a few are not seen this epoch).
    Drop,
}

/// One rank of a world, as torch's `DistributedSampler` splits an epoch: the
/// same order on every rank, rank `r` takes positions `r, r + world, ...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This process's rank, `0 <= rank < world`.
    pub rank: usize,
    /// How many ranks there are.
    pub world: usize,
    /// What happens to an uneven tail.
    pub tail: ShardTail,
}

impl Default for Shard {
    fn default() -> Self {
        Shard {
            rank: 0,
            world: 1,
            tail: ShardTail::Pad,
        }
    }
}

impl Shard {
    /// Check `rank < world`, `world >= 1`.
    pub(crate) fn check(&self) -> Result<()> {
        if self.world == 0 {
            return Err(Error::invalid("world size", "must be at least 1, got 0"));
        }
        if self.rank >= self.world {
            return Err(Error::invalid(
                "rank",
                format!(
                    "rank {} is not below the world size {}",
                    self.rank, self.world
                ),
            ));
        }
        Ok(())
    }
}

/// FNV-1a, 64 bits: a stable hash for fingerprints (the same on every
/// platform and Rust version, unlike `DefaultHasher`).
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub(crate) fn write_str(&mut self, s: &str) {
        self.write(&(s.len() as u64).to_le_bytes());
        self.write(s.as_bytes());
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adl_core::sample::{Amount, Seed, sample_ld};

    fn listed(order: &EpochOrder) -> Vec<usize> {
        (0..order.len()).filter_map(|p| order.get(p)).collect()
    }

    #[test]
    fn sorted_keys_match_the_workload_order() {
        // WORKLOADS.md: the first indices of the epoch-0 order of seed 2024.
        assert_eq!(
            &sorted_keys(2024, 0, 200_000)[..4],
            &[58145, 12204, 158578, 131788]
        );
        assert_eq!(
            &sorted_keys(2024, 0, 20_000)[..4],
            &[12204, 7707, 8401, 10511]
        );
        assert_eq!(&sorted_keys(2024, 0, 6_000)[..4], &[1407, 4406, 5990, 5854]);
    }

    #[test]
    fn low_discrepancy_per_position_is_sample_ld() {
        for len in [0, 1, 2, 6, 10, 97, 1000] {
            for (offset, epoch) in [(0, 0), (3, 2), (-4, 7), (i64::MAX, 1)] {
                let sampler = Sampler::LowDiscrepancy { offset };
                let order = sampler.order(epoch, len).unwrap();
                let start = offset.wrapping_add(epoch as i64);
                let whole = sample_ld(
                    len,
                    Amount::Count(len),
                    Seed::Offset(start),
                    Step::GoldenRatio,
                )
                .unwrap();
                assert_eq!(
                    listed(&order),
                    whole,
                    "len {len} offset {offset} epoch {epoch}"
                );
            }
        }
    }

    #[test]
    fn every_sampler_orders_every_index_once() {
        for len in [0, 1, 5, 64, 1001] {
            for sampler in [
                Sampler::Sequential,
                Sampler::Shuffle { seed: 4 },
                Sampler::SortedKeys { seed: 4 },
                Sampler::LowDiscrepancy { offset: 2 },
            ] {
                let mut order = listed(&sampler.order(3, len).unwrap());
                order.sort_unstable();
                assert_eq!(order, (0..len).collect::<Vec<_>>(), "{sampler:?}, {len}");
            }
        }
    }

    #[test]
    fn a_shuffle_is_its_seed_and_epoch() {
        let order = |seed, epoch| listed(&Sampler::Shuffle { seed }.order(epoch, 500).unwrap());
        assert_eq!(order(1, 0), order(1, 0));
        assert_ne!(order(1, 0), order(1, 1));
        assert_ne!(order(1, 0), order(2, 0));
    }
}

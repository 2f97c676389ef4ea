//! The order of an epoch and its split across ranks: stateless functions of
//! (sampler, seed, epoch, dataset length, cursor, rank, world), so that the
//! order never depends on workers or timing, and a resumed epoch can
//! recompute exactly what is left.

use std::sync::Arc;

use adl_core::exec::mix64;
use adl_core::sample::{Amount, Seed, Step, sample_ld};
use adl_core::{Error, Result};

/// How a loader orders the indices of an epoch, before sharding.
#[derive(Debug, Clone, PartialEq)]
pub enum Sampler {
    /// `0, 1, ..., n-1`, every epoch.
    Sequential,
    /// A permutation that depends only on (seed, epoch): index `i` has the
    /// key `mix64(((15 << 56) ^ (i << 24) ^ epoch) ^ mix64(seed))`, and
    /// indices are sorted by (key, index). (For indices below 2^32 and
    /// epochs below 2^24 this is the "epoch permutation" of the benchmark
    /// workloads.)
    Shuffle {
        /// The permutation's seed.
        seed: u64,
    },
    /// A low-discrepancy walk over the whole dataset
    /// ([`sample_ld`](adl_core::sample::sample_ld) with the golden-ratio
    /// step), started `offset + epoch` indices in: every index once, spread
    /// evenly at every prefix.
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
            Sampler::Shuffle { seed } => format!("shuffle(seed={seed})"),
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
            Sampler::Sequential | Sampler::Shuffle { .. } | Sampler::LowDiscrepancy { .. } => len,
        }
    }

    /// The global order of `epoch` over a dataset of `len` samples.
    pub(crate) fn order(&self, epoch: u64, len: usize) -> Result<Vec<usize>> {
        Ok(match self {
            Sampler::Sequential => (0..len).collect(),
            Sampler::Shuffle { seed } => shuffled(*seed, epoch, len),
            Sampler::LowDiscrepancy { offset } => {
                let start = offset.wrapping_add(epoch as i64);
                sample_ld(
                    len,
                    Amount::Count(len),
                    Seed::Offset(start),
                    Step::GoldenRatio,
                )?
            }
            Sampler::Indices(indices) => indices.to_vec(),
        })
    }
}

/// The permutation of [`Sampler::Shuffle`].
fn shuffled(seed: u64, epoch: u64, len: usize) -> Vec<usize> {
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

    /// The positions of `order` that this rank reads, given that the first
    /// `cursor` positions were consumed already (by all ranks together).
    ///
    /// What is left, `order[cursor..]`, is padded (wrapping to the start of
    /// `order`) or cut to a multiple of `world`, and this rank takes every
    /// `world`-th entry from its rank on. Padding wraps to the start of the
    /// whole order, so a resumed epoch pads exactly as the uninterrupted one.
    pub(crate) fn split(&self, order: &[usize], cursor: usize) -> Vec<usize> {
        let n = order.len();
        let left = n.saturating_sub(cursor);
        let total = match self.tail {
            ShardTail::Pad => left.div_ceil(self.world) * self.world,
            ShardTail::Drop => left / self.world * self.world,
        };
        if n == 0 {
            return Vec::new();
        }
        (self.rank..total)
            .step_by(self.world)
            .map(|j| {
                if j < left {
                    order[cursor + j]
                } else {
                    order[(j - left) % n]
                }
            })
            .collect()
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

    #[test]
    fn shuffle_matches_the_workload_order() {
        // WORKLOADS.md: the first indices of the epoch-0 order of seed 2024.
        assert_eq!(
            &shuffled(2024, 0, 200_000)[..4],
            &[58145, 12204, 158578, 131788]
        );
        assert_eq!(&shuffled(2024, 0, 20_000)[..4], &[12204, 7707, 8401, 10511]);
        assert_eq!(&shuffled(2024, 0, 6_000)[..4], &[1407, 4406, 5990, 5854]);
    }

    #[test]
    fn split_pads_and_drops_like_distributed_sampler() {
        let order: Vec<usize> = (0..10).collect();
        let pad = |rank| {
            Shard {
                rank,
                world: 3,
                tail: ShardTail::Pad,
            }
            .split(&order, 0)
        };
        assert_eq!(pad(0), vec![0, 3, 6, 9]);
        assert_eq!(pad(1), vec![1, 4, 7, 0]);
        assert_eq!(pad(2), vec![2, 5, 8, 1]);
        let drop = |rank| {
            Shard {
                rank,
                world: 3,
                tail: ShardTail::Drop,
            }
            .split(&order, 0)
        };
        assert_eq!(drop(0), vec![0, 3, 6]);
        assert_eq!(drop(2), vec![2, 5, 8]);
    }

    #[test]
    fn split_after_a_cursor_continues_the_same_sequence() {
        let order: Vec<usize> = (0..10).map(|i| i * 7 % 10).collect();
        let shard = |rank| Shard {
            rank,
            world: 3,
            tail: ShardTail::Pad,
        };
        for rank in 0..3 {
            let whole = shard(rank).split(&order, 0);
            // Two samples consumed on every rank: cursor 2 * world.
            assert_eq!(shard(rank).split(&order, 6), whole[2..].to_vec());
        }
    }
}

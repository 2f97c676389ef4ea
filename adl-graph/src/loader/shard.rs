//! [`Shard`]: one rank's share of an epoch, as torch's
//! `DistributedSampler` deals it, and [`ShardTail`], what happens to a
//! tail that does not divide among the ranks.

use adl_core::{Error, Result};

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

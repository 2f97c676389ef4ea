//! [`Shuffle`]: a pseudo-random permutation of every epoch, from (seed,
//! epoch) alone.

use std::sync::Arc;

use adl_core::Result;
use adl_core::sample::Permutation;
use adl_exec::mix64;

use super::{EpochOrder, Order};

/// A pseudo-random permutation that depends only on (seed, epoch):
/// [`Permutation`] of the dataset's length with the key `mix64(seed ^
/// mix64(epoch))`, evaluated per position (a Feistel network with cycle
/// walking). Constant memory and time per index, so a shuffled epoch over
/// billions of samples starts at once; each index's position is uniform
/// over many epochs, and consecutive epochs are unrelated
/// (tests/suite/shuffle_quality.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shuffle {
    /// The permutation's seed.
    pub seed: u64,
}

impl EpochOrder for Permutation {
    fn len(&self) -> usize {
        Permutation::len(self)
    }

    #[inline]
    fn index(&self, position: usize) -> Option<usize> {
        self.get(position)
    }
}

impl Order for Shuffle {
    fn len(&self, dataset_len: usize) -> usize {
        dataset_len
    }

    fn epoch(&self, epoch: u64, dataset_len: usize) -> Result<Arc<dyn EpochOrder>> {
        let key = mix64(self.seed ^ mix64(epoch));
        Ok(Arc::new(Permutation::new(dataset_len, key)))
    }

    fn describe(&self) -> String {
        format!("index-shuffle(seed={})", self.seed)
    }
}

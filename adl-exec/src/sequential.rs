use std::time::Instant;

use super::{Context, NodeId, SampleRng};

/// The sequential context: branches run one after the other on the calling
/// thread, nothing is timed, random nodes draw from
/// `SampleRng::new(seed, epoch, index, node)` for the sample index given
/// with [`at`](Sequential::at) (0 if none), and batch kernels fuse unless
/// [`fusion(false)`](Sequential::fusion).
///
/// The plain stage methods (`apply`, `sample`, `collate`, `batch`) of the
/// composite pipelines run their `_in` twins in `Sequential::new()`, and
/// `adl::pipeline::run` runs each sample in `Sequential::new().at(i)`,
/// `i` its position in the batch.
///
/// ```
/// use adl::exec::{Context, Sequential};
///
/// let cx = Sequential::new().seeded(7, 1).at(3);
/// assert_eq!(cx.sample_index(), Some(3));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sequential {
    seed: u64,
    epoch: u64,
    index: Option<usize>,
    unfused: bool,
}

impl Sequential {
    /// Seed 0, epoch 0, no sample index.
    pub fn new() -> Self {
        Self::default()
    }

    /// With the generator seed `seed` and epoch `epoch`.
    pub fn seeded(self, seed: u64, epoch: u64) -> Self {
        Sequential {
            seed,
            epoch,
            ..self
        }
    }

    /// For the sample of dataset index `index`.
    pub fn at(self, index: usize) -> Self {
        Sequential {
            index: Some(index),
            ..self
        }
    }

    /// With consecutive batch kernels fused (the default) or each run
    /// alone.
    pub fn fusion(self, on: bool) -> Self {
        Sequential {
            unfused: !on,
            ..self
        }
    }
}

impl Context for Sequential {
    fn join_dyn(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        a();
        b();
    }

    fn enter(&self, _node: NodeId) -> Option<Instant> {
        None
    }

    fn leave(&self, _node: NodeId, _entered: Option<Instant>) {}

    fn rng(&self, node: NodeId) -> SampleRng {
        SampleRng::new(self.seed, self.epoch, self.index.unwrap_or(0) as u64, node)
    }

    fn sample_index(&self) -> Option<usize> {
        self.index
    }

    fn fusion(&self) -> bool {
        !self.unfused
    }
}

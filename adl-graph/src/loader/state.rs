use serde::{Deserialize, Serialize};

/// Where an epoch stands: enough to resume it exactly, and to refuse a
/// resume that would be wrong. Small and serde-serialisable, to be stored
/// beside a model checkpoint.
///
/// The cursor counts the positions of the epoch's order consumed by all
/// ranks together (`world` positions per sample delivered on each rank), so
/// a state can be resumed with another world size (what is left is split
/// again) or another worker count (the order never depends on it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoaderState {
    /// The format's version.
    pub version: u32,
    /// The epoch.
    pub epoch: u64,
    /// Positions of the epoch's order consumed by all ranks together.
    pub cursor: u64,
    /// The sampler, as the loader describes it (its seed included).
    pub sampler: String,
    /// The generator seed of random nodes.
    pub seed: u64,
    /// A fingerprint of the pipeline's plan (its nodes, stages and types).
    pub pipeline: u64,
    /// The dataset's length.
    pub dataset_len: u64,
}

/// The current [`LoaderState::version`].
pub(crate) const STATE_VERSION: u32 = 1;

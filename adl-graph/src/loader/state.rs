use std::io::Write;
use std::path::Path;

use adl_core::{Error, Result};
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

impl LoaderState {
    /// Save the state to `path` (JSON), in one call, safely: it is written
    /// to a file beside `path`, flushed to the disk, then renamed over
    /// `path`, so a crash leaves the state saved before or the new one,
    /// never half of one. An error names the file.
    ///
    /// ```
    /// use adl::prelude::*;
    /// use adl::InMemory;
    /// use adl::graph::loader::LoaderState;
    ///
    /// let dataset: InMemory<f32> = (0..8).map(|i| i as f32).collect();
    /// let loader = Loader::new(dataset, Stages::new().with_collate(DefaultCollate))
    ///     .batch_size(2)
    ///     .shuffle(1)
    ///     .build()?;
    /// let mut epoch = loader.epoch(0);
    /// epoch.next().unwrap()?;
    /// let path = std::env::temp_dir().join(format!("adl-state-{}.json", std::process::id()));
    /// epoch.state().save(&path)?;
    /// let rest: Vec<_> = loader.resume(&LoaderState::load(&path)?)?.collect::<Result<_>>()?;
    /// assert_eq!(rest.len(), 3);
    /// # std::fs::remove_file(&path).ok();
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            Error::file(path, format!("cannot save the loader state: {what}: {e}"))
        };
        let json = serde_json::to_vec_pretty(self).map_err(|e| failed("encoding", &e))?;
        let mut name = path
            .file_name()
            .ok_or_else(|| failed("the path", &"names no file"))?
            .to_os_string();
        name.push(format!(".{}.partial", std::process::id()));
        let partial = path.with_file_name(name);
        let write = || -> std::io::Result<()> {
            let mut file = std::fs::File::create(&partial)?;
            file.write_all(&json)?;
            file.write_all(b"\n")?;
            file.sync_all()?;
            std::fs::rename(&partial, path)?;
            // The rename itself reaches the disk with its folder.
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::File::open(dir)?.sync_all()?;
            }
            Ok(())
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            failed("writing", &e)
        })
    }

    /// Load a state that [`save`](Self::save) wrote. An error names the
    /// file and says what is wrong with it (missing, not a loader state,
    /// a field of the wrong type...).
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let failed = |e: &dyn std::fmt::Display| {
            Error::file(path, format!("cannot load a loader state: {e}"))
        };
        let bytes = std::fs::read(path).map_err(|e| failed(&e))?;
        serde_json::from_slice(&bytes).map_err(|e| failed(&e))
    }
}

/// The current [`LoaderState::version`].
pub(crate) const STATE_VERSION: u32 = 1;

//! [`Listed`]: these indices, in this order, every epoch.

use std::sync::Arc;

use adl_core::{Error, Result};

use super::{EpochOrder, Order};
use crate::loader::fingerprint::Fnv;

/// These indices, in this order, every epoch (a subset, or repeats, as
/// given); each must be below the dataset's length. The list is shared
/// by every epoch, not copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed(Arc<[usize]>);

impl Listed {
    /// The order of `indices`.
    pub fn new(indices: impl Into<Arc<[usize]>>) -> Listed {
        Listed(indices.into())
    }

    /// The indices, in order.
    pub fn indices(&self) -> &[usize] {
        &self.0
    }

    /// Its epoch (the same every epoch).
    pub(crate) fn epoch_of(&self) -> impl EpochOrder + use<> {
        Epoch(Arc::clone(&self.0))
    }
}

/// An epoch of [`Listed`] is its list.
#[derive(Debug)]
struct Epoch(Arc<[usize]>);

impl EpochOrder for Epoch {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn index(&self, position: usize) -> Option<usize> {
        self.0.get(position).copied()
    }

    fn indices_into(&self, first: usize, step: usize, count: usize, into: &mut Vec<usize>) {
        let Some(rest) = self.0.get(first..) else {
            return;
        };
        if step <= 1 {
            // One rank: the batch's indices lie together, one copy.
            into.extend_from_slice(&rest[..count.min(rest.len())]);
        } else {
            into.extend(rest.iter().step_by(step).take(count));
        }
    }
}

impl Order for Listed {
    fn len(&self, _dataset_len: usize) -> usize {
        self.0.len()
    }

    fn epoch(&self, _epoch: u64, _dataset_len: usize) -> Result<Arc<dyn EpochOrder>> {
        Ok(Arc::new(self.epoch_of()))
    }

    /// Its length and a fingerprint of its indices.
    fn describe(&self) -> String {
        let mut hash = Fnv::new();
        for i in self.0.iter() {
            hash.write(&(*i as u64).to_le_bytes());
        }
        format!("indices(len={}, fnv={:016x})", self.0.len(), hash.finish())
    }

    fn check(&self, dataset_len: usize) -> Result<()> {
        match self.0.iter().enumerate().find(|(_, i)| **i >= dataset_len) {
            Some((at, &i)) => Err(Error::invalid(
                "sampler indices",
                format!(
                    "index {i} at position {at} is out of range for a dataset of {dataset_len} samples"
                ),
            )),
            None => Ok(()),
        }
    }
}

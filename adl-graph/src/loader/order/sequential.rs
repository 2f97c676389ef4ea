//! [`Sequential`]: `0, 1, ..., n - 1`, every epoch.

use std::sync::Arc;

use adl_core::Result;

use super::{EpochOrder, Order};

/// `0, 1, ..., n - 1`, every epoch: the loader's order unless it is told
/// another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sequential;

/// An epoch of [`Sequential`]: `0..len`.
#[derive(Debug, Clone, Copy)]
struct InOrder(usize);

impl EpochOrder for InOrder {
    fn len(&self) -> usize {
        self.0
    }

    #[inline]
    fn index(&self, position: usize) -> Option<usize> {
        (position < self.0).then_some(position)
    }
}

impl Order for Sequential {
    fn len(&self, dataset_len: usize) -> usize {
        dataset_len
    }

    fn epoch(&self, _epoch: u64, dataset_len: usize) -> Result<Arc<dyn EpochOrder>> {
        Ok(Arc::new(InOrder(dataset_len)))
    }

    fn describe(&self) -> String {
        "sequential".to_owned()
    }
}

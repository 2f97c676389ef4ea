//! [`IndexRange`]: the dataset `0..len`, each sample its own index.

use crate::{Dataset, Error, Result};

/// The dataset of `0..len` whose sample `i` is `i`: it holds nothing, so it
/// has any length. For tests and benchmarks of loaders and samplers at the
/// sizes of real datasets (an epoch over 10^9 samples), and as the dataset
/// of keys of a pipeline that gathers rows by index.
///
/// ```
/// use adl::{Dataset, IndexRange};
///
/// let ds = IndexRange::new(1_000_000_000);
/// assert_eq!(ds.len(), 1_000_000_000);
/// assert_eq!(ds.get(999_999_999)?, 999_999_999);
/// assert!(ds.get(1_000_000_000).is_err());
/// // A loader reads a batch's indices in one call (`Dataset::get_many`).
/// assert!(ds.reads_many());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexRange {
    len: usize,
}

impl IndexRange {
    /// The dataset `0..len`.
    pub fn new(len: usize) -> Self {
        IndexRange { len }
    }
}

impl Dataset for IndexRange {
    type Sample = usize;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Result<usize> {
        if index < self.len {
            Ok(index)
        } else {
            Err(Error::out_of_range("index range", index, self.len))
        }
    }

    /// The indices themselves: all of them in one copy when all are in
    /// range, else those in range pushed one by one.
    fn get_many(&self, indices: &[usize], into: &mut Vec<usize>, failed: &mut Vec<(usize, Error)>) {
        if indices.iter().all(|&index| index < self.len) {
            into.extend_from_slice(indices);
            return;
        }
        into.reserve(indices.len());
        for (k, &index) in indices.iter().enumerate() {
            if index < self.len {
                into.push(index);
            } else {
                failed.push((k, Error::out_of_range("index range", index, self.len)));
            }
        }
    }

    /// Each sample costs a comparison: a loader reads a batch's in one call.
    fn reads_many(&self) -> bool {
        true
    }
}

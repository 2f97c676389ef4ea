use crate::storage::{Fetched, Storage};
use crate::{Origin, Result};

/// Random access to samples: the specification's `Dataset`.
///
/// A dataset concatenates traces; a single [`Trace`](super::Trace) (and a
/// single [`Sensor`](super::Sensor) through
/// [`SensorDataset`](crate::SensorDataset)) is itself a dataset, so datasets
/// nest.
///
/// Indices are `usize`, `0 <= index < len()`: there are no negative indices.
/// An index out of range is [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange),
/// never a panic.
pub trait Dataset {
    /// What one read returns.
    type Sample;

    /// Number of samples.
    fn len(&self) -> usize;

    /// Whether the dataset has no samples.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Read sample `index`.
    fn get(&self, index: usize) -> Result<Self::Sample>;

    /// Read sample `index` with what its storage read ahead for it
    /// ([`Fetched`], from [`Storage::fetch`]): the same sample as
    /// [`get`](Dataset::get), without reading those bytes again. A
    /// wrapper hands `fetched` to its source's `get_fetched` as its `get`
    /// hands the index on (see [`storage`](crate::storage)). The default
    /// drops it and calls `get`.
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Self::Sample> {
        drop(fetched);
        self.get(index)
    }

    /// Read the samples of `indices`, in order: each one read pushed onto
    /// `into`, and each one that failed into `failed` with its place in
    /// `indices` (PyTorch's `__getitems__`). The samples pushed are the
    /// same as one [`get`](Dataset::get) each would give; the default
    /// calls `get` on each.
    ///
    /// ```
    /// use adl::{Dataset, IndexRange};
    ///
    /// let (mut samples, mut failed) = (Vec::new(), Vec::new());
    /// IndexRange::new(10).get_many(&[7, 12, 3], &mut samples, &mut failed);
    /// assert_eq!(samples, [7, 3]);
    /// assert_eq!(failed.len(), 1);
    /// assert_eq!(failed[0].0, 1);
    /// ```
    fn get_many(
        &self,
        indices: &[usize],
        into: &mut Vec<Self::Sample>,
        failed: &mut Vec<(usize, crate::Error)>,
    ) {
        for (k, &index) in indices.iter().enumerate() {
            match self.get(index) {
                Ok(sample) => into.push(sample),
                Err(e) => failed.push((k, e)),
            }
        }
    }

    /// Whether [`get_many`](Dataset::get_many) reads many samples in less
    /// time than their `get`s and is to be called in their place: a
    /// dataset of keys or of rows in memory, whose samples cost a few
    /// nanoseconds each, where a loader's work around each `get` (its
    /// error and panic handling, its statistics) would cost more than the
    /// read. A loader then calls `get_many` once for each worker's share
    /// of a batch, with no read stage, and times the call, not each
    /// sample. The default: `false`.
    fn reads_many(&self) -> bool {
        false
    }

    /// The engine's side of its samples, where it has one (see
    /// [`storage`](crate::storage)): where each is stored (a trace, files,
    /// rows: [`Origin::of`](crate::Origin::of) reads it), and what a loader
    /// can do before each `get` (a cache hint, reads ahead on a read stage
    /// of its own). A wrapper whose sample `i` is its source's sample `i`
    /// gives its source's; one that moves samples implements
    /// [`Route`](crate::storage::Route). The default: none (nothing known
    /// but the index, nothing ahead).
    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        None
    }
}

/// `Dataset` through a pointer to one.
macro_rules! forward_dataset {
    ($($pointer:ty),*) => {$(
        impl<D: Dataset + ?Sized> Dataset for $pointer {
            type Sample = D::Sample;
            fn len(&self) -> usize {
                (**self).len()
            }
            fn get(&self, index: usize) -> Result<Self::Sample> {
                (**self).get(index)
            }
            fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Self::Sample> {
                (**self).get_fetched(index, fetched)
            }
            fn get_many(
                &self,
                indices: &[usize],
                into: &mut Vec<Self::Sample>,
                failed: &mut Vec<(usize, crate::Error)>,
            ) {
                (**self).get_many(indices, into, failed)
            }
            fn reads_many(&self) -> bool {
                (**self).reads_many()
            }
            fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
                (**self).storage()
            }
        }
    )*};
}

forward_dataset!(&D, Box<D>, std::sync::Arc<D>);

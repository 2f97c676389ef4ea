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
            fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
                (**self).storage()
            }
        }
    )*};
}

forward_dataset!(&D, Box<D>, std::sync::Arc<D>);

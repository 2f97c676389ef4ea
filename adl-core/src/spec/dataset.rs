use crate::read_ahead::ReadAhead;
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

    /// A hint that sample `index` is read soon: a dataset in memory can ask
    /// the CPU to start fetching it (see [`prefetch`](crate::exec::prefetch)),
    /// so that reads in a shuffled order do not each wait for memory. The
    /// loader calls it a few samples ahead. The default does nothing; an
    /// index out of range must be ignored.
    fn prefetch(&self, index: usize) {
        let _ = index;
    }

    /// Where sample `index` comes from: its trace and each sensor's file
    /// and row, where the dataset knows them (see [`Origin`]). Reads no
    /// sample. The default knows only the index; an index out of range is
    /// [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange).
    fn origin(&self, index: usize) -> Result<Origin> {
        let len = self.len();
        if index >= len {
            return Err(crate::Error::out_of_range("dataset", index, len));
        }
        Ok(Origin::unknown(index))
    }

    /// Its reads done ahead of [`get`](Dataset::get), where it has any:
    /// a dataset of files or objects gives its [`ReadAhead`], and a loader
    /// then runs a read stage of its own (many reads in flight, bounded in
    /// bytes) ahead of the sample stage. A wrapper whose sample `i` is its
    /// source's sample `i` gives its source's; one that moves samples
    /// implements [`Route`](crate::read_ahead::Route) (see
    /// [`read_ahead`](crate::read_ahead)). The default: none.
    fn read_ahead(&self) -> Option<&dyn ReadAhead> {
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
            fn prefetch(&self, index: usize) {
                (**self).prefetch(index)
            }
            fn origin(&self, index: usize) -> Result<Origin> {
                (**self).origin(index)
            }
            fn read_ahead(&self) -> Option<&dyn ReadAhead> {
                (**self).read_ahead()
            }
        }
    )*};
}

forward_dataset!(&D, Box<D>, std::sync::Arc<D>);

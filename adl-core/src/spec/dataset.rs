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

    /// Whether [`fetch`](Dataset::fetch) reads anything ahead: a dataset
    /// of files or objects says yes, and a loader then runs a read stage
    /// of its own (many reads in flight, bounded in bytes) ahead of the
    /// sample stage. The default says no.
    fn fetches(&self) -> bool {
        false
    }

    /// Do the I/O of sample `index` now, ahead of its [`get`](Dataset::get):
    /// read its bytes (from a disk, a store) and keep them for the `get`
    /// that follows, which then only decodes. Returns the bytes kept. A
    /// loader's read stage calls it, on threads of its own, in the epoch's
    /// order; a `get` without a fetch before it reads for itself, and a
    /// failed fetch keeps nothing (the `get` reads again and reports the
    /// error). The default keeps nothing.
    fn fetch(&self, index: usize) -> Result<u64> {
        let _ = index;
        Ok(0)
    }

    /// Drop what [`fetch`](Dataset::fetch) kept for `index` without
    /// reading it (an epoch ended before its `get`). The default does
    /// nothing.
    fn release(&self, index: usize) {
        let _ = index;
    }

    /// How many reads sample `index`'s [`fetch`](Dataset::fetch) is made
    /// of that can run at once, each by [`fetch_part`](Dataset::fetch_part):
    /// a [`Recording`](crate::Recording) reads each of its sensors apart,
    /// so that a read stage waits on a slow store once per sample, not
    /// once per sensor. The default: one, the whole fetch.
    fn fetch_parts(&self, index: usize) -> usize {
        let _ = index;
        1
    }

    /// Do read `part` (below [`fetch_parts`](Dataset::fetch_parts)) of
    /// sample `index`'s [`fetch`](Dataset::fetch), keeping its bytes as a
    /// fetch does; the parts of a sample, all done, are its fetch. Returns
    /// the bytes kept. The default: part 0 is the whole fetch, and any
    /// other keeps nothing.
    fn fetch_part(&self, index: usize, part: usize) -> Result<u64> {
        if part == 0 { self.fetch(index) } else { Ok(0) }
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
            fn fetches(&self) -> bool {
                (**self).fetches()
            }
            fn fetch(&self, index: usize) -> Result<u64> {
                (**self).fetch(index)
            }
            fn release(&self, index: usize) {
                (**self).release(index)
            }
            fn fetch_parts(&self, index: usize) -> usize {
                (**self).fetch_parts(index)
            }
            fn fetch_part(&self, index: usize, part: usize) -> Result<u64> {
                (**self).fetch_part(index, part)
            }
        }
    )*};
}

forward_dataset!(&D, Box<D>, std::sync::Arc<D>);

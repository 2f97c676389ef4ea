use crate::Result;

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
        }
    )*};
}

forward_dataset!(&D, Box<D>, std::sync::Arc<D>);

//! [`InMemory`]: samples held in a `Vec`, as a dataset.

use crate::{Dataset, Error, Result};

/// Samples held in memory, read by cloning: the simplest [`Dataset`], for
/// small data, tests and examples.
///
/// ```
/// use adl::{Dataset, InMemory};
///
/// let ds = InMemory::new(vec!["a", "b"]);
/// assert_eq!(ds.get(1)?, "b");
/// assert!(ds.get(2).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InMemory<T> {
    items: Vec<T>,
}

impl<T> InMemory<T> {
    /// A dataset of `items`, in order.
    pub fn new(items: Vec<T>) -> Self {
        InMemory { items }
    }

    /// The samples.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Give the samples back.
    pub fn into_items(self) -> Vec<T> {
        self.items
    }
}

impl<T> From<Vec<T>> for InMemory<T> {
    fn from(items: Vec<T>) -> Self {
        InMemory::new(items)
    }
}

impl<T> FromIterator<T> for InMemory<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        InMemory::new(iter.into_iter().collect())
    }
}

impl<T: Clone> Dataset for InMemory<T> {
    type Sample = T;

    fn len(&self) -> usize {
        self.items.len()
    }

    fn get(&self, index: usize) -> Result<T> {
        self.items
            .get(index)
            .cloned()
            .ok_or_else(|| Error::out_of_range("in-memory dataset", index, self.items.len()))
    }
}

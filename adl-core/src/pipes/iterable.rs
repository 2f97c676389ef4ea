//! [`Iterable`]: a map-style dataset read as a stream.

use std::iter::FusedIterator;

use super::IterableDataset;
use crate::{Dataset, Result};

/// A map-style dataset used as an iterable one: its samples in index
/// order. Made by [`DatasetExt::iterable`](super::DatasetExt::iterable).
///
/// Length: the dataset's, exact.
///
/// ```
/// use adl::pipes::{DatasetExt, IterableDataset};
/// use adl::{Dataset, Result};
/// struct Numbers(usize);
/// impl Dataset for Numbers {
///     type Sample = usize;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
/// }
/// let stream = Numbers(3).iterable();
/// assert_eq!(stream.len(), Some(3));
/// assert_eq!(stream.iter().collect::<Result<Vec<_>>>()?, [0, 1, 2]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Iterable<D> {
    dataset: D,
}

impl<D> Iterable<D> {
    /// `dataset` as a stream.
    pub fn new(dataset: D) -> Self {
        Iterable { dataset }
    }

    /// The map-style dataset.
    pub fn dataset(&self) -> &D {
        &self.dataset
    }

    /// The map-style dataset back.
    pub fn into_inner(self) -> D {
        self.dataset
    }
}

impl<D: Dataset> IterableDataset for Iterable<D> {
    type Item = D::Sample;
    type Iter<'a>
        = DatasetIter<'a, D>
    where
        Self: 'a;

    fn iter(&self) -> DatasetIter<'_, D> {
        DatasetIter::new(&self.dataset)
    }

    fn len(&self) -> Option<usize> {
        Some(self.dataset.len())
    }
}

/// The samples of a map-style dataset in index order, each read on demand:
/// [`DatasetExt::iter`](super::DatasetExt::iter).
///
/// `nth` steps over samples without reading them.
#[derive(Debug, Clone)]
pub struct DatasetIter<'a, D: ?Sized> {
    dataset: &'a D,
    next: usize,
    end: usize,
}

impl<'a, D: Dataset + ?Sized> DatasetIter<'a, D> {
    /// An iterator over all of `dataset`.
    pub fn new(dataset: &'a D) -> Self {
        DatasetIter {
            dataset,
            next: 0,
            end: dataset.len(),
        }
    }
}

impl<D: Dataset + ?Sized> Iterator for DatasetIter<'_, D> {
    type Item = Result<D::Sample>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let index = self.next;
        self.next += 1;
        Some(self.dataset.get(index))
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        self.next = self.next.saturating_add(n).min(self.end);
        self.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

impl<D: Dataset + ?Sized> ExactSizeIterator for DatasetIter<'_, D> {}

impl<D: Dataset + ?Sized> FusedIterator for DatasetIter<'_, D> {}

//! [`Enumerate`]: each sample with its index.

use super::IterableDataset;
use crate::storage::Fetched;
use crate::{Dataset, Result};

/// Each sample paired with its index: [`enumerate`](super::DatasetExt::enumerate).
/// For a stream the index is the position in the stream, `Err` items
/// included.
///
/// Map-style over a map-style source, iterable over an iterable one.
///
/// Length: the source's, exact (or `None`).
///
/// ```
/// use adl::pipes::DatasetExt;
/// use adl::{Dataset, Result};
/// struct Numbers(usize);
/// impl Dataset for Numbers {
///     type Sample = usize;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
/// }
/// let numbered = Numbers(3).map(|x: usize| x * 5).enumerate();
/// assert_eq!(numbered.get(2)?, (2, 10));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Enumerate<S> {
    source: S,
}

impl<S> Enumerate<S> {
    /// `source`'s samples with their indices.
    pub fn new(source: S) -> Self {
        Enumerate { source }
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: Dataset> Dataset for Enumerate<S> {
    type Sample = (usize, S::Sample);

    fn len(&self) -> usize {
        self.source.len()
    }

    fn get(&self, index: usize) -> Result<Self::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Self::Sample> {
        Ok((index, self.source.get_fetched(index, fetched)?))
    }

    same_indices!();
}

impl<S: IterableDataset> IterableDataset for Enumerate<S> {
    type Item = (usize, S::Item);
    type Iter<'a>
        = EnumerateIter<'a, S>
    where
        Self: 'a;

    fn iter(&self) -> EnumerateIter<'_, S> {
        EnumerateIter {
            inner: self.source.iter(),
            position: 0,
        }
    }

    fn len(&self) -> Option<usize> {
        self.source.len()
    }
}

/// The iterator of an iterable [`Enumerate`].
pub struct EnumerateIter<'a, S: IterableDataset + 'a> {
    inner: S::Iter<'a>,
    position: usize,
}

impl<'a, S: IterableDataset + 'a> Iterator for EnumerateIter<'a, S> {
    type Item = Result<(usize, S::Item)>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.inner.next()?;
        let index = self.position;
        self.position = self.position.saturating_add(1);
        Some(item.map(|x| (index, x)))
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        let item = self.inner.nth(n)?;
        let index = self.position.saturating_add(n);
        self.position = index.saturating_add(1);
        Some(item.map(|x| (index, x)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

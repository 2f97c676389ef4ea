//! [`Take`]: the first `n` samples.

use super::IterableDataset;
use crate::storage::Fetched;
use crate::{Dataset, Error, Result};

/// The first `n` samples (fewer if there are fewer):
/// [`take`](super::DatasetExt::take). For a stream, `Err` items count as
/// items.
///
/// Map-style over a map-style source, iterable over an iterable one.
///
/// Length: `min(n, L)`, exact. For an iterable source of unknown length,
/// `None` (it may have fewer than `n` items), except `Some(0)` for `n = 0`.
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
/// assert_eq!(Numbers(10).take(3).len(), 3);
/// assert_eq!(Numbers(2).take(3).len(), 2);
/// assert!(Numbers(10).take(3).get(3).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Take<S> {
    source: S,
    n: usize,
}

impl<S> Take<S> {
    /// The first `n` samples of `source`.
    pub fn new(source: S, n: usize) -> Self {
        Take { source, n }
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: Dataset> Dataset for Take<S> {
    type Sample = S::Sample;

    fn len(&self) -> usize {
        self.source.len().min(self.n)
    }

    fn get(&self, index: usize) -> Result<S::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<S::Sample> {
        let len = self.len();
        if index >= len {
            return Err(Error::out_of_range("taken dataset", index, len));
        }
        self.source.get_fetched(index, fetched)
    }

    same_indices!();
}

impl<S: IterableDataset> IterableDataset for Take<S> {
    type Item = S::Item;
    type Iter<'a>
        = TakeIter<'a, S>
    where
        Self: 'a;

    fn iter(&self) -> TakeIter<'_, S> {
        TakeIter {
            inner: self.source.iter(),
            remaining: self.n,
        }
    }

    fn len(&self) -> Option<usize> {
        match self.source.len() {
            Some(l) => Some(l.min(self.n)),
            None if self.n == 0 => Some(0),
            None => None,
        }
    }
}

/// The iterator of an iterable [`Take`].
pub struct TakeIter<'a, S: IterableDataset + 'a> {
    inner: S::Iter<'a>,
    remaining: usize,
}

impl<'a, S: IterableDataset + 'a> Iterator for TakeIter<'a, S> {
    type Item = Result<S::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        self.inner.next()
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        if n >= self.remaining {
            // Past the end: nothing more is read.
            self.remaining = 0;
            return None;
        }
        self.remaining -= n + 1;
        self.inner.nth(n)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.inner.size_hint();
        (
            low.min(self.remaining),
            Some(high.map_or(self.remaining, |h| h.min(self.remaining))),
        )
    }
}

//! [`Skip`]: all samples but the first `n`.

use super::IterableDataset;
use crate::storage::{self, Ahead, Fetched, Route, Routes, Storage};
use crate::{Dataset, Error, Origin, Result};

/// All samples but the first `n`: [`skip`](super::DatasetExt::skip). The
/// skipped samples are not read (a stream steps over them with
/// `Iterator::nth`, which reads nothing for a map-style source); for a
/// stream, `Err` items count as items and are skipped like the others.
///
/// Map-style over a map-style source (`get(i) = source.get(i + n)`),
/// iterable over an iterable one.
///
/// Length: `L - n`, at least 0, exact (or `None`).
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
/// let rest = Numbers(5).skip(3);
/// assert_eq!((rest.len(), rest.get(0)?), (2, 3));
/// assert_eq!(Numbers(2).skip(3).len(), 0);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Skip<S> {
    source: S,
    n: usize,
}

impl<S> Skip<S> {
    /// `source` without its first `n` samples.
    pub fn new(source: S, n: usize) -> Self {
        Skip { source, n }
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: Dataset> Dataset for Skip<S> {
    type Sample = S::Sample;

    fn len(&self) -> usize {
        self.source.len().saturating_sub(self.n)
    }

    fn get(&self, index: usize) -> Result<S::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<S::Sample> {
        let len = self.len();
        if index >= len {
            return Err(Error::out_of_range("skipped dataset", index, len));
        }
        // index < L - n, so this does not overflow.
        self.source.get_fetched(index + self.n, fetched)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// Sample `i`'s reads: the source's sample `i + n`.
impl<S: Dataset> Route for Skip<S> {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        if index >= self.len() {
            return Routes::None;
        }
        Routes::One(storage::of(&self.source), index + self.n)
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.source.storage())
    }
}

impl<S: IterableDataset> IterableDataset for Skip<S> {
    type Item = S::Item;
    type Iter<'a>
        = SkipIter<'a, S>
    where
        Self: 'a;

    fn iter(&self) -> SkipIter<'_, S> {
        SkipIter {
            inner: self.source.iter(),
            to_skip: self.n,
        }
    }

    fn len(&self) -> Option<usize> {
        self.source.len().map(|l| l.saturating_sub(self.n))
    }
}

/// The iterator of an iterable [`Skip`].
pub struct SkipIter<'a, S: IterableDataset + 'a> {
    inner: S::Iter<'a>,
    to_skip: usize,
}

impl<'a, S: IterableDataset + 'a> Iterator for SkipIter<'a, S> {
    type Item = Result<S::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        self.nth(0)
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        if self.to_skip > 0 {
            // Step over the skipped items and read the wanted one, in one
            // `nth`: the skipped items (`Err` ones included) are not part
            // of the output and are not read from a map-style source.
            let skip = std::mem::take(&mut self.to_skip);
            return match skip.checked_add(n) {
                Some(at) => self.inner.nth(at),
                None => {
                    let _skipped = self.inner.nth(skip - 1)?;
                    self.inner.nth(n)
                }
            };
        }
        self.inner.nth(n)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.inner.size_hint();
        (
            low.saturating_sub(self.to_skip),
            high.map(|h| h.saturating_sub(self.to_skip)),
        )
    }
}

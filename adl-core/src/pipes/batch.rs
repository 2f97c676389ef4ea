//! [`Batched`]: consecutive samples grouped into `Vec`s.

use super::IterableDataset;
use crate::storage::{Ahead, Fetched, Route, Routes, Storage};
use crate::{Dataset, Error, Origin, Result};

/// Consecutive samples grouped into `Vec`s of `size`:
/// [`batch`](super::DatasetExt::batch). The last batch may be shorter (the
/// default), or dropped with [`drop_last`](Batched::drop_last). Collate a
/// batch afterwards with `.map(…)`.
///
/// Map-style over a map-style source: `get(i)` reads samples
/// `i * size .. min((i + 1) * size, len)`. Iterable over an iterable one.
/// A batch holding an item that failed is an `Err` (the first error);
/// the other items of that batch are consumed, so the batches after it are
/// the same as without the error.
///
/// Length, for a source of length `L`: `ceil(L / size)`, or
/// `floor(L / size)` with `drop_last`; exact (`None` for a source of
/// unknown length).
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
/// let batches = Numbers(5).batch(2)?;
/// assert_eq!(batches.len(), 3);
/// assert_eq!(batches.get(2)?, [4]);
/// assert_eq!(Numbers(5).batch(2)?.drop_last(true).len(), 2);
/// assert!(Numbers(5).batch(0).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Batched<S> {
    source: S,
    size: usize,
    drop_last: bool,
}

impl<S> Batched<S> {
    /// `source` in batches of `size`, keeping a short last batch. A zero
    /// size is an [`Error::InvalidParameter`].
    pub fn new(source: S, size: usize) -> Result<Self> {
        Ok(Batched {
            source,
            size: Error::nonzero("batch size", size)?,
            drop_last: false,
        })
    }

    /// Whether to drop a last batch shorter than the batch size (its
    /// samples are then never read).
    pub fn drop_last(mut self, drop_last: bool) -> Self {
        self.drop_last = drop_last;
        self
    }

    /// The batch size.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }

    fn batches(&self, items: usize) -> usize {
        if self.drop_last {
            items / self.size
        } else {
            items.div_ceil(self.size)
        }
    }
}

impl<S: Dataset> Dataset for Batched<S> {
    type Sample = Vec<S::Sample>;

    fn len(&self) -> usize {
        self.batches(self.source.len())
    }

    fn get(&self, index: usize) -> Result<Vec<S::Sample>> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Vec<S::Sample>> {
        let len = self.len();
        if index >= len {
            return Err(Error::out_of_range("batch dataset", index, len));
        }
        let members = self.members(index);
        let reads = fetched.split(members.len());
        (members.zip(reads))
            .map(|(i, read)| self.source.get_fetched(i, read))
            .collect()
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

impl<S: Dataset> Batched<S> {
    /// The source's samples in batch `index` (below `len()`).
    fn members(&self, index: usize) -> std::ops::Range<usize> {
        // index < len <= ceil(L / size), so start < L and nothing overflows.
        let start = index * self.size;
        start..start + self.size.min(self.source.len() - start)
    }
}

/// A batch's reads are those of each of its samples.
impl<S: Dataset> Route for Batched<S> {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        if index >= self.len() {
            return Routes::None;
        }
        Routes::each(self.source.storage(), self.members(index))
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.source.storage())
    }
}

impl<S: IterableDataset> IterableDataset for Batched<S> {
    type Item = Vec<S::Item>;
    type Iter<'a>
        = BatchedIter<'a, S>
    where
        Self: 'a;

    fn iter(&self) -> BatchedIter<'_, S> {
        BatchedIter {
            inner: self.source.iter(),
            size: self.size,
            drop_last: self.drop_last,
            done: false,
        }
    }

    fn len(&self) -> Option<usize> {
        self.source.len().map(|l| self.batches(l))
    }
}

/// The iterator of an iterable [`Batched`].
pub struct BatchedIter<'a, S: IterableDataset + 'a> {
    inner: S::Iter<'a>,
    size: usize,
    drop_last: bool,
    done: bool,
}

impl<'a, S: IterableDataset + 'a> Iterator for BatchedIter<'a, S> {
    type Item = Result<Vec<S::Item>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut batch = Vec::with_capacity(self.size.min(1024));
        let mut error = None;
        let mut count = 0;
        while count < self.size {
            match self.inner.next() {
                None => {
                    self.done = true;
                    break;
                }
                Some(Ok(item)) if error.is_none() => batch.push(item),
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    error.get_or_insert(e);
                }
            }
            count += 1;
        }
        if count == 0 || (count < self.size && self.drop_last) {
            return None;
        }
        Some(match error {
            Some(e) => Err(e),
            None => Ok(batch),
        })
    }
}

//! [`Cache`]: samples memoised after their first read.

use std::sync::OnceLock;

use super::IterableDataset;
use crate::storage::{Fetched, Storage};
use crate::{Dataset, Error, Origin, Result};

/// Samples kept in memory after their first successful read, then cloned
/// out: [`cache`](super::DatasetExt::cache). Thread-safe (one `OnceLock`
/// per sample); errors are not cached, so a failed read is tried again
/// next time. Two threads asking for the same uncached sample at the same
/// time may both read it; one copy is kept.
///
/// Map-style over a map-style source: the cells are allocated on the first
/// read. Iterable over an iterable one: the first pass that reaches the end
/// without an error is kept, and later passes replay it without reading
/// the source (a pass stopped early, or with an error, keeps nothing).
///
/// Length: the source's, exact (or `None`). An iterable cache's length is
/// exact once a full pass is kept.
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
/// let cached = Numbers(3).map(|x: usize| x * x).cache();
/// assert_eq!(cached.get(2)?, 4); // computed
/// assert_eq!(cached.get(2)?, 4); // remembered
/// assert_eq!(cached.cached(), 1);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Cache<S, T> {
    source: S,
    /// One cell per sample (map-style), allocated on the first read.
    cells: OnceLock<Box<[OnceLock<T>]>>,
    /// The items of a full pass (iterable).
    pass: OnceLock<Vec<T>>,
}

impl<S, T> Cache<S, T> {
    /// `source` with its samples memoised.
    pub fn new(source: S) -> Self {
        Cache {
            source,
            cells: OnceLock::new(),
            pass: OnceLock::new(),
        }
    }

    /// How many samples are in memory.
    pub fn cached(&self) -> usize {
        let cells = self.cells.get().map_or(0, |cells| {
            cells.iter().filter(|c| c.get().is_some()).count()
        });
        cells + self.pass.get().map_or(0, Vec::len)
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: Dataset> Dataset for Cache<S, S::Sample>
where
    S::Sample: Clone,
{
    type Sample = S::Sample;

    fn len(&self) -> usize {
        self.source.len()
    }

    fn get(&self, index: usize) -> Result<S::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<S::Sample> {
        let cells = self
            .cells
            .get_or_init(|| (0..self.source.len()).map(|_| OnceLock::new()).collect());
        let Some(cell) = cells.get(index) else {
            return Err(Error::out_of_range("cached dataset", index, cells.len()));
        };
        if let Some(sample) = cell.get() {
            return Ok(sample.clone());
        }
        let sample = self.source.get_fetched(index, fetched)?;
        Ok(cell.get_or_init(|| sample).clone())
    }

    /// Its source's origins, and nothing ahead: a cached sample is not
    /// read again.
    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

impl<S: Dataset> Storage for Cache<S, S::Sample> {
    type Origin = Origin;

    fn origin(&self, index: usize) -> Option<Origin> {
        self.source.storage()?.origin(index)
    }
}

impl<S: IterableDataset> IterableDataset for Cache<S, S::Item>
where
    S::Item: Clone,
{
    type Item = S::Item;
    type Iter<'a>
        = CacheIter<'a, S>
    where
        Self: 'a;

    fn iter(&self) -> CacheIter<'_, S> {
        match self.pass.get() {
            Some(items) => CacheIter::Replay(items.iter()),
            None => CacheIter::Record {
                inner: self.source.iter(),
                kept: Some(Vec::new()),
                pass: &self.pass,
            },
        }
    }

    fn len(&self) -> Option<usize> {
        match self.pass.get() {
            Some(items) => Some(items.len()),
            None => self.source.len(),
        }
    }
}

/// The iterator of an iterable [`Cache`]: the kept pass, or a pass through
/// the source that is kept if it completes without error.
pub enum CacheIter<'a, S: IterableDataset + 'a> {
    /// Replaying a kept pass.
    Replay(std::slice::Iter<'a, S::Item>),
    /// Reading the source, keeping its items.
    Record {
        /// The source's pass.
        inner: S::Iter<'a>,
        /// The items so far; `None` once an error was met.
        kept: Option<Vec<S::Item>>,
        /// Where a completed pass is kept.
        pass: &'a OnceLock<Vec<S::Item>>,
    },
}

impl<'a, S: IterableDataset + 'a> Iterator for CacheIter<'a, S>
where
    S::Item: Clone,
{
    type Item = Result<S::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            CacheIter::Replay(items) => items.next().cloned().map(Ok),
            CacheIter::Record { inner, kept, pass } => match inner.next() {
                Some(Ok(item)) => {
                    if let Some(kept) = kept {
                        kept.push(item.clone());
                    }
                    Some(Ok(item))
                }
                Some(Err(e)) => {
                    *kept = None;
                    Some(Err(e))
                }
                None => {
                    if let Some(items) = kept.take() {
                        let _ = pass.set(items);
                    }
                    None
                }
            },
        }
    }
}

//! [`Filter`]: the items a predicate keeps.

use super::IterableDataset;
use crate::Result;

/// The items for which a predicate is true, in order:
/// [`filter`](super::DatasetExt::filter). Always iterable: which index of
/// the result an item has is not known without reading all before it.
///
/// Length: `None`, since how many items pass is not known without reading
/// them; `Some(0)` only for a source known to be empty.
///
/// `Err` items of the source pass through (the predicate cannot judge
/// them).
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
/// let odd = Numbers(6).filter(|x: &usize| x % 2 == 1);
/// assert_eq!(odd.len(), None);
/// assert_eq!(odd.iter().collect::<Result<Vec<_>>>()?, [1, 3, 5]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Filter<S, P> {
    source: S,
    predicate: P,
}

impl<S, P> Filter<S, P> {
    /// The items of `source` for which `predicate` is true.
    pub fn new(source: S, predicate: P) -> Self {
        Filter { source, predicate }
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: IterableDataset, P: Fn(&S::Item) -> bool> IterableDataset for Filter<S, P> {
    type Item = S::Item;
    type Iter<'a>
        = FilterIter<'a, S, P>
    where
        Self: 'a;

    fn iter(&self) -> FilterIter<'_, S, P> {
        FilterIter {
            inner: self.source.iter(),
            predicate: &self.predicate,
        }
    }

    fn len(&self) -> Option<usize> {
        match self.source.len() {
            Some(0) => Some(0),
            _ => None,
        }
    }
}

/// The iterator of a [`Filter`].
pub struct FilterIter<'a, S: IterableDataset + 'a, P> {
    inner: S::Iter<'a>,
    predicate: &'a P,
}

impl<'a, S: IterableDataset + 'a, P: Fn(&S::Item) -> bool> Iterator for FilterIter<'a, S, P> {
    type Item = Result<S::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.inner.next()? {
                Ok(item) if !(self.predicate)(&item) => continue,
                other => return Some(other),
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.inner.size_hint().1)
    }
}

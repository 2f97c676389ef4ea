//! [`Zip`]: two datasets side by side.

use super::IterableDataset;
use crate::storage::{Ahead, Fetched, Route, Routes, Storage};
use crate::{Dataset, Error, Origin, Result};

/// Pairs of samples at the same index of two datasets:
/// [`zip`](super::DatasetExt::zip).
///
/// Map-style over two map-style datasets (`get(i) = (a.get(i), b.get(i))`),
/// iterable over two iterable ones. A pair where either item failed is an
/// `Err` (the first's error first); both streams still advance together.
///
/// Length: `min(La, Lb)`, exact. For iterable sources, `None` unless both
/// lengths are known or one is known to be 0.
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
/// let pairs = Numbers(3).zip(Numbers(5).map(|x: usize| x * 10));
/// assert_eq!(pairs.len(), 3);
/// assert_eq!(pairs.get(2)?, (2, 20));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Zip<A, B> {
    first: A,
    second: B,
}

impl<A, B> Zip<A, B> {
    /// `first` and `second` side by side.
    pub fn new(first: A, second: B) -> Self {
        Zip { first, second }
    }

    /// The first dataset.
    pub fn first(&self) -> &A {
        &self.first
    }

    /// The second dataset.
    pub fn second(&self) -> &B {
        &self.second
    }
}

impl<A: Dataset, B: Dataset> Dataset for Zip<A, B> {
    type Sample = (A::Sample, B::Sample);

    fn len(&self) -> usize {
        self.first.len().min(self.second.len())
    }

    fn get(&self, index: usize) -> Result<Self::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Self::Sample> {
        let len = self.len();
        if index >= len {
            return Err(Error::out_of_range("zipped dataset", index, len));
        }
        let mut reads = fetched.split(2);
        let (first, second) = (
            reads.next().unwrap_or_default(),
            reads.next().unwrap_or_default(),
        );
        Ok((
            self.first.get_fetched(index, first)?,
            self.second.get_fetched(index, second)?,
        ))
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// A pair's reads are both datasets' at the index, one part each.
impl<A: Dataset, B: Dataset> Route for Zip<A, B> {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        if index >= self.len() {
            return Routes::None;
        }
        // Both, one part each (a source without storage knows only its
        // index), so that `get_fetched` finds each its own part.
        Routes::Many(vec![
            (crate::storage::of(&self.first), index),
            (crate::storage::of(&self.second), index),
        ])
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.first.storage()).max(Ahead::of(self.second.storage()))
    }
}

impl<A: IterableDataset, B: IterableDataset> IterableDataset for Zip<A, B> {
    type Item = (A::Item, B::Item);
    type Iter<'a>
        = ZipIter<'a, A, B>
    where
        Self: 'a;

    fn iter(&self) -> ZipIter<'_, A, B> {
        ZipIter {
            first: self.first.iter(),
            second: self.second.iter(),
        }
    }

    fn len(&self) -> Option<usize> {
        match (self.first.len(), self.second.len()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (Some(0), None) | (None, Some(0)) => Some(0),
            _ => None,
        }
    }
}

/// The iterator of an iterable [`Zip`].
pub struct ZipIter<'a, A: IterableDataset + 'a, B: IterableDataset + 'a> {
    first: A::Iter<'a>,
    second: B::Iter<'a>,
}

fn pair<X, Y>(x: Option<Result<X>>, y: Option<Result<Y>>) -> Option<Result<(X, Y)>> {
    match (x?, y?) {
        (Ok(x), Ok(y)) => Some(Ok((x, y))),
        (Err(e), _) | (_, Err(e)) => Some(Err(e)),
    }
}

impl<'a, A: IterableDataset + 'a, B: IterableDataset + 'a> Iterator for ZipIter<'a, A, B> {
    type Item = Result<(A::Item, B::Item)>;

    fn next(&mut self) -> Option<Self::Item> {
        let x = self.first.next();
        let y = self.second.next();
        pair(x, y)
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        let x = self.first.nth(n);
        let y = self.second.nth(n);
        pair(x, y)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (la, ha) = self.first.size_hint();
        let (lb, hb) = self.second.size_hint();
        let high = match (ha, hb) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        (la.min(lb), high)
    }
}

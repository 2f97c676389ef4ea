//! [`Chain`]: one dataset after another.

use super::IterableDataset;
use crate::storage::{self, Ahead, Fetched, Route, Routes, Storage};
use crate::{Dataset, Error, Origin, Result};

/// The samples of one dataset, then those of another with the same sample
/// type: [`chain`](super::DatasetExt::chain), as `Iterator::chain`. (For many datasets of one
/// type, see [`Concat`](crate::Concat).)
///
/// Map-style over two map-style datasets (`get(i)` reads the first for
/// `i < La`, the second at `i - La` after), iterable over two iterable
/// ones.
///
/// Length: `La + Lb`, exact. For iterable sources, `None` unless both
/// lengths are known (and their sum fits a `usize`).
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
/// let both = Numbers(2).chain(Numbers(3))?;
/// assert_eq!(both.len(), 5);
/// assert_eq!((both.get(1)?, both.get(2)?), (1, 0));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Chain<A, B> {
    first: A,
    second: B,
}

impl<A: Dataset, B: Dataset<Sample = A::Sample>> Chain<A, B> {
    /// `first` then `second`, map-style. Fails only if the total length
    /// does not fit a `usize` ([`Error::InvalidParameter`]).
    pub fn new(first: A, second: B) -> Result<Self> {
        if first.len().checked_add(second.len()).is_none() {
            return Err(Error::invalid(
                "chain",
                "the total length of the two datasets overflows usize",
            ));
        }
        Ok(Chain { first, second })
    }
}

impl<A, B> Chain<A, B> {
    /// `first` then `second`, for iterable datasets (whose lengths may be
    /// unknown, so nothing is checked).
    pub fn streams(first: A, second: B) -> Self {
        Chain { first, second }
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

impl<A: Dataset, B: Dataset<Sample = A::Sample>> Dataset for Chain<A, B> {
    type Sample = A::Sample;

    fn len(&self) -> usize {
        // Checked at construction; saturating keeps a dataset whose length
        // changed since from panicking.
        self.first.len().saturating_add(self.second.len())
    }

    fn get(&self, index: usize) -> Result<A::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<A::Sample> {
        let split = self.first.len();
        if index < split {
            return self.first.get_fetched(index, fetched);
        }
        let len = self.len();
        if index >= len {
            return Err(Error::out_of_range("chained dataset", index, len));
        }
        self.second.get_fetched(index - split, fetched)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// Sample `i`'s reads: the first's below its length, the second's after.
impl<A: Dataset, B: Dataset<Sample = A::Sample>> Route for Chain<A, B> {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        let split = self.first.len();
        if index < split {
            Routes::One(storage::of(&self.first), index)
        } else if index < self.len() {
            Routes::One(storage::of(&self.second), index - split)
        } else {
            Routes::None
        }
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.first.storage()).max(Ahead::of(self.second.storage()))
    }
}

impl<A: IterableDataset, B: IterableDataset<Item = A::Item>> IterableDataset for Chain<A, B> {
    type Item = A::Item;
    type Iter<'a>
        = ChainIter<'a, A, B>
    where
        Self: 'a;

    fn iter(&self) -> ChainIter<'_, A, B> {
        ChainIter {
            first: Some(self.first.iter()),
            second: self.second.iter(),
        }
    }

    fn len(&self) -> Option<usize> {
        self.first.len()?.checked_add(self.second.len()?)
    }
}

/// The iterator of an iterable [`Chain`].
pub struct ChainIter<'a, A: IterableDataset + 'a, B: IterableDataset + 'a> {
    first: Option<A::Iter<'a>>,
    second: B::Iter<'a>,
}

impl<'a, A, B> Iterator for ChainIter<'a, A, B>
where
    A: IterableDataset + 'a,
    B: IterableDataset<Item = A::Item> + 'a,
{
    type Item = Result<A::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(first) = &mut self.first {
            match first.next() {
                Some(item) => return Some(item),
                None => self.first = None,
            }
        }
        self.second.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.second.size_hint();
        match &self.first {
            None => (low, high),
            Some(first) => {
                let (l, h) = first.size_hint();
                (
                    low.saturating_add(l),
                    high.zip(h).and_then(|(a, b)| a.checked_add(b)),
                )
            }
        }
    }
}

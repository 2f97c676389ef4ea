//! [`Map`]: a transform applied to every sample.

use super::{IterableDataset, pipe_error};
use crate::storage::Fetched;
use crate::{Dataset, Result, Transform};

/// A [`Transform`] applied to every sample:
/// [`map`](super::DatasetExt::map) and
/// [`try_map`](super::DatasetExt::try_map).
///
/// Map-style over a map-style source (`get(i) = transform(source.get(i))`),
/// iterable over an iterable one. The transform runs when a sample is read,
/// never before.
///
/// Length: the source's, exact (or `None` if the source's is unknown).
///
/// An error of the source passes through unchanged; an error of the
/// transform is an [`Error::Pipe`](crate::Error::Pipe) `"map"` with the
/// sample's index.
///
/// ```
/// use adl::pipes::{DatasetExt, Map, TransformedDataset};
/// use adl::{Dataset, Result};
/// struct Numbers(usize);
/// impl Dataset for Numbers {
///     type Sample = usize;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
/// }
/// let doubled = Numbers(4).map(|x: usize| 2 * x);
/// assert_eq!((doubled.len(), doubled.get(3)?), (4, 6));
///
/// // The reference's name for the same thing.
/// let same: TransformedDataset<_, _> = Map::new(Numbers(4), |x: usize| 2 * x);
/// assert_eq!(same.get(3)?, 6);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Map<S, T> {
    source: S,
    transform: T,
}

/// The reference's `TransformedDataset(dataset, transform)`: a [`Map`].
pub type TransformedDataset<S, T> = Map<S, T>;

impl<S, T> Map<S, T> {
    /// `transform` applied to every sample of `source`.
    pub fn new(source: S, transform: T) -> Self {
        Map { source, transform }
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The transform.
    pub fn transform(&self) -> &T {
        &self.transform
    }
}

impl<S: Dataset, T: Transform<S::Sample>> Dataset for Map<S, T> {
    type Sample = T::Output;

    fn len(&self) -> usize {
        self.source.len()
    }

    fn get(&self, index: usize) -> Result<T::Output> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<T::Output> {
        let sample = self.source.get_fetched(index, fetched)?;
        self.transform
            .apply(sample)
            .map_err(|e| pipe_error("map", index, e))
    }

    same_indices!();
}

impl<S: IterableDataset, T: Transform<S::Item>> IterableDataset for Map<S, T> {
    type Item = T::Output;
    type Iter<'a>
        = MapIter<'a, S, T>
    where
        Self: 'a;

    fn iter(&self) -> MapIter<'_, S, T> {
        MapIter {
            inner: self.source.iter(),
            transform: &self.transform,
            position: 0,
        }
    }

    fn len(&self) -> Option<usize> {
        self.source.len()
    }
}

/// The iterator of an iterable [`Map`].
pub struct MapIter<'a, S: IterableDataset + 'a, T> {
    inner: S::Iter<'a>,
    transform: &'a T,
    /// Stream position of the next item of `inner`.
    position: usize,
}

impl<'a, S: IterableDataset + 'a, T: Transform<S::Item>> MapIter<'a, S, T> {
    fn apply(&self, item: Result<S::Item>, index: usize) -> Result<T::Output> {
        self.transform
            .apply(item?)
            .map_err(|e| pipe_error("map", index, e))
    }
}

impl<'a, S: IterableDataset + 'a, T: Transform<S::Item>> Iterator for MapIter<'a, S, T> {
    type Item = Result<T::Output>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.inner.next()?;
        let index = self.position;
        self.position = self.position.saturating_add(1);
        Some(self.apply(item, index))
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        let item = self.inner.nth(n)?;
        let index = self.position.saturating_add(n);
        self.position = index.saturating_add(1);
        Some(self.apply(item, index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// A fallible function `Fn(In) -> Result<Out>` as a [`Transform`]; made by
/// [`try_map`](super::DatasetExt::try_map).
///
/// (A plain closure returning `Result` is a transform whose output *is* a
/// `Result`; wrap it in `ResultFn` to make its errors the transform's.)
///
/// ```
/// use adl::{Error, Transform, pipes::ResultFn};
///
/// let half = ResultFn(|x: u32| {
///     if x % 2 == 0 { Ok(x / 2) } else { Err(Error::invalid("x", "odd")) }
/// });
/// assert_eq!(half.apply(4)?, 2);
/// assert!(half.apply(3).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ResultFn<F>(pub F);

impl<In, Out, F: Fn(In) -> Result<Out>> Transform<In> for ResultFn<F> {
    type Output = Out;

    fn apply(&self, input: In) -> Result<Out> {
        (self.0)(input)
    }
}

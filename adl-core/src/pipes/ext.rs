//! The functional API: [`DatasetExt`] and [`IterableExt`].

use super::{
    Batched, Cache, Chain, DatasetIter, DatasetMeta, Enumerate, Filter, FlatMap, Iterable,
    IterableDataset, Map, ResultFn, Shuffle, Shuffled, Skip, Take, Windows, Zip,
};
use crate::{Dataset, Result, Transform};

/// Adaptors for every map-style [`Dataset`], in the style of DataPipes and
/// std iterators. Each is lazy (nothing is read until a sample is) and
/// documents its length; those that keep random access return a map-style
/// dataset, `filter`, `flat_map` and `shuffle` an iterable one. See the
/// [module documentation](super) for the table.
///
/// ```
/// use adl::pipes::{DatasetExt, IterableDataset};
/// use adl::{Dataset, Result};
///
/// struct Numbers(usize);
/// impl Dataset for Numbers {
///     type Sample = usize;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
/// }
///
/// let ds = Numbers(10).skip(2).take(6).map(|x: usize| x * 10).window(2, 2)?;
/// assert_eq!(ds.len(), 3);
/// assert_eq!(ds.get(1)?, [40, 50]);
/// assert_eq!(ds.iter().count(), 3);
/// # Ok::<(), adl::Error>(())
/// ```
pub trait DatasetExt: Dataset + Sized {
    /// The samples in index order, each read when the iterator reaches it.
    fn iter(&self) -> DatasetIter<'_, Self> {
        DatasetIter::new(self)
    }

    /// This dataset as an [`IterableDataset`] (samples in index order).
    fn iterable(self) -> Iterable<Self> {
        Iterable::new(self)
    }

    /// `transform` applied to every sample: [`Map`] (the reference's
    /// `TransformedDataset`). Map-style; length `L`.
    fn map<T: Transform<Self::Sample>>(self, transform: T) -> Map<Self, T> {
        Map::new(self, transform)
    }

    /// A fallible function applied to every sample; its errors are the
    /// samples' errors ([`Error::Pipe`](crate::Error::Pipe) `"map"`).
    /// Map-style; length `L`.
    fn try_map<F, Out>(self, function: F) -> Map<Self, ResultFn<F>>
    where
        F: Fn(Self::Sample) -> Result<Out>,
    {
        Map::new(self, ResultFn(function))
    }

    /// The samples for which `predicate` is true: [`Filter`]. Iterable;
    /// length `None`.
    fn filter<P: Fn(&Self::Sample) -> bool>(self, predicate: P) -> Filter<Iterable<Self>, P> {
        Filter::new(self.iterable(), predicate)
    }

    /// Each sample mapped to zero or more items, with an error policy and a
    /// worker split: [`FlatMap`]. Iterable; length `None`.
    fn flat_map<F, U>(self, function: F) -> FlatMap<Iterable<Self>, F>
    where
        F: Fn(Self::Sample) -> Result<U>,
        U: IntoIterator,
    {
        FlatMap::new(self.iterable(), function)
    }

    /// A buffered shuffle through `buffer` samples, seeded: [`Shuffle`].
    /// Iterable; length `L`. A zero buffer is an
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter).
    fn shuffle(self, buffer: usize, seed: u64) -> Result<Shuffle<Iterable<Self>>> {
        Shuffle::new(self.iterable(), buffer, seed)
    }

    /// A full seeded random permutation, keeping random access:
    /// [`Shuffled`]. Map-style; length `L`.
    fn shuffled(self, seed: u64) -> Shuffled<Self> {
        Shuffled::new(self, seed)
    }

    /// Consecutive samples in `Vec`s of `size`, the last one possibly
    /// shorter (see [`Batched::drop_last`]): [`Batched`]. Map-style; length
    /// `ceil(L / size)`. A zero size is an
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter).
    ///
    /// (Unlike [`Sensor::stream_batches`](crate::Sensor::stream_batches),
    /// which follows the reference and yields only full batches, the
    /// partial last batch is kept unless dropped.)
    fn batch(self, size: usize) -> Result<Batched<Self>> {
        Batched::new(self, size)
    }

    /// This dataset's samples, then `other`'s: [`Chain`]. Map-style; length
    /// `L + Lo`. Fails only if that overflows `usize`.
    fn chain<O: Dataset<Sample = Self::Sample>>(self, other: O) -> Result<Chain<Self, O>> {
        Chain::new(self, other)
    }

    /// Pairs of samples at the same index: [`Zip`]. Map-style; length
    /// `min(L, Lo)`.
    fn zip<O: Dataset>(self, other: O) -> Zip<Self, O> {
        Zip::new(self, other)
    }

    /// Each sample with its index: [`Enumerate`]. Map-style; length `L`.
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// The first `n` samples: [`Take`]. Map-style; length `min(n, L)`.
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// All samples but the first `n`: [`Skip`]. Map-style; length
    /// `L - n`, at least 0.
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// Sliding windows of `size` samples, one every `step` (1 for every
    /// position): [`Windows`]. Map-style; length `(L - size) / step + 1`,
    /// or 0. A zero size or step is an
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter).
    fn window(self, size: usize, step: usize) -> Result<Windows<Self>> {
        Windows::new(self, size, step)
    }

    /// Samples memoised after their first read: [`Cache`]. Map-style;
    /// length `L`.
    fn cache(self) -> Cache<Self, Self::Sample>
    where
        Self::Sample: Clone,
    {
        Cache::new(self)
    }

    /// Every sample with a `"meta"` entry (a sample's own wins):
    /// [`DatasetMeta`]. Map-style; length `L`.
    fn with_meta<M>(self, meta: M) -> DatasetMeta<Self, M> {
        DatasetMeta::new(self, meta)
    }
}

impl<D: Dataset> DatasetExt for D {}

/// Adaptors for every [`IterableDataset`], the same as [`DatasetExt`]'s
/// but on streams: each returns an iterable dataset. Lengths follow the
/// [module table](super); an unknown source length stays unknown.
///
/// ```
/// use adl::pipes::{DatasetExt, IterableDataset, IterableExt};
/// use adl::{Dataset, Result};
///
/// struct Numbers(usize);
/// impl Dataset for Numbers {
///     type Sample = usize;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
/// }
///
/// let evens = Numbers(10).filter(|x: &usize| x % 2 == 0).map(|x: usize| x + 1).enumerate();
/// let items: Vec<(usize, usize)> = evens.iter().collect::<Result<_>>()?;
/// assert_eq!(items, [(0, 1), (1, 3), (2, 5), (3, 7), (4, 9)]);
/// # Ok::<(), adl::Error>(())
/// ```
pub trait IterableExt: IterableDataset + Sized {
    /// `transform` applied to every item: [`Map`]. Length: the source's.
    fn map<T: Transform<Self::Item>>(self, transform: T) -> Map<Self, T> {
        Map::new(self, transform)
    }

    /// A fallible function applied to every item; its errors are `Err`
    /// items ([`Error::Pipe`](crate::Error::Pipe) `"map"`). Length: the
    /// source's.
    fn try_map<F, Out>(self, function: F) -> Map<Self, ResultFn<F>>
    where
        F: Fn(Self::Item) -> Result<Out>,
    {
        Map::new(self, ResultFn(function))
    }

    /// The items for which `predicate` is true: [`Filter`]. Length `None`.
    fn filter<P: Fn(&Self::Item) -> bool>(self, predicate: P) -> Filter<Self, P> {
        Filter::new(self, predicate)
    }

    /// Each item mapped to zero or more items: [`FlatMap`]. Length `None`.
    fn flat_map<F, U>(self, function: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> Result<U>,
        U: IntoIterator,
    {
        FlatMap::new(self, function)
    }

    /// A buffered shuffle through `buffer` items, seeded: [`Shuffle`].
    /// Length: the source's. A zero buffer is an
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter).
    fn shuffle(self, buffer: usize, seed: u64) -> Result<Shuffle<Self>> {
        Shuffle::new(self, buffer, seed)
    }

    /// Consecutive items in `Vec`s of `size`: [`Batched`]. Length
    /// `ceil(L / size)` (or `None`). A zero size is an
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter).
    fn batch(self, size: usize) -> Result<Batched<Self>> {
        Batched::new(self, size)
    }

    /// This stream, then `other`: [`Chain`]. Length: the sum if both are
    /// known, else `None`.
    fn chain<O: IterableDataset<Item = Self::Item>>(self, other: O) -> Chain<Self, O> {
        Chain::streams(self, other)
    }

    /// Pairs of items at the same position: [`Zip`]. Length: the minimum
    /// if both are known, else `None` (or `Some(0)` if one is empty).
    fn zip<O: IterableDataset>(self, other: O) -> Zip<Self, O> {
        Zip::new(self, other)
    }

    /// Each item with its position in the stream: [`Enumerate`]. Length:
    /// the source's.
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// The first `n` items: [`Take`]. Length `min(n, L)`, or `None`.
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// All items but the first `n`: [`Skip`]. Length `L - n`, at least 0,
    /// or `None`.
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// Sliding windows of `size` items, one every `step`: [`Windows`].
    /// Length `(L - size) / step + 1`, or 0, or `None`. A zero size or
    /// step is an [`Error::InvalidParameter`](crate::Error::InvalidParameter).
    fn window(self, size: usize, step: usize) -> Result<Windows<Self>>
    where
        Self::Item: Clone,
    {
        Windows::new(self, size, step)
    }

    /// The first complete pass kept in memory and replayed: [`Cache`].
    /// Length: the source's, exact once cached.
    fn cache(self) -> Cache<Self, Self::Item>
    where
        Self::Item: Clone,
    {
        Cache::new(self)
    }

    /// Every item with a `"meta"` entry (an item's own wins):
    /// [`DatasetMeta`]. Length: the source's.
    fn with_meta<M>(self, meta: M) -> DatasetMeta<Self, M> {
        DatasetMeta::new(self, meta)
    }
}

impl<I: IterableDataset> IterableExt for I {}

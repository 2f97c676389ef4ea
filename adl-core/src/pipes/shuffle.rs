//! [`Shuffle`]: a buffered, seeded shuffle of a stream.

use super::IterableDataset;
use crate::{Error, Result};
use adl_exec::rng::SplitMix64;

/// A buffered shuffle, as DataPipes' `Shuffler`:
/// [`shuffle`](super::DatasetExt::shuffle). Items fill a buffer of
/// `buffer` items; then each new item takes the place of a randomly chosen
/// buffered one, which is yielded; at the end the buffer is drained in
/// random order. A buffer of 1 keeps the order; a buffer at least as long
/// as the stream gives a uniformly random permutation.
///
/// The order depends only on the seed (a self-contained SplitMix64): every
/// pass of the same `Shuffle` gives the same order. Use another seed per
/// epoch for another order. `Err` items are yielded as soon as they are
/// read, not buffered.
///
/// Always iterable (see [`shuffled`](super::DatasetExt::shuffled) for a
/// map-style permutation). Length: the source's, exact (the same items in
/// another order).
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
/// let shuffled = Numbers(10).shuffle(4, 42)?;
/// let once: Vec<usize> = shuffled.iter().collect::<Result<_>>()?;
/// let again: Vec<usize> = shuffled.iter().collect::<Result<_>>()?;
/// assert_eq!(once, again);
/// let mut sorted = once.clone();
/// sorted.sort();
/// assert_eq!(sorted, (0..10).collect::<Vec<_>>());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Shuffle<S> {
    source: S,
    buffer: usize,
    seed: u64,
}

impl<S> Shuffle<S> {
    /// `source` shuffled through a buffer of `buffer` items, by `seed`.
    /// A zero buffer is an [`Error::InvalidParameter`](crate::Error::InvalidParameter).
    pub fn new(source: S, buffer: usize, seed: u64) -> Result<Self> {
        Ok(Shuffle {
            source,
            buffer: Error::nonzero("shuffle buffer size", buffer)?,
            seed,
        })
    }

    /// The same shuffle with another seed (e.g. one per epoch).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The buffer size.
    pub fn buffer(&self) -> usize {
        self.buffer
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: IterableDataset> IterableDataset for Shuffle<S> {
    type Item = S::Item;
    type Iter<'a>
        = ShuffleIter<'a, S>
    where
        Self: 'a;

    fn iter(&self) -> ShuffleIter<'_, S> {
        ShuffleIter {
            inner: self.source.iter(),
            rng: SplitMix64::new(self.seed),
            buffer: Vec::new(),
            capacity: self.buffer,
            exhausted: false,
        }
    }

    fn len(&self) -> Option<usize> {
        self.source.len()
    }
}

/// The iterator of a [`Shuffle`].
pub struct ShuffleIter<'a, S: IterableDataset + 'a> {
    inner: S::Iter<'a>,
    rng: SplitMix64,
    /// Failed reads are buffered like items, so that the order depends
    /// only on the seed, not on which reads failed.
    buffer: Vec<Result<S::Item>>,
    capacity: usize,
    exhausted: bool,
}

impl<'a, S: IterableDataset + 'a> Iterator for ShuffleIter<'a, S> {
    type Item = Result<S::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.exhausted {
            match self.inner.next() {
                None => self.exhausted = true,
                Some(item) if self.buffer.len() < self.capacity => self.buffer.push(item),
                Some(item) => {
                    let at = self.rng.below(self.buffer.len());
                    return Some(std::mem::replace(&mut self.buffer[at], item));
                }
            }
        }
        if self.buffer.is_empty() {
            return None;
        }
        let at = self.rng.below(self.buffer.len());
        Some(self.buffer.swap_remove(at))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.inner.size_hint();
        let held = self.buffer.len();
        (
            low.saturating_add(held),
            high.and_then(|h| h.checked_add(held)),
        )
    }
}

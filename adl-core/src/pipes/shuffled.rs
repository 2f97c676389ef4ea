//! [`Shuffled`]: a seeded random permutation keeping random access.

use crate::storage::{self, Ahead, Fetched, Route, Routes, Storage};
use crate::{Dataset, Error, Origin, Result};
use adl_exec::rng::SplitMix64;

/// A map-style dataset in a seeded random order:
/// [`shuffled`](super::DatasetExt::shuffled). `get(i)` reads
/// `source.get(permutation[i])`, where the permutation is a Fisher–Yates
/// shuffle of `0..len` drawn from a self-contained SplitMix64 at
/// construction (no sample is read then). The order depends only on the
/// seed and the length.
///
/// Length: the source's, exact. Costs one `usize` per sample.
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
/// let shuffled = Numbers(5).shuffled(7);
/// assert_eq!(shuffled.len(), 5);
/// let mut all: Vec<usize> = (0..5).map(|i| shuffled.get(i)).collect::<Result<_>>()?;
/// all.sort();
/// assert_eq!(all, [0, 1, 2, 3, 4]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Shuffled<S> {
    source: S,
    permutation: Vec<usize>,
    seed: u64,
}

impl<S: Dataset> Shuffled<S> {
    /// `source` permuted by `seed`.
    pub fn new(source: S, seed: u64) -> Self {
        let mut permutation: Vec<usize> = (0..source.len()).collect();
        let mut rng = SplitMix64::new(seed);
        for i in (1..permutation.len()).rev() {
            permutation.swap(i, rng.below(i + 1));
        }
        Shuffled {
            source,
            permutation,
            seed,
        }
    }
}

impl<S> Shuffled<S> {
    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The source index read for each index.
    pub fn permutation(&self) -> &[usize] {
        &self.permutation
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: Dataset> Dataset for Shuffled<S> {
    type Sample = S::Sample;

    fn len(&self) -> usize {
        self.permutation.len()
    }

    fn get(&self, index: usize) -> Result<S::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<S::Sample> {
        match self.permutation.get(index) {
            Some(&at) => self.source.get_fetched(at, fetched),
            None => Err(Error::out_of_range(
                "shuffled dataset",
                index,
                self.permutation.len(),
            )),
        }
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// Sample `i`'s reads: the source's sample at place `i` of the permutation.
impl<S: Dataset> Route for Shuffled<S> {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        match self.permutation.get(index) {
            Some(&at) => Routes::One(storage::of(&self.source), at),
            None => Routes::None,
        }
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.source.storage())
    }
}

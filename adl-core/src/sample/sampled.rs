//! [`Sampled`]: a dataset restricted to a subset of its indices.

use std::fmt;

use super::ld::{Amount, Seed, Step, sample_ld};
use crate::storage::{self, Ahead, Fetched, Route, Routes, Storage};
use crate::{Dataset, Error, Origin, Result};
use adl_exec::rng::SplitMix64;

/// How a [`Sampled`] dataset picks its subset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// A low-discrepancy subset ([`sample_ld`] with the golden-ratio step,
    /// starting at the seed): distinct indices, spread evenly whatever
    /// their number. The reference's `mode="ld"`.
    LowDiscrepancy(Seed),
    /// Evenly spaced indices from the first to the last, truncated to
    /// integers: `trunc(k * (len - 1) / (samples - 1))` for
    /// `k < samples - 1`, then `len - 1` (numpy's `linspace(0, len - 1,
    /// samples)` cast to int). The reference's `mode="uniform"`.
    Uniform,
    /// Indices drawn uniformly at random *with replacement*, reproducibly
    /// from the seed (a [`Seed::Fraction`] is `trunc(fraction * len)`).
    /// The reference's `mode="random"`; it uses numpy's PCG64, so the
    /// indices themselves differ from the reference's.
    Random(Seed),
}

/// A dataset restricted to a subset of its indices: sample `i` of the
/// subset is sample `indices()[i]` of the inner dataset (the reference's
/// `ext.sample.SampledDataset`).
///
/// As in the reference (0.4.7), the number of samples is capped at the
/// dataset's length.
///
/// ```
/// use adl::sample::{Amount, Sampled, Sampling, Seed};
/// use adl::{Dataset, SensorDataset, Series, Timestamps};
///
/// let times = Timestamps::new("s", (0..10).map(f64::from).collect())?;
/// let all = SensorDataset::new(Series::new("s", times, |i| Ok(i)));
///
/// let ld = Sampled::new(&all, Amount::Count(3), Sampling::LowDiscrepancy(Seed::Offset(0)))?;
/// assert_eq!(ld.indices(), &[0, 7, 4]);
/// assert_eq!(ld.get(1)?, 7);
///
/// let uniform = Sampled::new(&all, Amount::Fraction(0.3), Sampling::Uniform)?;
/// assert_eq!(uniform.indices(), &[0, 4, 9]);
///
/// let random = Sampled::new(&all, Amount::Count(100), Sampling::Random(Seed::Offset(7)))?;
/// assert_eq!(random.len(), 10); // capped at the dataset's length
///
/// let picked = Sampled::from_indices(&all, vec![9, 9, 2])?;
/// assert_eq!(picked.get(2)?, 2);
/// # Ok::<(), adl::Error>(())
/// ```
pub struct Sampled<D> {
    dataset: D,
    indices: Vec<usize>,
}

impl<D: Dataset> Sampled<D> {
    /// A subset of `samples` samples of `dataset` (capped at its length),
    /// picked by `sampling`.
    ///
    /// Errors ([`Error::InvalidParameter`]): a fraction that is not finite
    /// or comes to a negative count, and a non-finite seed fraction.
    /// [`Sampling::LowDiscrepancy`] works for every length, including 0, 1
    /// and 6, which the reference refuses ("No GCD found"; see
    /// [`ld_step`](super::ld_step)).
    pub fn new(dataset: D, samples: Amount, sampling: Sampling) -> Result<Self> {
        let len = dataset.len();
        let count = samples.count(len)?;
        if count < 0 {
            return Err(Error::invalid(
                "number of samples",
                format!("{samples:?} of {len} comes to {count}, which is negative"),
            ));
        }
        let count = count.min(len as i128) as usize;
        let indices = match sampling {
            Sampling::LowDiscrepancy(seed) => {
                sample_ld(len, Amount::Count(count), seed, Step::GoldenRatio)?
            }
            Sampling::Uniform => linspace(len, count),
            Sampling::Random(seed) => {
                let seed = seed.value(len)?;
                let mut rng = SplitMix64::new(seed as u64);
                (0..count).map(|_| rng.below(len)).collect()
            }
        };
        Ok(Sampled { dataset, indices })
    }

    /// The low-discrepancy subset: `Sampled::new(dataset, samples,
    /// Sampling::LowDiscrepancy(seed))`.
    pub fn low_discrepancy(dataset: D, samples: Amount, seed: Seed) -> Result<Self> {
        Self::new(dataset, samples, Sampling::LowDiscrepancy(seed))
    }

    /// The evenly spaced subset: `Sampled::new(dataset, samples,
    /// Sampling::Uniform)`.
    pub fn uniform(dataset: D, samples: Amount) -> Result<Self> {
        Self::new(dataset, samples, Sampling::Uniform)
    }

    /// The random subset, with replacement: `Sampled::new(dataset,
    /// samples, Sampling::Random(seed))`.
    pub fn random(dataset: D, samples: Amount, seed: Seed) -> Result<Self> {
        Self::new(dataset, samples, Sampling::Random(seed))
    }

    /// The subset made of exactly these indices, in this order (repeats
    /// allowed). An index past the end of `dataset` is
    /// [`Error::IndexOutOfRange`]. The reference's callable `mode`.
    pub fn from_indices(dataset: D, indices: Vec<usize>) -> Result<Self> {
        let len = dataset.len();
        if let Some(&bad) = indices.iter().find(|&&i| i >= len) {
            return Err(Error::out_of_range(
                "dataset being sampled (explicit sample indices)",
                bad,
                len,
            ));
        }
        Ok(Sampled { dataset, indices })
    }

    /// The inner indices of the subset, in order.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// The inner dataset.
    pub fn inner(&self) -> &D {
        &self.dataset
    }

    /// Give the inner dataset back.
    pub fn into_inner(self) -> D {
        self.dataset
    }
}

/// numpy's `linspace(0, len - 1, num).astype(int64)`, for `num <= len`.
fn linspace(len: usize, num: usize) -> Vec<usize> {
    match num {
        0 => Vec::new(),
        1 => vec![0],
        _ => {
            let last = len - 1;
            let step = last as f64 / (num - 1) as f64;
            (0..num - 1)
                .map(|k| (k as f64 * step) as usize)
                .chain(std::iter::once(last))
                .collect()
        }
    }
}

impl<D: Dataset> Dataset for Sampled<D> {
    type Sample = D::Sample;

    fn len(&self) -> usize {
        self.indices.len()
    }

    fn get(&self, index: usize) -> Result<D::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<D::Sample> {
        match self.indices.get(index) {
            Some(&inner) => self.dataset.get_fetched(inner, fetched),
            None => Err(Error::out_of_range(
                "sampled dataset",
                index,
                self.indices.len(),
            )),
        }
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// Sample `i`'s reads: the dataset's sample it picked at `i`.
impl<D: Dataset> Route for Sampled<D> {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        match self.indices.get(index) {
            Some(&at) => Routes::One(storage::of(&self.dataset), at),
            None => Routes::None,
        }
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.dataset.storage())
    }
}

impl<D: Dataset> fmt::Debug for Sampled<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Sampled(n={} of {})",
            self.indices.len(),
            self.dataset.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `0..len`, each sample its own index.
    struct Range(usize);

    impl Dataset for Range {
        type Sample = usize;
        fn len(&self) -> usize {
            self.0
        }
        fn get(&self, index: usize) -> Result<usize> {
            if index < self.0 {
                Ok(index)
            } else {
                Err(Error::out_of_range("range", index, self.0))
            }
        }
    }

    fn items<D: Dataset>(d: &D) -> Vec<D::Sample> {
        (0..d.len()).map(|i| d.get(i).unwrap()).collect()
    }

    #[test]
    fn low_discrepancy_caps_and_reads_through() {
        let s = Sampled::low_discrepancy(Range(5), Amount::Count(10), Seed::Offset(5)).unwrap();
        assert_eq!(s.indices(), &[0, 3, 1, 4, 2]);
        assert_eq!(items(&s), vec![0, 3, 1, 4, 2]);
        assert!(matches!(
            s.get(5),
            Err(Error::IndexOutOfRange {
                index: 5,
                len: 5,
                ..
            })
        ));
    }

    #[test]
    fn low_discrepancy_works_for_every_length() {
        for len in [0, 1, 6, 12] {
            for count in [0, len / 2, len, len + 3] {
                let s = Sampled::low_discrepancy(Range(len), Amount::Count(count), Seed::Offset(5))
                    .unwrap();
                let mut got = items(&s);
                assert_eq!(got, s.indices());
                got.sort_unstable();
                got.dedup();
                assert_eq!(got.len(), count.min(len));
                assert!(got.iter().all(|&i| i < len));
            }
        }
    }

    #[test]
    fn uniform_is_linspace() {
        let s = Sampled::uniform(Range(37), Amount::Fraction(0.5)).unwrap();
        assert_eq!(
            s.indices(),
            &[
                0, 2, 4, 6, 8, 10, 12, 14, 16, 19, 21, 23, 25, 27, 29, 31, 33, 36
            ]
        );
        assert_eq!(
            Sampled::uniform(Range(1), Amount::Count(3))
                .unwrap()
                .indices(),
            &[0]
        );
        assert!(
            Sampled::uniform(Range(0), Amount::Count(3))
                .unwrap()
                .is_empty()
        );
        assert!(
            Sampled::uniform(Range(5), Amount::Count(0))
                .unwrap()
                .is_empty()
        );
        let all = Sampled::uniform(Range(5), Amount::Count(5)).unwrap();
        assert_eq!(all.indices(), &[0, 1, 2, 3, 4]);
    }

    #[test]
    fn random_is_seeded_in_range_and_capped() {
        let a = Sampled::random(Range(10), Amount::Count(8), Seed::Offset(3)).unwrap();
        let b = Sampled::random(Range(10), Amount::Count(8), Seed::Offset(3)).unwrap();
        let c = Sampled::random(Range(10), Amount::Count(8), Seed::Offset(4)).unwrap();
        assert_eq!(a.indices(), b.indices());
        assert_ne!(a.indices(), c.indices());
        assert!(a.indices().iter().all(|&i| i < 10));
        let capped = Sampled::random(Range(3), Amount::Count(50), Seed::default()).unwrap();
        assert_eq!(capped.len(), 3);
        assert!(
            Sampled::random(Range(0), Amount::Count(5), Seed::default())
                .unwrap()
                .is_empty()
        );
        let frac = Sampled::random(Range(10), Amount::Count(4), Seed::Fraction(0.3)).unwrap();
        let int = Sampled::random(Range(10), Amount::Count(4), Seed::Offset(3)).unwrap();
        assert_eq!(frac.indices(), int.indices());
    }

    #[test]
    fn bad_amounts() {
        let neg = Sampled::uniform(Range(10), Amount::Fraction(-0.5));
        assert!(matches!(neg, Err(Error::InvalidParameter { .. })));
        let nan = Sampled::uniform(Range(10), Amount::Fraction(f64::NAN));
        assert!(matches!(nan, Err(Error::InvalidParameter { .. })));
        // A tiny negative fraction truncates to 0, as in the reference.
        assert!(
            Sampled::uniform(Range(10), Amount::Fraction(-0.01))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn explicit_indices_are_checked() {
        let s = Sampled::from_indices(Range(4), vec![3, 3, 0]).unwrap();
        assert_eq!(items(&s), vec![3, 3, 0]);
        let err = Sampled::from_indices(Range(4), vec![1, 4]).unwrap_err();
        assert!(matches!(
            err,
            Error::IndexOutOfRange {
                index: 4,
                len: 4,
                ..
            }
        ));
        assert!(Sampled::from_indices(Range(0), vec![]).unwrap().is_empty());
    }

    #[test]
    fn debug_shows_sizes() {
        let s = Sampled::uniform(Range(10), Amount::Count(3)).unwrap();
        assert_eq!(format!("{s:?}"), "Sampled(n=3 of 10)");
    }
}

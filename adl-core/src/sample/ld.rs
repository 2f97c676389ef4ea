//! Low-discrepancy sampling: [`sample_ld`] and its parameters.

use crate::{Error, Result};

/// How many samples to take: an exact count, or a fraction of the total.
///
/// The reference tells the two apart by the Python type of `samples`
/// (`int` or `float`); here the variant says it.
///
/// ```
/// use adl::sample::Amount;
///
/// assert_eq!(Amount::from(3), Amount::Count(3));
/// assert_eq!(Amount::from(0.5), Amount::Fraction(0.5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    /// Exactly this many samples.
    Count(usize),
    /// This fraction of the total, truncated toward zero:
    /// `trunc(fraction * total)` (the reference's `int(samples * total)`).
    Fraction(f64),
}

impl From<usize> for Amount {
    fn from(count: usize) -> Self {
        Amount::Count(count)
    }
}

impl From<f64> for Amount {
    fn from(fraction: f64) -> Self {
        Amount::Fraction(fraction)
    }
}

impl Amount {
    /// The number of samples this amount means out of `total`, before any
    /// range check (a fraction may give a negative or too large count).
    pub(crate) fn count(self, total: usize) -> Result<i128> {
        match self {
            Amount::Count(count) => Ok(count as i128),
            Amount::Fraction(fraction) => {
                let value = fraction * total as f64;
                if !value.is_finite() {
                    return Err(Error::invalid(
                        "number of samples",
                        format!("fraction {fraction} of {total} is not a finite number"),
                    ));
                }
                // `as` truncates toward zero (and saturates far beyond any total).
                Ok(value as i128)
            }
        }
    }
}

/// Where a low-discrepancy sequence starts (the reference's `seed`): an
/// offset in samples, or a fraction of the total.
///
/// Offsets wrap around the total with a non-negative (floor) modulo, so a
/// negative offset counts back from the end.
///
/// ```
/// use adl::sample::Seed;
///
/// assert_eq!(Seed::default(), Seed::Offset(0));
/// assert_eq!(Seed::from(-4), Seed::Offset(-4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Seed {
    /// Start at this offset (any integer; taken modulo the total).
    Offset(i64),
    /// Start at `trunc(fraction * total)` (the reference's float seed).
    Fraction(f64),
}

impl Default for Seed {
    fn default() -> Self {
        Seed::Offset(0)
    }
}

impl From<i64> for Seed {
    fn from(offset: i64) -> Self {
        Seed::Offset(offset)
    }
}

impl From<f64> for Seed {
    fn from(fraction: f64) -> Self {
        Seed::Fraction(fraction)
    }
}

impl Seed {
    /// The integer seed this means for `total` items (not yet reduced
    /// modulo `total`).
    pub(crate) fn value(self, total: usize) -> Result<i128> {
        match self {
            Seed::Offset(offset) => Ok(offset as i128),
            Seed::Fraction(fraction) => {
                let value = fraction * total as f64;
                if !value.is_finite() {
                    return Err(Error::invalid(
                        "seed",
                        format!("fraction {fraction} of {total} is not a finite number"),
                    ));
                }
                Ok(value as i128)
            }
        }
    }
}

/// The step of a low-discrepancy sequence (the reference's `alpha`).
///
/// ```
/// use adl::sample::{ld_step, Step};
///
/// // The closest integer to 10 / golden ratio that is co-prime with 10.
/// assert_eq!(ld_step(10, Step::GoldenRatio)?, 7);
/// assert_eq!(ld_step(10, Step::Ratio(0.3))?, 3);
/// assert_eq!(ld_step(10, Step::Exact(-3))?, 7);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Step {
    /// `Ratio(1 / φ)`, φ the golden ratio: the reference's default, with
    /// the best spread.
    #[default]
    GoldenRatio,
    /// A step near `ratio * total` that is co-prime with the total, so
    /// that the sequence visits every index once before repeating (the
    /// reference's float `alpha`).
    Ratio(f64),
    /// Exactly this step (the reference's int `alpha`), taken modulo the
    /// total; negative steps walk backwards. It need not be co-prime with
    /// the total, but [`sample_ld`] refuses to return repeated indices.
    Exact(i64),
}

/// The inverse golden ratio `2 / (sqrt(5) + 1)`, computed as the reference
/// does.
fn golden_ratio() -> f64 {
    2.0 / (5f64.sqrt() + 1.0)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The effective integer step of a low-discrepancy sequence over `total`
/// indices, in `0..total` (0 when `total` is 0 or 1).
///
/// For [`Step::Ratio`] (and [`Step::GoldenRatio`]) the step is the
/// candidate closest to `q = trunc(total * ratio)` that is co-prime with
/// `total`, so that the sequence visits every index once before
/// repeating. Candidates come in the reference's order `q, q+1, q-1, q+2,
/// q-2, ...`; the reference gives up ("No GCD found") after
/// `min(total - q, q)` of them, but here the search goes on outward over
/// the whole range `1..total` (outside it, candidates are skipped), so
/// for every total of 2 or more a step is found (1 and `total - 1` always
/// are co-prime with it). Wherever the reference finds a step, this is
/// the same step. For a total of 0 or 1 the step is 0: every index is 0,
/// or there are none. The only error ([`Error::InvalidParameter`]) is a
/// ratio whose product with `total` is not finite.
///
/// ```
/// use adl::sample::{ld_step, Step};
///
/// // The reference finds no step for 6 with the golden ratio (it tries
/// // only 3, 4 and 2); the search goes on to 5.
/// assert_eq!(ld_step(6, Step::GoldenRatio)?, 5);
/// assert_eq!(ld_step(1, Step::GoldenRatio)?, 0);
/// # Ok::<(), adl::Error>(())
/// ```
pub fn ld_step(total: usize, step: Step) -> Result<usize> {
    let ratio = match step {
        Step::Exact(step) => {
            return Ok(if total == 0 {
                0
            } else {
                (step as i128).rem_euclid(total as i128) as usize
            });
        }
        Step::GoldenRatio => golden_ratio(),
        Step::Ratio(ratio) => ratio,
    };
    let scaled = total as f64 * ratio;
    if !scaled.is_finite() {
        return Err(Error::invalid(
            "low-discrepancy step",
            format!("ratio {ratio} of total {total} is not a finite number"),
        ));
    }
    if total <= 1 {
        return Ok(0);
    }
    let n = total as i128;
    let coprime = |candidate: i128| gcd(candidate as u128, total as u128) == 1;
    // `as` saturates, so q is finite even for a huge ratio.
    let q = scaled as i128;
    if q >= n {
        // Every candidate above q is out of range; the nearest one below
        // in range is total - 1, which is co-prime with total.
        return Ok(total - 1);
    }
    if q <= 0 {
        // Likewise from below: 1 is co-prime with every total.
        return Ok(1);
    }
    // q is in 1..total. The reference's min(total - q, q) candidates all
    // lie in 1..total; past them, the same order goes on until one side
    // leaves the range, then the other side alone. Both ends (1 and
    // total - 1) are co-prime with total, so the loop ends by then.
    let mut distance = 0;
    loop {
        let above = q + distance;
        let below = q - distance;
        if distance > 0 && above < n && coprime(above) {
            return Ok(above as usize);
        }
        if below >= 1 && coprime(below) {
            return Ok(below as usize);
        }
        distance += 1;
    }
}

/// Indices of a low-discrepancy subset of `0..total`: `samples` distinct
/// indices, spread evenly over the range whatever their number, in the
/// order of the sequence `(k * step + seed) mod total` for `k = 0, 1, ...`
/// (the reference's `ext.sample.sample_ld`).
///
/// - `samples`: a count, or a fraction of `total`; it must come to
///   `0..=total`.
/// - `seed`: where the sequence starts; `Seed::default()` is 0.
/// - `step`: see [`Step`] and [`ld_step`]; `Step::default()` is the
///   golden ratio.
///
/// Errors ([`Error::InvalidParameter`], never a panic): a number of
/// samples outside `0..=total`, a non-finite fraction or ratio, or an
/// exact step that would repeat indices (`samples > total / gcd(step, total)`). There is no overflow:
/// the arithmetic is done in 128 bits.
///
/// ```
/// use adl::sample::{sample_ld, Amount, Seed, Step};
///
/// let idx = sample_ld(10, Amount::Count(5), Seed::default(), Step::default())?;
/// assert_eq!(idx, vec![0, 7, 4, 1, 8]);
/// let half = sample_ld(10, Amount::Fraction(0.5), Seed::Offset(-4), Step::GoldenRatio)?;
/// assert_eq!(half, vec![6, 3, 0, 7, 4]);
/// assert!(sample_ld(10, Amount::Count(11), Seed::default(), Step::default()).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
pub fn sample_ld(total: usize, samples: Amount, seed: Seed, step: Step) -> Result<Vec<usize>> {
    let samples = samples.count(total)?;
    let seed = seed.value(total)?;
    let step_value = ld_step(total, step)?;
    if samples < 0 || samples > total as i128 {
        return Err(Error::invalid(
            "number of samples",
            format!("{samples} is not in [0, {total}]"),
        ));
    }
    let samples = samples as usize;
    if samples == 0 {
        return Ok(Vec::new());
    }
    let total = total as u128;
    let distinct = total / gcd(step_value as u128, total);
    if samples as u128 > distinct {
        return Err(Error::invalid(
            "low-discrepancy step",
            format!(
                "step {step_value} shares the factor {} with total {total}, so it visits only \
                 {distinct} distinct indices; {samples} were asked for",
                total / distinct
            ),
        ));
    }
    let start = seed.rem_euclid(total as i128) as u128;
    let step = step_value as u128;
    Ok((0..samples as u128)
        .map(|k| ((k * step + start) % total) as usize)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ld(total: usize, samples: usize) -> Result<Vec<usize>> {
        sample_ld(
            total,
            Amount::Count(samples),
            Seed::default(),
            Step::default(),
        )
    }

    #[test]
    fn reference_example() {
        assert_eq!(ld(10, 5).unwrap(), vec![0, 7, 4, 1, 8]);
        assert_eq!(ld_step(10, Step::GoldenRatio).unwrap(), 7);
    }

    #[test]
    fn full_sample_is_a_permutation() {
        for total in [2, 5, 7, 100, 1009] {
            let mut idx = ld(total, total).unwrap();
            idx.sort_unstable();
            assert_eq!(idx, (0..total).collect::<Vec<_>>());
        }
    }

    #[test]
    fn zero_samples_is_empty() {
        assert_eq!(ld(10, 0).unwrap(), Vec::<usize>::new());
        let exact = sample_ld(0, Amount::Count(0), Seed::default(), Step::Exact(3));
        assert_eq!(exact.unwrap(), Vec::<usize>::new());
    }

    /// Sorted copy of `idx`, checked to be distinct and below `total`.
    fn distinct_below(idx: &[usize], total: usize) -> Vec<usize> {
        let mut sorted = idx.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), idx.len(), "repeats in {idx:?}");
        assert!(sorted.iter().all(|&i| i < total), "{idx:?} not < {total}");
        sorted
    }

    #[test]
    fn totals_beyond_the_reference_search() {
        // The reference's limited search fails for these ("No GCD found").
        assert_eq!(ld_step(0, Step::GoldenRatio).unwrap(), 0);
        assert_eq!(ld_step(1, Step::GoldenRatio).unwrap(), 0);
        assert_eq!(ld_step(6, Step::GoldenRatio).unwrap(), 5);
        assert_eq!(ld_step(2, Step::Ratio(0.3)).unwrap(), 1);
        assert_eq!(ld_step(3, Step::Ratio(0.3)).unwrap(), 1);
        assert_eq!(ld_step(12, Step::Ratio(0.3)).unwrap(), 5);
        for step in [Step::GoldenRatio, Step::Ratio(0.3)] {
            for total in [1, 2, 3, 6, 12] {
                for samples in 0..=total {
                    for seed in [0, 3, -7] {
                        let idx =
                            sample_ld(total, Amount::Count(samples), Seed::Offset(seed), step)
                                .unwrap();
                        assert_eq!(idx.len(), samples);
                        let sorted = distinct_below(&idx, total);
                        if samples == total {
                            assert_eq!(sorted, (0..total).collect::<Vec<_>>());
                        }
                    }
                }
            }
        }
        assert_eq!(ld(1, 1).unwrap(), vec![0]);
        assert_eq!(ld(0, 0).unwrap(), Vec::<usize>::new());
        // Only the count can still be out of range.
        assert!(ld(0, 1).unwrap_err().to_string().contains("not in [0, 0]"));
        assert!(ld(1, 2).unwrap_err().to_string().contains("not in [0, 1]"));
    }

    #[test]
    fn ratios_outside_the_unit_interval() {
        // The reference tries no candidate at all; the nearest in range wins.
        assert_eq!(ld_step(10, Step::Ratio(1.5)).unwrap(), 9);
        assert_eq!(ld_step(10, Step::Ratio(1e300)).unwrap(), 9);
        assert_eq!(ld_step(10, Step::Ratio(0.0)).unwrap(), 1);
        assert_eq!(ld_step(10, Step::Ratio(-2.0)).unwrap(), 1);
        assert!(ld_step(10, Step::Ratio(f64::INFINITY)).is_err());
        assert!(ld_step(0, Step::Ratio(f64::INFINITY)).is_err());
    }

    #[test]
    fn every_small_total_has_a_coprime_step() {
        for total in 2..2000usize {
            for step in [Step::GoldenRatio, Step::Ratio(0.3), Step::Ratio(0.999)] {
                let s = ld_step(total, step).unwrap();
                assert!((1..total).contains(&s) && gcd(s as u128, total as u128) == 1);
            }
        }
    }

    #[test]
    fn too_many_or_negative_samples() {
        let err = ld(10, 11).unwrap_err();
        assert!(err.to_string().contains("11 is not in [0, 10]"), "{err}");
        let neg = sample_ld(10, Amount::Fraction(-0.1), Seed::default(), Step::default());
        assert!(matches!(neg, Err(Error::InvalidParameter { .. })));
        let nan = sample_ld(
            10,
            Amount::Fraction(f64::NAN),
            Seed::default(),
            Step::default(),
        );
        assert!(matches!(nan, Err(Error::InvalidParameter { .. })));
        let inf = sample_ld(
            10,
            Amount::Count(1),
            Seed::Fraction(f64::INFINITY),
            Step::default(),
        );
        assert!(matches!(inf, Err(Error::InvalidParameter { .. })));
        let ratio = sample_ld(10, Amount::Count(1), Seed::default(), Step::Ratio(f64::NAN));
        assert!(matches!(ratio, Err(Error::InvalidParameter { .. })));
    }

    #[test]
    fn negative_seed_uses_floor_modulo() {
        let idx = sample_ld(10, Amount::Count(3), Seed::Offset(-4), Step::GoldenRatio).unwrap();
        assert_eq!(idx, vec![6, 3, 0]);
        let idx = sample_ld(10, Amount::Count(3), Seed::Offset(i64::MIN), Step::Exact(1)).unwrap();
        let start = (i64::MIN as i128).rem_euclid(10) as usize;
        assert_eq!(idx, vec![start, (start + 1) % 10, (start + 2) % 10]);
    }

    #[test]
    fn fractions_truncate() {
        let idx = sample_ld(
            10,
            Amount::Fraction(0.7),
            Seed::Fraction(0.7),
            Step::GoldenRatio,
        );
        assert_eq!(idx.unwrap(), vec![7, 4, 1, 8, 5, 2, 9]);
    }

    #[test]
    fn exact_steps_never_repeat() {
        let err = sample_ld(6, Amount::Count(6), Seed::default(), Step::Exact(3)).unwrap_err();
        assert!(err.to_string().contains("only 2 distinct"), "{err}");
        // As many as it can visit is fine.
        let ok = sample_ld(6, Amount::Count(2), Seed::default(), Step::Exact(3)).unwrap();
        assert_eq!(ok, vec![0, 3]);
        let back = sample_ld(5, Amount::Count(5), Seed::default(), Step::Exact(-2)).unwrap();
        assert_eq!(back, vec![0, 3, 1, 4, 2]);
    }

    #[test]
    fn huge_totals_do_not_overflow() {
        let total = usize::MAX;
        let idx = sample_ld(total, Amount::Count(3), Seed::Offset(-1), Step::Exact(-1)).unwrap();
        assert_eq!(idx, vec![total - 1, total - 2, total - 3]);
        let idx = ld(total, 4).unwrap();
        assert_eq!(idx.len(), 4);
        assert_eq!(idx[0], 0);
    }
}

//! Parity cases of `sample.json`: `sample_ld` and `SampledDataset`.
//!
//! Each case is classified by rules on its *inputs*; where a rule says we
//! diverge on purpose (see `docs/divergences.md`), our own
//! behaviour is checked instead.
//!
//! `mode="random"` cases whose answer does not depend on the random
//! generator (a dataset of one sample, or no sample to draw) are compared
//! exactly; for the others, numpy's PCG64 draws cannot be reproduced, so
//! we check that our draws are spread out like uniform draws would be
//! ([`spread_out`]).

use adl::sample::{Amount, Sampled, Sampling, Seed, Step, ld_step, sample_ld};
use adl::{Dataset, Error, Result, SensorDataset, Series, Timestamps};
use serde_json::Value;

use super::common::{Tally, Verdict, cases, expected_error, python_type, usizes};

const RULE_NEGATIVE_COUNT: &str = "a negative integer number of samples cannot be written \
     (Amount::Count is a usize; the reference raises ValueError)";
const RULE_EXACT_REPEATS: &str = "an exact step sharing a factor with the total would repeat \
     indices; we refuse with InvalidParameter (the reference returns repeats)";
const RULE_OVERFLOW: &str = "samples * step >= 2^63 - 1: the reference raises \
     NotImplementedError; we compute in 128 bits and return the indices";
const RULE_NO_GCD: &str = "the reference tries only min(total - q, q) step candidates around \
     q = int(total * ratio) and raises ValueError(\"No GCD found\") when none is co-prime with \
     the total (totals 1, 6, ...); we search on over 1..total (step 0 for totals 0 and 1) and \
     return distinct indices";
const RULE_RANDOM: &str = "mode random: the reference's indices come from numpy's PCG64, ours \
     from SplitMix64 (length, range, reproducibility, read-through and spread are checked)";

/// Run every case of `file`.
pub fn run(file: &'static str) -> Tally {
    let mut tally = Tally::new(file);
    for case in cases(file) {
        let id = case["id"].as_str().expect("case id").to_owned();
        let verdict = match case["kind"].as_str().expect("kind") {
            "sample_ld" => ld_case(&case),
            "SampledDataset" => sampled_case(&case),
            other => Verdict::Matches(Err(format!("unknown kind {other}"))),
        };
        tally.record(&id, verdict);
    }
    tally
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Emulates the reference's step search for a float `ratio` (`ext.sample.sample_ld`):
/// `q = int(total * ratio)`, then `q, q+1, q-1, q+2, ...`, at most
/// `min(total - q, q)` candidates, the first co-prime with `total`.
/// True when it finds none ("No GCD found"). A non-finite `total * ratio`
/// fails earlier in Python (`int(inf)`), so it is not counted here.
fn reference_search_fails(total: usize, ratio: f64) -> bool {
    let scaled = total as f64 * ratio;
    if !scaled.is_finite() {
        return false;
    }
    let q = scaled as i128;
    let tries = (total as i128 - q).min(q).max(0);
    !(0..tries).any(|i| {
        let offset = (i + 1) / 2;
        let candidate = if i % 2 == 0 { q - offset } else { q + offset };
        gcd(candidate as u128, total as u128) == 1
    })
}

/// The inverse golden ratio, as the reference computes it.
fn golden_ratio() -> f64 {
    2.0 / (5f64.sqrt() + 1.0)
}

/// Our behaviour where the reference's step search fails: `want` samples
/// (`None`: the count itself is invalid, so `InvalidParameter`), distinct
/// and below `total`.
fn check_no_gcd(
    ours: Result<&[usize], &Error>,
    want: Option<usize>,
    total: usize,
) -> Result<(), String> {
    match (ours, want) {
        (Err(Error::InvalidParameter { .. }), None) => Ok(()),
        (Ok(idx), Some(want)) => {
            let mut sorted = idx.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            if idx.len() != want {
                Err(format!("{} indices {idx:?}, expected {want}", idx.len()))
            } else if sorted.len() != idx.len() {
                Err(format!("repeated indices {idx:?}"))
            } else if idx.iter().any(|&i| i >= total) {
                Err(format!("indices {idx:?} not below {total}"))
            } else {
                Ok(())
            }
        }
        (other, None) => Err(format!(
            "gave {other:?}, expected InvalidParameter (the count itself is refused)"
        )),
        (other, Some(want)) => Err(format!("gave {other:?}, expected {want} distinct indices")),
    }
}

/// `samples` of a case: our amount, and the integer count the reference
/// works with (`int(samples * total)` for a float).
fn amount(case: &Value, total: usize) -> (Option<Amount>, i128) {
    let v = &case["samples"];
    if case["samples_is_float"]
        .as_bool()
        .expect("samples_is_float")
    {
        let f = v.as_f64().expect("float samples");
        (Some(Amount::Fraction(f)), (f * total as f64) as i128)
    } else {
        let i = v.as_i64().expect("integer samples");
        let amount = usize::try_from(i).ok().map(Amount::Count);
        (amount, i as i128)
    }
}

/// Whether the reference can turn `samples` (and a float `seed`) into
/// integers: `int(x * total)` of a non-finite value raises in Python.
fn finite_count(case: &Value, total: usize) -> bool {
    let finite = |key: &str, float: &str| {
        !case[float].as_bool().expect("is_float flag")
            || (case[key].as_f64().expect("float") * total as f64).is_finite()
    };
    finite("samples", "samples_is_float") && finite("seed", "seed_is_float")
}

/// `seed` of a case, as our [`Seed`].
fn seed(case: &Value) -> Seed {
    let v = &case["seed"];
    if case["seed_is_float"].as_bool().expect("seed_is_float") {
        Seed::Fraction(v.as_f64().expect("float seed"))
    } else {
        Seed::Offset(v.as_i64().expect("integer seed"))
    }
}

fn same_error(ours: &Result<impl std::fmt::Debug>, ty: &str) -> Result<(), String> {
    match ours {
        Err(e) if python_type(e) == ty => Ok(()),
        other => Err(format!("gave {other:?}, expected {ty}")),
    }
}

fn ld_case(case: &Value) -> Verdict {
    let total = case["total"].as_u64().expect("total") as usize;
    let (amount, count) = amount(case, total);
    let seed = seed(case);
    let alpha = &case["alpha"];
    let (step, exact) = if alpha.as_str() == Some("default") {
        (Step::GoldenRatio, None)
    } else if case["alpha_is_float"].as_bool().expect("alpha_is_float") {
        (Step::Ratio(alpha.as_f64().expect("float alpha")), None)
    } else {
        let a = alpha.as_i64().expect("integer alpha");
        (Step::Exact(a), Some(a))
    };
    let expected = &case["expected"];

    let Some(amount) = amount else {
        return Verdict::NoAnalogue(RULE_NEGATIVE_COUNT.into());
    };
    let ours = sample_ld(total, amount, seed, step);
    let our_step = ld_step(total, step);
    let in_range = (0..=total as i128).contains(&count);

    // The reference's limited search for a ratio step finds nothing.
    let ratio = match step {
        Step::GoldenRatio => Some(golden_ratio()),
        Step::Ratio(r) => Some(r),
        Step::Exact(_) => None,
    };
    if let Some(ratio) = ratio
        && reference_search_fails(total, ratio)
    {
        let want = (finite_count(case, total) && in_range).then_some(count as usize);
        return Verdict::Diverges(RULE_NO_GCD, check_no_gcd(ours.as_deref(), want, total));
    }

    // An exact step visits total / gcd(step, total) distinct indices.
    if let Some(a) = exact
        && in_range
        && total > 0
    {
        let reduced = (a as i128).rem_euclid(total as i128) as u128;
        if count as u128 > total as u128 / gcd(reduced, total as u128) {
            let check = match ours {
                Err(Error::InvalidParameter { reason, .. }) if reason.contains("distinct") => {
                    Ok(())
                }
                other => Err(format!("gave {other:?}, expected a refusal to repeat")),
            };
            return Verdict::Diverges(RULE_EXACT_REPEATS, check);
        }
    }
    // The reference's overflow guard, on its unreduced step.
    let ref_step = match (exact, &our_step) {
        (Some(a), _) => Some(a as i128),
        (None, Ok(s)) => Some(*s as i128),
        (None, Err(_)) => None,
    };
    if let Some(ref_step) = ref_step
        && in_range
        && count
            .checked_mul(ref_step)
            .is_none_or(|p| p >= i64::MAX as i128)
    {
        let check = match (&ours, &our_step) {
            (Ok(got), Ok(s)) => {
                let start = seed_value(seed, total).rem_euclid(total as i128) as u128;
                let want: Vec<usize> = (0..count as u128)
                    .map(|k| ((k * *s as u128 + start) % total as u128) as usize)
                    .collect();
                if *got == want {
                    Ok(())
                } else {
                    Err(format!("indices {got:?}, expected {want:?}"))
                }
            }
            other => Err(format!("gave {other:?}, expected indices")),
        };
        return Verdict::Diverges(RULE_OVERFLOW, check);
    }

    let mut check = match expected_error(expected) {
        Some(ty) => same_error(&ours, ty),
        None => {
            let want = usizes(&expected["indices"]);
            match &ours {
                Ok(got) if *got == want => Ok(()),
                other => Err(format!("gave {other:?}, expected {want:?}")),
            }
        }
    };
    if check.is_ok()
        && let Some(want) = expected["step"].as_u64()
    {
        check = match our_step {
            Ok(s) if s as u64 == want => Ok(()),
            other => Err(format!("step {other:?}, expected {want}")),
        };
    }
    Verdict::Matches(check)
}

/// The integer seed the reference uses (`int(seed * total)` for a float).
fn seed_value(seed: Seed, total: usize) -> i128 {
    match seed {
        Seed::Offset(o) => o as i128,
        Seed::Fraction(f) => (f * total as f64) as i128,
    }
}

fn sampled_case(case: &Value) -> Verdict {
    let n = case["n"].as_u64().expect("n") as usize;
    let times = Timestamps::new("s", (0..n).map(|i| i as f64).collect()).expect("timestamps");
    let dataset = SensorDataset::new(Series::new("s", times, Ok));
    let (amount, count) = amount(case, n);
    let seed = seed(case);
    let mode = case["mode"].as_str().expect("mode");
    let sampling = match mode {
        "ld" => Sampling::LowDiscrepancy(seed),
        "uniform" => Sampling::Uniform,
        "random" => Sampling::Random(seed),
        other => return Verdict::Matches(Err(format!("unknown mode {other}"))),
    };
    let expected = &case["expected"];

    let Some(amount) = amount else {
        return Verdict::NoAnalogue(RULE_NEGATIVE_COUNT.into());
    };
    let ours = Sampled::new(&dataset, amount, sampling);
    let items = |s: &Sampled<_>| -> Result<Vec<usize>> { (0..s.len()).map(|i| s.get(i)).collect() };
    // The number of samples the reference draws: its count, capped at the
    // length (0.4.7); `None` where the count itself is refused (not
    // finite, or negative).
    let capped = (finite_count(case, n) && count >= 0).then(|| count.min(n as i128) as usize);

    if mode == "ld" && reference_search_fails(n, golden_ratio()) {
        let check =
            check_no_gcd(ours.as_ref().map(|s| s.indices()), capped, n).and_then(
                |()| match &ours {
                    Ok(s) if !items(s).is_ok_and(|got| got == s.indices()) => {
                        Err("items are not read through the subset".into())
                    }
                    _ => Ok(()),
                },
            );
        return Verdict::Diverges(RULE_NO_GCD, check);
    }

    // With one sample to draw from, or none to draw, every generator gives
    // the same answer: compare it exactly, below.
    let random_draws = mode == "random" && n > 1 && capped.is_some_and(|k| k > 0);
    if random_draws {
        let check = match (&ours, Sampled::new(&dataset, amount, sampling)) {
            (Ok(s), Ok(again)) => {
                let want_len = expected["len"].as_u64().expect("len") as usize;
                if s.len() != want_len {
                    Err(format!("len {}, expected {want_len}", s.len()))
                } else if s.indices().iter().any(|&i| i >= n) {
                    Err(format!("indices {:?} out of range", s.indices()))
                } else if s.indices() != again.indices() {
                    Err("not reproducible from the seed".into())
                } else if !items(s).is_ok_and(|got| got == s.indices()) {
                    Err("items are not read through the subset".into())
                } else {
                    spread_out(s.indices(), n)
                }
            }
            (other, _) => Err(format!("gave {other:?}")),
        };
        return Verdict::Diverges(RULE_RANDOM, check);
    }

    let check = match expected_error(expected) {
        Some(ty) => same_error(&ours, ty),
        None => match &ours {
            Ok(s) => {
                let subset = usizes(&expected["subset"]);
                let want_items = usizes(&expected["items"]);
                let want_len = expected["len"].as_u64().expect("len") as usize;
                if s.len() != want_len || s.indices() != subset.as_slice() {
                    Err(format!("subset {:?}, expected {subset:?}", s.indices()))
                } else {
                    match items(s) {
                        Ok(got) if got == want_items => Ok(()),
                        other => Err(format!("items {other:?}, expected {want_items:?}")),
                    }
                }
            }
            Err(e) => Err(format!("failed: {e}")),
        },
    };
    Verdict::Matches(check)
}

/// Below this probability, a draw is too unlikely for uniform draws with
/// replacement to pass as one.
const UNLIKELY: f64 = 1e-4;

/// Whether `draws` (indices below `n`, with replacement) are spread out as
/// uniform draws would be. A draw fails if, for `k` uniform draws from `n`,
/// the probability of either event is below [`UNLIKELY`]:
/// - at most as many distinct indices as it has (a sampler that always
///   returns index 0 has 1; e.g. 10 draws from 10 give 1 distinct index
///   with probability 10^-9);
/// - all of them in one half of the range, `[0, n/2)` or `[n/2, n)` (a
///   sampler stuck at the start or the end).
///
/// Both probabilities are exact; draws too few for either event to be
/// unlikely (e.g. 2 draws from 5) pass.
fn spread_out(draws: &[usize], n: usize) -> Result<(), String> {
    let k = draws.len();
    let distinct = {
        let mut d = draws.to_vec();
        d.sort_unstable();
        d.dedup();
        d.len()
    };
    // Occupancy: p[j] = P(j distinct indices after t draws).
    let mut p = vec![0.0f64; k + 1];
    p[0] = 1.0;
    for _ in 0..k {
        for j in (0..=k).rev() {
            let stay = p[j] * j as f64 / n as f64;
            let new = if j > 0 {
                p[j - 1] * (n - (j - 1)) as f64 / n as f64
            } else {
                0.0
            };
            p[j] = stay + new;
        }
    }
    let at_most: f64 = p[..=distinct.min(k)].iter().sum();
    if at_most < UNLIKELY {
        return Err(format!(
            "draws {draws:?} have {distinct} distinct indices; {k} uniform draws from {n} \
             have at most that many with probability {at_most:.1e}"
        ));
    }
    let low = n / 2;
    let one_half = draws.iter().all(|&i| i < low) || draws.iter().all(|&i| i >= low);
    let p_half =
        (low as f64 / n as f64).powi(k as i32) + ((n - low) as f64 / n as f64).powi(k as i32);
    if one_half && p_half < UNLIKELY {
        return Err(format!(
            "draws {draws:?} all lie in one half of 0..{n}; {k} uniform draws do so \
             with probability {p_half:.1e}"
        ));
    }
    Ok(())
}

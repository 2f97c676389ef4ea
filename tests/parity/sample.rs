//! Parity cases of `sample.json`: `sample_ld` and `SampledDataset`.
//!
//! Each case is classified by rules on its *inputs*; where a rule says we
//! diverge on purpose (see `docs/divergences.md`), our own
//! behaviour is checked instead.

use adl::sample::{Amount, Sampled, Sampling, Seed, Step, ld_step, sample_ld};
use adl::{Dataset, Error, Result, SensorDataset, Series, Timestamps};
use serde_json::Value;

use super::common::{Tally, cases, expected_error, python_type, usizes};

const RULE_NEGATIVE_COUNT: &str = "a negative integer number of samples is not representable \
     (Amount::Count is usize); the same count as a fraction is InvalidParameter";
const RULE_EXACT_REPEATS: &str = "an exact step sharing a factor with the total would repeat \
     indices; we refuse with InvalidParameter (the reference returns repeats)";
const RULE_OVERFLOW: &str = "samples * step >= 2^63 - 1: the reference raises \
     NotImplementedError; we compute in 128 bits and return the indices";
const RULE_NO_GCD: &str = "the reference tries only min(total - q, q) step candidates around \
     q = int(total * ratio) and raises ValueError(\"No GCD found\") when none is co-prime with \
     the total (totals 1, 6, ...); we search on over 1..total (step 0 for totals 0 and 1) and \
     return distinct indices";
const RULE_RANDOM: &str = "mode random: the reference's indices come from numpy's PCG64; ours \
     from SplitMix64 (only length, range and read-through are compared)";

/// Run every case of `file`.
pub fn run(file: &'static str) -> Tally {
    let mut tally = Tally::new(file);
    for case in cases(file) {
        let id = case["id"].as_str().expect("case id").to_owned();
        let (rule, check) = match case["kind"].as_str().expect("kind") {
            "sample_ld" => ld_case(&case),
            "SampledDataset" => sampled_case(&case),
            other => (None, Err(format!("unknown kind {other}"))),
        };
        match rule {
            None => tally.matches(&id, check),
            Some(rule) => tally.diverges(&id, rule, check),
        }
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
        (other, want) => Err(format!(
            "gave {other:?}, expected {want:?} distinct indices"
        )),
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

/// The same negative count as a fraction of `total` (`(s - 0.5) / total`
/// truncates back to `s`).
fn negative_as_fraction(count: i128, total: usize) -> Amount {
    Amount::Fraction((count as f64 - 0.5) / total.max(1) as f64)
}

fn same_error(ours: &Result<impl std::fmt::Debug>, ty: &str) -> Result<(), String> {
    match ours {
        Err(e) if python_type(e) == ty => Ok(()),
        other => Err(format!("gave {other:?}, expected {ty}")),
    }
}

fn ld_case(case: &Value) -> (Option<&'static str>, Result<(), String>) {
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
        let ours = sample_ld(total, negative_as_fraction(count, total), seed, step);
        let check = match ours {
            Err(Error::InvalidParameter { .. }) => Ok(()),
            other => Err(format!("negative count as a fraction gave {other:?}")),
        };
        return (Some(RULE_NEGATIVE_COUNT), check);
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
        return (
            Some(RULE_NO_GCD),
            check_no_gcd(ours.as_deref(), want, total),
        );
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
            return (Some(RULE_EXACT_REPEATS), check);
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
        return (Some(RULE_OVERFLOW), check);
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
    (None, check)
}

/// The integer seed the reference uses (`int(seed * total)` for a float).
fn seed_value(seed: Seed, total: usize) -> i128 {
    match seed {
        Seed::Offset(o) => o as i128,
        Seed::Fraction(f) => (f * total as f64) as i128,
    }
}

fn sampled_case(case: &Value) -> (Option<&'static str>, Result<(), String>) {
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
        other => return (None, Err(format!("unknown mode {other}"))),
    };
    let expected = &case["expected"];

    let Some(amount) = amount else {
        let ours = Sampled::new(&dataset, negative_as_fraction(count, n), sampling);
        let check = match ours {
            Err(Error::InvalidParameter { .. }) => Ok(()),
            other => Err(format!("negative count as a fraction gave {other:?}")),
        };
        return (Some(RULE_NEGATIVE_COUNT), check);
    };
    let ours = Sampled::new(&dataset, amount, sampling);
    let items = |s: &Sampled<_>| -> Result<Vec<usize>> { (0..s.len()).map(|i| s.get(i)).collect() };

    if mode == "ld" && reference_search_fails(n, golden_ratio()) {
        // SampledDataset caps the count at the length.
        let want = finite_count(case, n).then_some(count.min(n as i128) as usize);
        let check =
            check_no_gcd(ours.as_ref().map(|s| s.indices()), want, n).and_then(|()| match &ours {
                Ok(s) if !items(s).is_ok_and(|got| got == s.indices()) => {
                    Err("items are not read through the subset".into())
                }
                _ => Ok(()),
            });
        return (Some(RULE_NO_GCD), check);
    }

    if mode == "random" {
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
                    Ok(())
                }
            }
            (other, _) => Err(format!("gave {other:?}")),
        };
        return (Some(RULE_RANDOM), check);
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
    (None, check)
}

//! Parity cases of the synchronization golden files (`sync_next.json`,
//! `sync_nearest.json`, `sync_misc.json`).
//!
//! Each case is classified by a rule on its *inputs* (policy, params,
//! timestamps) into "must match the reference exactly" or one of the
//! deliberate divergences of `docs/divergences.md`; for the latter our
//! own behaviour is checked instead.

use adl::Error;
use adl::sync::{Bound, Margins};
use serde_json::Value;

use super::common::{
    Tally, cases, expected_error, f64_of, f64s, margins_from_params, python_type, sync_from_params,
    usizes,
};

/// What the rules say a case must give.
enum Expect {
    /// Exactly the golden result (indices, or an error of the same type).
    Golden,
    /// The golden result is an error and so is ours, of the same type.
    GoldenError,
    /// We diverge on purpose with an error: `is_ours` tells the variant,
    /// and the message must contain `names`.
    OurError {
        rule: &'static str,
        is_ours: fn(&Error) -> bool,
        names: String,
    },
    /// Decimate before synchronizing: the reference's indices of `sensor`
    /// point into the decimated array; ours are those times `factor`.
    Scaled { sensor: String, factor: usize },
    /// The inputs cannot be written in Rust: not run.
    NoAnalogue(&'static str),
}

const RULE_MARGIN_SHAPE: &str = "the margin is not a pair: a Rust Margin has exactly two ends, \
     so the input cannot be written (the reference raises TypeError)";
const RULE_TIMESTAMPS: &str = "timestamps not finite, sorted and advancing are rejected";
const RULE_MARGIN_NAME: &str = "a per-sensor margin names no sensor of the trace";
const RULE_NEGATIVE_SAMPLES: &str =
    "a negative sample margin is rejected (numpy wraps it or raises)";
const RULE_SAMPLES_TRIM_ALL: &str =
    "a sample margin of at least the sensor's length is rejected (numpy raises or wraps)";
const RULE_SECONDS_START_TRIM_ALL: &str =
    "a start margin in seconds past the sensor's last sample is rejected (numpy raises)";
const RULE_SECONDS_END_TRIM_ALL: &str =
    "an end margin in seconds longer than the sensor is rejected (the reference ignores it)";
const RULE_DECIMATED: &str = "decimated sensor's indices point at its real samples";

/// Run every case of `file`.
pub fn run(file: &'static str) -> Tally {
    let mut tally = Tally::new(file);
    for case in cases(file) {
        let id = case["id"].as_str().expect("case id").to_owned();
        let policy = case["policy"].as_str().expect("policy");
        let params = &case["params"];
        let sensors: Vec<String> = case["sensors"]
            .as_array()
            .expect("sensors")
            .iter()
            .map(|s| s.as_str().expect("sensor name").to_owned())
            .collect();
        let times: Vec<Vec<f64>> = sensors
            .iter()
            .map(|s| f64s(&case["timestamps"][s]))
            .collect();
        let ts: Vec<(&str, &[f64])> = sensors
            .iter()
            .map(String::as_str)
            .zip(times.iter().map(Vec::as_slice))
            .collect();
        let expected = &case["expected"];

        let ours = sync_from_params(policy, params).and_then(|s| s.synchronize(&ts));
        match expectation(policy, params, &ts) {
            Expect::Golden | Expect::GoldenError => {
                tally.matches(&id, compare(&ours, expected, &sensors, None));
            }
            Expect::OurError {
                rule,
                is_ours,
                names,
            } => {
                let check = match &ours {
                    Err(e) if is_ours(e) && e.to_string().contains(&names) => Ok(()),
                    Err(e) => Err(format!("expected our error naming {names}, got {e:?}")),
                    Ok(idx) => Err(format!("expected our error naming {names}, got {idx:?}")),
                };
                tally.diverges(&id, rule, check);
            }
            Expect::Scaled { sensor, factor } => {
                let check = compare(&ours, expected, &sensors, Some((&sensor, factor)));
                tally.diverges(&id, RULE_DECIMATED, check);
            }
            Expect::NoAnalogue(reason) => tally.no_analogue(&id, reason),
        }
    }
    tally
}

/// Compare our result with the golden `expected`; with `scaled`, that
/// sensor's golden indices are multiplied by the factor first.
fn compare(
    ours: &Result<adl::Indices, Error>,
    expected: &Value,
    sensors: &[String],
    scaled: Option<(&str, usize)>,
) -> Result<(), String> {
    if let Some(want) = expected_error(expected) {
        return match ours {
            Err(e) if python_type(e) == want => Ok(()),
            Err(e) => Err(format!("expected {want}, got {e:?}")),
            Ok(idx) => Err(format!("expected {want}, got {idx:?}")),
        };
    }
    let idx = ours
        .as_ref()
        .map_err(|e| format!("expected indices, got {e:?}"))?;
    let order: Vec<&str> = match expected.get("key_order") {
        Some(k) => k
            .as_array()
            .expect("key_order")
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect(),
        None => sensors.iter().map(String::as_str).collect(),
    };
    if idx.names() != order {
        return Err(format!(
            "sensor order {:?}, expected {order:?}",
            idx.names()
        ));
    }
    for name in &order {
        let mut want = usizes(&expected["indices"][name]);
        if let Some((sensor, factor)) = scaled
            && sensor == *name
        {
            want.iter_mut().for_each(|i| *i *= factor);
        }
        let got: Vec<usize> = idx
            .column(name)
            .unwrap()
            .iter()
            .map(|&i| i as usize)
            .collect();
        if got != want {
            return Err(format!("sensor {name}: got {got:?}, expected {want:?}"));
        }
    }
    if let Some(len) = expected.get("length").and_then(Value::as_u64)
        && idx.len() as u64 != len
    {
        return Err(format!("length {}, expected {len}", idx.len()));
    }
    Ok(())
}

/// The rules, on the case's inputs only, in the order the checks happen
/// (ours and the reference's).
fn expectation(policy: &str, params: &Value, ts: &[(&str, &[f64])]) -> Expect {
    // Construction: the tolerance, then the margin's shape.
    if policy == "Nearest" && params.get("tol").is_some_and(|t| f64_of(t) < 0.0) {
        return Expect::GoldenError;
    }
    if matches!(policy, "Next" | "Nearest") && margin_not_a_pair(params) {
        return Expect::NoAnalogue(RULE_MARGIN_SHAPE);
    }
    if policy == "Decimate" {
        if params["factor"].as_u64() == Some(0) {
            return Expect::GoldenError;
        }
        let inner = &params["inner"];
        let inner_policy = inner["policy"].as_str().expect("inner policy");
        let factor = params["factor"].as_u64().expect("factor") as usize;
        let Some(decimated) = params.get("reference").and_then(Value::as_str) else {
            return expectation(inner_policy, &inner["params"], ts);
        };
        if let Some(bad) = bad_timestamps(ts) {
            return bad;
        }
        let Some(at) = ts.iter().position(|(n, _)| *n == decimated) else {
            return Expect::GoldenError;
        };
        let thinned: Vec<f64> = ts[at].1.iter().copied().step_by(factor).collect();
        let mut inputs = ts.to_vec();
        inputs[at].1 = &thinned;
        return match expectation(inner_policy, &inner["params"], &inputs) {
            Expect::Golden if factor > 1 => Expect::Scaled {
                sensor: decimated.to_owned(),
                factor,
            },
            other => other,
        };
    }
    if let Some(bad) = bad_timestamps(ts) {
        return bad;
    }
    if policy == "Empty" {
        return Expect::Golden;
    }
    let reference = params["reference"].as_str().expect("reference");
    if !ts.iter().any(|(n, _)| *n == reference) {
        return Expect::GoldenError;
    }
    if let Some(Value::Object(map)) = params.get("margin")
        && let Some(name) = map.keys().find(|k| !ts.iter().any(|(n, _)| n == k))
    {
        return Expect::OurError {
            rule: RULE_MARGIN_NAME,
            is_ours: |e| matches!(e, Error::UnknownSensor { role: "margin", .. }),
            names: format!("`{name}`"),
        };
    }
    if ts.iter().any(|(_, t)| t.is_empty()) {
        return Expect::GoldenError;
    }
    let margins = margins_from_params(params).expect("margin shape checked above");
    if let Some((sensor, rule)) = first_margin_out_of_range(&margins, ts) {
        return Expect::OurError {
            rule,
            is_ours: |e| matches!(e, Error::InvalidParameter { .. }),
            names: format!("`{sensor}`"),
        };
    }
    Expect::Golden
}

/// Whether `margin` (or a per-sensor entry) is an array whose length is not 2.
fn margin_not_a_pair(params: &Value) -> bool {
    let bad = |v: &Value| v.as_array().is_some_and(|a| a.len() != 2);
    match params.get("margin") {
        Some(Value::Object(map)) => map.values().any(bad),
        Some(v) => bad(v),
        None => false,
    }
}

/// The first sensor whose timestamps are not finite, sorted and advancing.
fn bad_timestamps(ts: &[(&str, &[f64])]) -> Option<Expect> {
    let (name, _) = ts.iter().find(|(_, t)| {
        t.iter().any(|x| !x.is_finite())
            || t.windows(2).any(|w| w[1] < w[0])
            || (t.len() >= 2 && t[0] == t[t.len() - 1])
    })?;
    Some(Expect::OurError {
        rule: RULE_TIMESTAMPS,
        is_ours: |e| {
            matches!(
                e,
                Error::NonFiniteTimestamp { .. }
                    | Error::UnsortedTimestamps { .. }
                    | Error::ConstantTimestamps { .. }
            )
        },
        names: format!("`{name}`"),
    })
}

/// The first sensor (non-empty, in order) whose margin puts the
/// reference's start or end index outside it, and which rule that is:
/// `numpy` raises IndexError there, or silently wraps a negative index
/// around to the other end of the sensor.
fn first_margin_out_of_range<'a>(
    margins: &Margins,
    ts: &[(&'a str, &[f64])],
) -> Option<(&'a str, &'static str)> {
    ts.iter().find_map(|&(name, t)| {
        let n = t.len();
        let m = margins.for_sensor(name);
        let start = match m.start {
            Bound::Samples(k) if k < 0 => Some(RULE_NEGATIVE_SAMPLES),
            Bound::Samples(k) if k as usize >= n => Some(RULE_SAMPLES_TRIM_ALL),
            Bound::Seconds(s) if t.partition_point(|&x| x < t[0] + s) >= n => {
                Some(RULE_SECONDS_START_TRIM_ALL)
            }
            _ => None,
        };
        let end = || match m.end {
            Bound::Samples(k) if k < 0 => Some(RULE_NEGATIVE_SAMPLES),
            Bound::Samples(k) if k as usize >= n => Some(RULE_SAMPLES_TRIM_ALL),
            Bound::Seconds(s) if t.partition_point(|&x| x <= t[n - 1] - s) == 0 => {
                Some(RULE_SECONDS_END_TRIM_ALL)
            }
            _ => None,
        };
        start.or_else(end).map(|rule| (name, rule))
    })
}

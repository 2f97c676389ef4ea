//! Parity cases of `sensor_window.json`: the `Sensor` fallbacks (`stream`,
//! `stream_batches`, `duration`, `framerate`) and `Window`.
//!
//! Each case is classified by rules on its *inputs*; where a rule says we
//! diverge on purpose (see `docs/divergences.md`), our own
//! behaviour is checked instead, and everything else in the case is still
//! compared exactly with the reference. Window lookups at negative indices
//! are counted one by one (`common::negative_lookup`).

use adl::{Error, Metadata, Result, Sensor, Series, Timestamps, Window};
use serde_json::Value;

use super::common::{
    Tally, cases, expected_error, f64_of, f64s, negative_lookup, python_type, usizes,
};

const RULE_BATCH_ZERO: &str =
    "stream_batches(0) is InvalidParameter (the reference divides by zero)";
const RULE_FRAMERATE_FEW: &str =
    "framerate of fewer than 2 samples is None (the reference gives NaN or ZeroDivisionError)";
const RULE_CONSTANT: &str = "constant timestamps are rejected by Timestamps, and their \
     framerate is None (the reference gives inf)";
const RULE_PARALLEL_ZERO: &str =
    "Window has no worker count (parallel loading is the engine's); parallel=0 loads normally";

/// A sensor over unvalidated timestamps, for the reference's inputs that
/// `Timestamps` rejects; sample `i` is `i`.
struct Raw(Vec<f64>);

impl Metadata for Raw {
    fn timestamps(&self) -> &[f64] {
        &self.0
    }
}

impl Sensor for Raw {
    type Sample = usize;
    type Metadata = Raw;
    fn name(&self) -> &str {
        "raw"
    }
    fn metadata(&self) -> &Raw {
        self
    }
    fn get(&self, index: usize) -> Result<usize> {
        if index < self.0.len() {
            Ok(index)
        } else {
            Err(Error::out_of_range("sensor `raw`", index, self.0.len()))
        }
    }
}

/// A sensor `s` with `times`, whose sample `i` is `i`.
fn series(times: Vec<f64>) -> Series<impl Fn(usize) -> Result<usize>> {
    let ts = Timestamps::new("s", times).expect("golden timestamps are valid here");
    Series::new("s", ts, Ok)
}

fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(what()) }
}

/// Run every case of `file`.
pub fn run(file: &'static str) -> Tally {
    let mut tally = Tally::new(file);
    for case in cases(file) {
        let id = case["id"].as_str().expect("case id").to_owned();
        let (rules, check) = match case["kind"].as_str().expect("kind") {
            "stream" => stream(&case),
            "duration" => duration(&case),
            "window" => window(&case, &mut tally.negative_lookups),
            other => (Vec::new(), Err(format!("unknown kind {other}"))),
        };
        if rules.is_empty() {
            tally.matches(&id, check);
        } else {
            tally.diverges(&id, &rules.join("; "), check);
        }
    }
    tally
}

fn stream(case: &Value) -> (Vec<&'static str>, Result<(), String>) {
    let n = case["n"].as_u64().expect("n") as usize;
    let expected = &case["expected"];
    let s = series((0..n).map(|i| i as f64).collect());
    match case["batch"].as_u64() {
        None => {
            let ours: Result<Vec<usize>> = s.stream().collect();
            let check = match ours {
                Ok(items) => ensure(items == usizes(&expected["stream"]), || {
                    format!("stream {items:?}, expected {}", expected["stream"])
                }),
                Err(e) => Err(format!("stream failed: {e}")),
            };
            (Vec::new(), check)
        }
        Some(0) => {
            let check = match s.stream_batches(0) {
                Err(Error::InvalidParameter { .. }) => {
                    ensure(expected_error(expected).is_some(), || {
                        "the reference did not fail".into()
                    })
                }
                Err(e) => Err(format!("wrong error: {e}")),
                Ok(_) => Err("stream_batches(0) accepted".into()),
            };
            (vec![RULE_BATCH_ZERO], check)
        }
        Some(batch) => {
            let ours = s
                .stream_batches(batch as usize)
                .and_then(|b| b.collect::<Result<Vec<Vec<usize>>>>());
            let want: Vec<Vec<usize>> = expected["stream"]
                .as_array()
                .expect("stream")
                .iter()
                .map(usizes)
                .collect();
            let check = match ours {
                Ok(batches) => ensure(batches == want, || {
                    format!("batches {batches:?}, expected {want:?}")
                }),
                Err(e) => Err(format!("stream_batches failed: {e}")),
            };
            (Vec::new(), check)
        }
    }
}

fn duration(case: &Value) -> (Vec<&'static str>, Result<(), String>) {
    let times = f64s(&case["timestamps"]);
    let expected = &case["expected"];
    let len = expected["len"].as_u64().expect("len") as usize;
    let want_duration = f64_of(&expected["duration"]);
    let same = |s: &dyn Fn() -> (usize, f64)| {
        let (l, d) = s();
        ensure(l == len && d == want_duration, || {
            format!("len {l} duration {d}, expected {len} and {want_duration}")
        })
    };
    if Timestamps::validate("s", &times).is_err() {
        // Only constant timestamps reach here (the golden's are sorted and finite).
        let check = match Timestamps::new("s", times.clone()) {
            Err(Error::ConstantTimestamps { .. }) => {
                let raw = Raw(times);
                same(&|| (raw.len(), raw.duration())).and_then(|()| {
                    ensure(raw.framerate().is_none(), || {
                        format!("framerate {:?}", raw.framerate())
                    })
                })
            }
            other => Err(format!(
                "Timestamps::new gave {other:?}, expected ConstantTimestamps"
            )),
        };
        return (vec![RULE_CONSTANT], check);
    }
    let s = series(times);
    let base = same(&|| (s.len(), s.duration()));
    if len < 2 {
        let check = base.and_then(|()| {
            ensure(s.framerate().is_none(), || {
                format!("framerate {:?}, expected None", s.framerate())
            })
        });
        return (vec![RULE_FRAMERATE_FEW], check);
    }
    let want = f64_of(&expected["framerate"]);
    let check = base.and_then(|()| {
        ensure(s.framerate() == Some(want), || {
            format!("framerate {:?}, expected {want}", s.framerate())
        })
    });
    (Vec::new(), check)
}

/// A `Window` case, built with [`Window::with_crop`] (the reference's
/// constructor, which accepts a window of any length: a cropped window
/// longer than its sensor is empty, as the reference's
/// `T[past:-future]`, a slice that stops before it starts, is) and
/// compared exactly: `len`, metadata timestamps, and every lookup at a
/// non-negative index. Lookups at negative indices are counted in
/// `negatives` (see [`negative_lookup`]). Also checked, as our own API:
/// [`Window::new`] refuses exactly the windows longer than their sensor
/// (`past + 1 + future > n`) and otherwise builds the same cropped window.
fn window(case: &Value, negatives: &mut usize) -> (Vec<&'static str>, Result<(), String>) {
    let n = case["n"].as_u64().expect("n") as usize;
    let past = case["past"].as_u64().expect("past") as usize;
    let future = case["future"].as_u64().expect("future") as usize;
    let crop = case["crop"].as_bool().expect("crop");
    let parallel = case.get("parallel").and_then(Value::as_u64);
    let times = f64s(&case["base_timestamps"]);
    let expected = &case["expected"];
    let s = series(times.clone());
    let w = Window::with_crop(&s, past, future, crop);

    let mut rules = Vec::new();
    let mut problems = Vec::new();

    let want_len = expected["len"].as_u64().expect("len") as usize;
    if w.len() != want_len {
        problems.push(format!("len {}, expected {want_len}", w.len()));
    }
    // (The `parallel` cases do not record the metadata.)
    if let Some(ts) = expected.get("metadata_timestamps") {
        let want = f64s(ts);
        if w.metadata().timestamps() != want.as_slice() {
            problems.push(format!(
                "timestamps {:?}, expected {want:?}",
                w.metadata().timestamps()
            ));
        }
    }
    if let Err(why) = check_window_new(&s, past, future, n) {
        problems.push(why);
    }
    if parallel == Some(0) {
        rules.push(RULE_PARALLEL_ZERO);
    }

    for lookup in expected["lookups"].as_array().expect("lookups") {
        let index = lookup["index"].as_i64().expect("lookup index");
        if index < 0 {
            if let Err(why) = negative_lookup(negatives, index, |i| w.get(i)) {
                problems.push(why);
            }
            continue;
        }
        let golden_error = lookup
            .get("error")
            .map(|e| e["type"].as_str().expect("error type"));
        let index = index as usize;
        let ours = w.get(index);
        match golden_error {
            Some("ValueError") if parallel == Some(0) => {
                // The reference refuses zero workers; we load the window.
                let first = if crop {
                    Some(index)
                } else {
                    index.checked_sub(past)
                };
                let want: Vec<usize> = match first {
                    Some(first) => (first..=first + past + future).collect(),
                    None => Vec::new(),
                };
                match ours {
                    Ok(got) if got == want => {}
                    other => problems.push(format!("[{index}] gave {other:?}, expected {want:?}")),
                }
            }
            Some(ty) => match ours {
                Err(e) if python_type(&e) == ty => {}
                other => problems.push(format!("[{index}] gave {other:?}, expected {ty}")),
            },
            None => {
                let want = usizes(&lookup["window"]);
                match ours {
                    Ok(got) if got == want => {}
                    other => problems.push(format!("[{index}] gave {other:?}, expected {want:?}")),
                }
            }
        }
    }
    let check = if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    };
    (rules, check)
}

/// [`Window::new`] refuses a window longer than its sensor (`past + 1 +
/// future > n`) with `InvalidParameter` naming the sensor; any other
/// window it builds cropped, the same as `with_crop(.., true)`.
fn check_window_new<S: Sensor>(s: &S, past: usize, future: usize, n: usize) -> Result<(), String> {
    let too_long = past + 1 + future > n;
    match Window::new(s, past, future) {
        Err(Error::InvalidParameter { parameter, .. })
            if too_long && parameter.contains(&format!("`{}`", s.name())) =>
        {
            Ok(())
        }
        Ok(w) if !too_long => {
            let cropped = Window::with_crop(s, past, future, true);
            if w.len() == cropped.len()
                && w.metadata().timestamps() == cropped.metadata().timestamps()
            {
                Ok(())
            } else {
                Err(format!(
                    "Window::new gave len {} and timestamps {:?}, with_crop len {} and {:?}",
                    w.len(),
                    w.metadata().timestamps(),
                    cropped.len(),
                    cropped.metadata().timestamps()
                ))
            }
        }
        Ok(w) => Err(format!(
            "Window::new accepted a window of {} samples over {n} (len {})",
            past + 1 + future,
            w.len()
        )),
        Err(e) => Err(format!(
            "Window::new gave {e:?}, expected {}",
            if too_long {
                "InvalidParameter naming the sensor"
            } else {
                "a window"
            }
        )),
    }
}

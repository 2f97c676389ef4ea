//! Loading golden files and counting results.

use std::path::PathBuf;

use adl::Error;
use serde_json::Value;

/// The cases of one golden file.
pub fn cases(file: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut doc: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    match doc["cases"].take() {
        Value::Array(cases) => cases,
        _ => panic!("{} has no `cases` array", path.display()),
    }
}

/// A golden float: a JSON number, or one of the strings "inf", "-inf", "nan".
pub fn f64_of(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().expect("finite number"),
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        Value::String(s) if s == "nan" => f64::NAN,
        other => panic!("not a golden float: {other}"),
    }
}

/// A JSON array of golden floats.
pub fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array of floats")
        .iter()
        .map(f64_of)
        .collect()
}

/// A JSON array of unsigned integers.
pub fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("array of integers")
        .iter()
        .map(|x| x.as_u64().expect("unsigned integer") as usize)
        .collect()
}

/// The Python exception type that corresponds to one of our errors, for
/// cases where both sides fail.
pub fn python_type(e: &Error) -> &'static str {
    match e {
        Error::UnknownSensor { .. } => "KeyError",
        Error::IndexOutOfRange { .. } | Error::EmptySensor { .. } => "IndexError",
        Error::InvalidParameter { .. }
        | Error::NonFiniteTimestamp { .. }
        | Error::UnsortedTimestamps { .. }
        | Error::ConstantTimestamps { .. }
        | Error::DuplicateSensor { .. }
        | Error::BadIndices { .. } => "ValueError",
        _ => "Exception",
    }
}

/// The expected error type of a golden `expected` object, if it is an error.
pub fn expected_error(expected: &Value) -> Option<&str> {
    expected
        .get("error")
        .map(|e| e["type"].as_str().expect("error type"))
}

/// What the rules say about one case, and the result of checking it.
pub enum Verdict {
    /// The case must give exactly the reference's result: the comparison.
    Matches(Result<(), String>),
    /// We diverge on purpose (the rule's reason): the check of our own
    /// behaviour instead.
    Diverges(&'static str, Result<(), String>),
    /// The case cannot be written in Rust (or what could be written would
    /// test the harness, not the library): not run, with the reason.
    NoAnalogue(String),
}

/// Counts for one golden file.
#[derive(Debug)]
pub struct Tally {
    /// The golden file.
    pub file: &'static str,
    /// Cases where we give exactly the reference's result.
    pub matched: usize,
    /// Cases where we diverge on purpose and our own behaviour checked out.
    pub diverged: usize,
    /// `id: why`, for cases that have no Rust analogue (and so are not run).
    pub no_analogue: Vec<String>,
    /// Lookups at a negative index inside the cases that ran, counted one
    /// by one (see [`negative_lookup`]); not compared with the reference.
    pub negative_lookups: usize,
    /// `id: what went wrong`, for every failing case.
    pub failures: Vec<String>,
}

impl Tally {
    /// An empty tally for `file`.
    pub fn new(file: &'static str) -> Self {
        Tally {
            file,
            matched: 0,
            diverged: 0,
            no_analogue: Vec::new(),
            negative_lookups: 0,
            failures: Vec::new(),
        }
    }

    /// Record a case that must match the reference.
    pub fn matches(&mut self, id: &str, check: Result<(), String>) {
        match check {
            Ok(()) => self.matched += 1,
            Err(why) => self.failures.push(format!("{}/{id}: {why}", self.file)),
        }
    }

    /// Record a case that diverges on purpose; `check` tests our behaviour.
    pub fn diverges(&mut self, id: &str, reason: &str, check: Result<(), String>) {
        match check {
            Ok(()) => self.diverged += 1,
            Err(why) => self
                .failures
                .push(format!("{}/{id} (diverges: {reason}): {why}", self.file)),
        }
    }

    /// Record a case that has no Rust analogue, with the reason.
    pub fn no_analogue(&mut self, id: &str, reason: &str) {
        self.no_analogue.push(format!("{id}: {reason}"));
    }

    /// Record a case as its [`Verdict`] says.
    pub fn record(&mut self, id: &str, verdict: Verdict) {
        match verdict {
            Verdict::Matches(check) => self.matches(id, check),
            Verdict::Diverges(reason, check) => self.diverges(id, reason, check),
            Verdict::NoAnalogue(reason) => self.no_analogue(id, &reason),
        }
    }

    /// One line: `file: N matched, M diverge on purpose, K failed` (and how
    /// many cases have no Rust analogue, and how many lookups were at
    /// negative indices, if any).
    pub fn summary(&self) -> String {
        let skipped = match self.no_analogue.len() {
            0 => String::new(),
            n => format!(", {n} without a Rust analogue"),
        };
        let negative = match self.negative_lookups {
            0 => String::new(),
            n => format!(
                ", {n} lookups at negative indices not representable \
                 (each checked out of range as usize)"
            ),
        };
        format!(
            "{}: {} matched, {} diverge on purpose{skipped}{negative}, {} failed",
            self.file,
            self.matched,
            self.diverged,
            self.failures.len()
        )
    }
}

/// A lookup at a negative `index`. Python wraps it (a Trace's index
/// arrays) or refuses it (`Window`, `Dataset`); our indices are `usize`,
/// so it cannot be written, and its golden result is not compared. Every
/// file treats each such lookup the same way: it is counted in `count`
/// (per lookup, not per case), and our lookup at the same bits read as a
/// `usize` (`-1 as usize == usize::MAX`) must be
/// [`Error::IndexOutOfRange`], without a panic or an overflow.
pub fn negative_lookup<T: std::fmt::Debug>(
    count: &mut usize,
    index: i64,
    get: impl FnOnce(usize) -> adl::Result<T>,
) -> Result<(), String> {
    debug_assert!(index < 0, "not a negative index: {index}");
    *count += 1;
    let wrapped = index as usize;
    // A panic is a failure of this lookup, reported with the others (the
    // harness is single-threaded: swapping the hook is safe).
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let ours = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| get(wrapped)));
    std::panic::set_hook(hook);
    match ours {
        Ok(Err(Error::IndexOutOfRange { .. })) => Ok(()),
        Ok(other) => Err(format!(
            "[{index} as usize = {wrapped}] gave {other:?}, expected IndexOutOfRange"
        )),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(format!(
                "[{index} as usize = {wrapped}] panicked: {message}"
            ))
        }
    }
}

/// The first difference between `ours` and the reference's `theirs`, with
/// its path (`$` for the whole value, then `.key` and `[index]`), or `None`
/// if they are the same. Unlike `==` on
/// `serde_json::Value` (which compares objects as maps), the keys of every
/// object must come in the same order: a Python dict keeps its order.
pub fn json_difference(ours: &Value, theirs: &Value) -> Option<String> {
    fn walk(path: &str, ours: &Value, theirs: &Value) -> Option<String> {
        match (ours, theirs) {
            (Value::Object(a), Value::Object(b)) => {
                let ka: Vec<&String> = a.keys().collect();
                let kb: Vec<&String> = b.keys().collect();
                if ka != kb {
                    return Some(format!("at {path}: keys {ka:?}, expected {kb:?}"));
                }
                a.iter()
                    .find_map(|(k, v)| walk(&format!("{path}.{k}"), v, &b[k]))
            }
            (Value::Array(a), Value::Array(b)) => {
                if a.len() != b.len() {
                    return Some(format!(
                        "at {path}: {} elements, expected {}",
                        a.len(),
                        b.len()
                    ));
                }
                a.iter()
                    .zip(b)
                    .enumerate()
                    .find_map(|(i, (x, y))| walk(&format!("{path}[{i}]"), x, y))
            }
            (a, b) if a == b => None,
            (a, b) => Some(format!("at {path}: {a}, expected {b}")),
        }
    }
    walk("$", ours, theirs)
}

/// The keys of a golden JSON object, in the file's (Python's) order.
pub fn key_order(v: &Value) -> Vec<String> {
    v.as_object().expect("object").keys().cloned().collect()
}

/// The margins of golden `params` (`margin` + `margin_kinds`): a pair
/// `[start, end]` for all sensors or an object `{sensor: [start, end]}`.
/// A kind is `"index"` (samples) or `"time"` (seconds); without
/// `margin_kinds`, a JSON integer is samples and anything else seconds. No
/// `margin` is the library default (none). A pair that is not of length 2
/// is [`Error::InvalidParameter`] (the reference's TypeError).
pub fn margins_from_params(params: &Value) -> Result<adl::sync::Margins, Error> {
    use adl::sync::{Margin, Margins};
    let kinds = params.get("margin_kinds");
    let pair = |what: String, v: &Value, kinds: Option<&Value>| -> Result<Margin, Error> {
        let ends = v.as_array().expect("margin pair is an array");
        if ends.len() != 2 {
            return Err(Error::invalid(
                what,
                format!(
                    "must be a pair (start, end), got {} values: {v}",
                    ends.len()
                ),
            ));
        }
        let bound = |i: usize| {
            let kind = kinds.and_then(|k| k.get(i)).and_then(Value::as_str);
            let is_index = match kind {
                Some("index") => true,
                Some("time") => false,
                Some(other) => panic!("unknown margin kind {other}"),
                None => ends[i].is_i64() || ends[i].is_u64(),
            };
            if is_index {
                adl::sync::Bound::Samples(ends[i].as_i64().expect("integer margin"))
            } else {
                adl::sync::Bound::Seconds(f64_of(&ends[i]))
            }
        };
        Ok(Margin::new(bound(0), bound(1)))
    };
    match params.get("margin") {
        None | Some(Value::Null) => Ok(Margins::default()),
        Some(v @ Value::Array(_)) => Ok(Margins::All(pair("margin".into(), v, kinds)?)),
        Some(Value::Object(map)) => {
            let mut list = Vec::with_capacity(map.len());
            for (sensor, v) in map {
                let k = kinds.and_then(|k| k.get(sensor));
                list.push((
                    sensor.clone(),
                    pair(format!("margin for sensor `{sensor}`"), v, k)?,
                ));
            }
            Ok(Margins::PerSensor(list))
        }
        Some(other) => panic!("not a golden margin: {other}"),
    }
}

/// Build the synchronization policy `policy` ("Empty", "Next", "Nearest",
/// "Decimate") from golden `params`. Missing `margin`/`tol` are the library
/// defaults (no margin, tolerance 0.1); `tol` may be "inf". Decimate's
/// params are `{inner: {policy, params}, factor, reference}`. Errors are the
/// ones our constructors give (the reference's "construct" stage).
pub fn sync_from_params(
    policy: &str,
    params: &Value,
) -> Result<Box<dyn adl::Synchronization>, Error> {
    use adl::sync::{Decimate, Empty, Nearest, Next};
    let reference = || {
        params["reference"]
            .as_str()
            .expect("reference name")
            .to_owned()
    };
    Ok(match policy {
        "Empty" => Box::new(Empty),
        "Next" => Box::new(Next::new(reference()).margin(margins_from_params(params)?)),
        "Nearest" => {
            let tol = params.get("tol").map_or(0.1, f64_of);
            // The reference checks the tolerance before the margins.
            let nearest = Nearest::new(reference(), tol)?;
            Box::new(nearest.margin(margins_from_params(params)?))
        }
        "Decimate" => {
            let inner = &params["inner"];
            let inner = sync_from_params(
                inner["policy"].as_str().expect("inner policy"),
                &inner["params"],
            )?;
            let factor = params["factor"].as_u64().expect("decimation factor") as usize;
            let decimate = Decimate::new(inner, factor)?;
            match params.get("reference").and_then(Value::as_str) {
                Some(name) => Box::new(decimate.reference(name)),
                None => Box::new(decimate),
            }
        }
        other => {
            return Err(Error::invalid(
                "synchronization policy",
                format!("unknown: {other}"),
            ));
        }
    })
}

//! Parity of `Recording` (Trace) and `Concat` (Dataset) with the reference's
//! `abstract.Trace` and `abstract.Dataset` (golden: trace_dataset.json).
//!
//! Sensors come back in the reference's order: a lookup's `Record` must
//! name its sensors in the golden `sensor_indices`' key order, and the
//! trace's index columns in the golden `indices`' order.
//!
//! Lookups at negative indices (the reference wraps them in a Trace and
//! refuses them in a Dataset) cannot be written with `usize` indices:
//! each is counted and checked as in every file (`common::negative_lookup`).
//!
//! Divergences, by rule:
//! - unsynchronized sensors of unequal lengths, and manual index arrays of
//!   unequal lengths: the reference builds the trace and fails (or reads a
//!   different sensor length) on some lookups; we refuse to build it
//!   ([`Error::BadIndices`]).

use adl::{Concat, Dataset, Error, Indices, Recording, Result, Series, Timestamps};
use serde_json::Value;

use super::common::{
    Tally, expected_error, f64s, key_order, negative_lookup, python_type, sync_from_params, usizes,
};

type TestSensor = Series<fn(usize) -> Result<usize>>;
type TestTrace = Recording<Vec<TestSensor>>;
type Part = Box<dyn Dataset<Sample = adl::Record<usize>>>;

fn identity(i: usize) -> Result<usize> {
    Ok(i)
}

fn build_trace(spec: &Value) -> Result<TestTrace> {
    let names: Vec<&str> = spec["sensors"]
        .as_array()
        .expect("sensor list")
        .iter()
        .map(|n| n.as_str().expect("sensor name"))
        .collect();
    let sensors = names
        .iter()
        .map(|&n| {
            let ts = Timestamps::new(n, f64s(&spec["timestamps"][n]))?;
            Ok(Series::new(n, ts, identity as fn(usize) -> Result<usize>))
        })
        .collect::<Result<Vec<_>>>()?;
    let sync = &spec["sync"];
    match sync["policy"].as_str().expect("policy") {
        "None" => Recording::aligned("trace", sensors),
        "Manual" => {
            let columns = names
                .iter()
                .map(|&n| {
                    let col = usizes(&sync["indices"][n])
                        .into_iter()
                        .map(|i| i as u32)
                        .collect();
                    (n.to_owned(), col)
                })
                .collect();
            Recording::with_indices("trace", sensors, Indices::new(columns)?)
        }
        policy => Recording::new("trace", sensors, &sync_from_params(policy, sync)?),
    }
}

/// Our refusal to build a trace the reference builds, if the rule applies.
fn divergence(spec: &Value) -> Option<&'static str> {
    let sync = &spec["sync"];
    let lens = |obj: &Value| -> Vec<usize> {
        obj.as_object()
            .expect("object")
            .values()
            .map(|v| v.as_array().expect("array").len())
            .collect()
    };
    let unequal = |l: Vec<usize>| l.windows(2).any(|w| w[0] != w[1]);
    match sync["policy"].as_str() {
        Some("None") if unequal(lens(&spec["timestamps"])) => {
            Some("unsynchronized sensors of unequal lengths are refused")
        }
        Some("Manual") if unequal(lens(&sync["indices"])) => {
            Some("manual index arrays of unequal lengths are refused")
        }
        _ => None,
    }
}

fn check_error(
    ours: Result<impl std::fmt::Debug>,
    expected: &Value,
) -> std::result::Result<(), String> {
    let want = expected_error(expected).expect("an error case");
    match ours {
        Err(e) if python_type(&e) == want => Ok(()),
        other => Err(format!("expected {want}, got {other:?}")),
    }
}

fn check_sensor_indices(
    sample: Result<adl::Record<usize>>,
    expected: &Value,
) -> std::result::Result<(), String> {
    let sample = sample.map_err(|e| format!("expected {expected}, got error {e}"))?;
    let want = expected.as_object().expect("sensor_indices object");
    let order = key_order(expected);
    if sample.names() != order.as_slice() {
        return Err(format!(
            "sensors {:?}, expected {order:?} (in this order)",
            sample.names()
        ));
    }
    for (name, index) in want {
        let got = sample.get(name).copied();
        if got != index.as_u64().map(|i| i as usize) {
            return Err(format!("sensor {name}: expected {index}, got {got:?}"));
        }
    }
    Ok(())
}

fn check_trace(
    trace: &TestTrace,
    expected: &Value,
    negatives: &mut usize,
) -> std::result::Result<(), String> {
    let len = expected["length"].as_u64().expect("length") as usize;
    if trace.len() != len {
        return Err(format!("length: expected {len}, got {}", trace.len()));
    }
    match (&expected["indices"], trace.indices()) {
        (Value::Null, None) => {}
        (want @ Value::Object(columns), Some(got)) => {
            let order = key_order(want);
            if got.names() != order.as_slice() {
                return Err(format!(
                    "index columns {:?}, expected {order:?} (in this order)",
                    got.names()
                ));
            }
            for (name, col) in columns {
                let want: Vec<u32> = usizes(col).into_iter().map(|i| i as u32).collect();
                if got.column(name) != Some(&want[..]) {
                    return Err(format!(
                        "indices of {name}: expected {want:?}, got {:?}",
                        got.column(name)
                    ));
                }
            }
        }
        (want, got) => return Err(format!("indices: expected {want}, got {got:?}")),
    }
    for lookup in expected["lookups"].as_array().expect("lookups") {
        let index = lookup["index"].as_i64().expect("lookup index");
        let result = if index < 0 {
            negative_lookup(negatives, index, |i| trace.get(i))
        } else if lookup.get("error").is_some() {
            check_error(trace.get(index as usize), lookup)
        } else {
            check_sensor_indices(trace.get(index as usize), &lookup["sensor_indices"])
        };
        result.map_err(|e| format!("trace lookup {index}: {e}"))?;
    }
    Ok(())
}

/// Build the dataset as the case says (flat, or nested per `nesting`); also
/// return the trace numbers inside each top-level part.
fn build_dataset(case: &Value, traces: Vec<TestTrace>) -> Result<(Concat<Part>, Vec<Vec<usize>>)> {
    let members: Vec<Vec<usize>> = match case.get("nesting") {
        None => (0..traces.len()).map(|i| vec![i]).collect(),
        Some(nesting) => nesting
            .as_array()
            .expect("nesting list")
            .iter()
            .map(|entry| match entry {
                Value::Array(inner) => inner
                    .iter()
                    .map(|i| i.as_u64().expect("trace number") as usize)
                    .collect(),
                i => vec![i.as_u64().expect("trace number") as usize],
            })
            .collect(),
    };
    let mut traces: Vec<Option<TestTrace>> = traces.into_iter().map(Some).collect();
    let mut parts: Vec<Part> = Vec::new();
    let mut take = |i: usize| traces[i].take().expect("each trace used once");
    for (k, member) in members.iter().enumerate() {
        if case.get("nesting").is_some_and(|n| n[k].is_array()) {
            parts.push(Box::new(Concat::new(
                member.iter().map(|&i| take(i)).collect(),
            )?));
        } else {
            parts.push(Box::new(take(member[0])));
        }
    }
    Ok((Concat::new(parts)?, members))
}

/// The flat trace number and local index that global `index` reads, walking
/// our own trace lengths inside the part that `Concat::locate` picked.
fn flat_location(
    ds: &Concat<Part>,
    members: &[Vec<usize>],
    lens: &[usize],
    index: usize,
) -> Result<(usize, usize)> {
    let (part, mut local) = ds.locate(index)?;
    for &trace in &members[part] {
        if local < lens[trace] {
            return Ok((trace, local));
        }
        local -= lens[trace];
    }
    Err(Error::out_of_range("part", local, ds.parts()[part].len()))
}

fn check_case(case: &Value, negatives: &mut usize) -> std::result::Result<(), String> {
    let expected = &case["expected"];
    let traces = case["traces"]
        .as_array()
        .expect("traces")
        .iter()
        .enumerate()
        .map(|(i, spec)| build_trace(spec).map_err(|e| format!("trace {i}: {e}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    for (i, (trace, want)) in traces
        .iter()
        .zip(expected["traces"].as_array().expect("traces"))
        .enumerate()
    {
        check_trace(trace, want, negatives).map_err(|e| format!("trace {i}: {e}"))?;
    }
    let lens: Vec<usize> = traces.iter().map(Dataset::len).collect();
    let (ds, members) = build_dataset(case, traces).map_err(|e| e.to_string())?;
    let len = expected["dataset_length"].as_u64().expect("dataset_length") as usize;
    if ds.len() != len {
        return Err(format!("dataset length: expected {len}, got {}", ds.len()));
    }
    let ends = usizes(&expected["end_indices"]);
    if ds.ends() != ends {
        return Err(format!(
            "end indices: expected {ends:?}, got {:?}",
            ds.ends()
        ));
    }
    for lookup in expected["lookups"].as_array().expect("lookups") {
        let index = lookup["index"].as_i64().expect("lookup index");
        if index < 0 {
            negative_lookup(negatives, index, |i| ds.get(i))
                .map_err(|e| format!("dataset lookup {index}: {e}"))?;
            continue;
        }
        let index = index as usize;
        let result = if lookup.get("error").is_some() {
            check_error(ds.get(index), lookup)
        } else {
            let want = (
                lookup["trace"].as_u64().unwrap() as usize,
                lookup["local"].as_u64().unwrap() as usize,
            );
            match flat_location(&ds, &members, &lens, index) {
                Ok(got) if got == want => {
                    check_sensor_indices(ds.get(index), &lookup["sensor_indices"])
                }
                other => Err(format!("location: expected {want:?}, got {other:?}")),
            }
        };
        result.map_err(|e| format!("dataset lookup {index}: {e}"))?;
    }
    Ok(())
}

/// Run every case of `file`.
pub fn run(file: &'static str) -> Tally {
    let mut tally = Tally::new(file);
    for case in super::common::cases(file) {
        let id = case["id"].as_str().expect("id");
        let refused = case["traces"]
            .as_array()
            .expect("traces")
            .iter()
            .find_map(divergence);
        match refused {
            Some(reason) => {
                let ours = case["traces"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(build_trace)
                    .find_map(Result::err);
                let check = match ours {
                    Some(Error::BadIndices { .. }) => Ok(()),
                    other => Err(format!("expected Error::BadIndices, got {other:?}")),
                };
                tally.diverges(id, reason, check);
            }
            None => {
                let check = check_case(&case, &mut tally.negative_lookups);
                tally.matches(id, check);
            }
        }
    }
    tally
}

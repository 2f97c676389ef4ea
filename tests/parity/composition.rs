//! Parity of transforms, collates and pipelines with the reference's
//! `abstract.Transform`, `abstract.Collate`, `abstract.Pipeline`,
//! `generic.SequencePipeline`, `generic.ParallelPipelines` and
//! `generic.ParallelTransforms` (golden: composition.json).
//!
//! Ops (`{op: add|mul, k}`) become closures over `i64`, chained with
//! `then`; a `batch` op list is mapped over the collated list; `collate:
//! "list"` or `null` is [`IdentityCollate`]. Keyed cases run over
//! `BTreeMap`, `HashMap` and `Record` samples alike; a `Record` keeps its
//! keys in order, as a Python dict does, so with `Record` samples every
//! keyed result must also have the reference's key order (a `BTreeMap` is
//! sorted by definition and a `HashMap` has no order: those are compared
//! as maps).
//!
//! Divergences, by rule (see `docs/divergences.md`):
//! - SequencePipeline with raw sequences of different lengths: the reference
//!   truncates to the shortest (`zip`); we check that the sample stage
//!   matches and that collate fails with an `Error::Collate` naming the
//!   first sample whose length differs from sample 0's, and both lengths.
//!
//! `generic.DatasetMeta` cases run through `adl::pipes::DatasetMeta` over
//! `Record` samples (which keep the reference's key order).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::Arc;

use adl::pipeline::{self, IdentityCollate, ParallelPipelines, SequencePipeline, Stages};
use adl::transform::{
    BoxedTransform, Identity, Keyed, MissingKey, ParallelTransforms, TransformExt, fallible,
};
use adl::{Collate, Error, Pipeline, Record, Transform};
use serde_json::Value;

use super::common::{Tally, expected_error, key_order};

type Step = BoxedTransform<i64, i64>;
type Batch = BoxedTransform<Vec<i64>, Vec<i64>>;
type TestPipeline = Stages<Step, IdentityCollate, Batch>;
type Check = Result<(), String>;

/// `ops` (a JSON list, or null for none) as one transform, chained with
/// `then` from the identity.
fn step(ops: &Value) -> Step {
    let start = BoxedTransform::new(Identity);
    let Some(ops) = ops.as_array() else {
        assert!(ops.is_null(), "ops must be a list or null: {ops}");
        return start;
    };
    ops.iter().fold(start, |acc, op| {
        let k = op["k"].as_i64().expect("integer k");
        match op["op"].as_str().expect("op name") {
            "add" => acc.then(move |x: i64| x + k).boxed(),
            "mul" => acc.then(move |x: i64| x * k).boxed(),
            other => panic!("unknown op {other}"),
        }
    })
}

/// `ops` mapped over a collated list.
fn batch_step(ops: &Value) -> Batch {
    let f = step(ops);
    fallible(move |v: Vec<i64>| {
        v.into_iter()
            .map(|x| f.apply(x))
            .collect::<adl::Result<Vec<_>>>()
    })
    .boxed()
}

/// A reference `abstract.Pipeline(sample, collate, batch)` spec.
fn pipeline(spec: &Value) -> TestPipeline {
    match &spec["collate"] {
        Value::Null => {}
        Value::String(s) if s == "list" => {}
        other => panic!("unknown collate {other}"),
    }
    Stages::new()
        .with_sample(step(&spec["sample"]))
        .with_collate(IdentityCollate)
        .with_batch(batch_step(&spec["batch"]))
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().expect("list").iter().map(int).collect()
}

fn int_lists(v: &Value) -> Vec<Vec<i64>> {
    v.as_array().expect("list").iter().map(ints).collect()
}

fn int_map(v: &Value) -> BTreeMap<String, i64> {
    v.as_object()
        .expect("object")
        .iter()
        .map(|(k, x)| (k.clone(), int(x)))
        .collect()
}

fn list_map(v: &Value) -> BTreeMap<String, Vec<i64>> {
    v.as_object()
        .expect("object")
        .iter()
        .map(|(k, x)| (k.clone(), ints(x)))
        .collect()
}

fn same<T: PartialEq + Debug>(what: &str, ours: &T, theirs: &T) -> Check {
    if ours == theirs {
        Ok(())
    } else {
        Err(format!("{what}: ours {ours:?}, reference {theirs:?}"))
    }
}

fn ok<T>(r: adl::Result<T>) -> Result<T, String> {
    r.map_err(|e| format!("unexpected error: {e}"))
}

/// The reference raised `KeyError('key')`: ours must be the missing-key
/// error of a parallel step, naming `key`.
fn check_key_error<T: Debug>(ours: adl::Result<T>, expected: &Value) -> Check {
    let theirs = &expected["error"];
    if expected_error(expected) != Some("KeyError") {
        return Err(format!("unexpected reference error {theirs}"));
    }
    let key = theirs["message"]
        .as_str()
        .expect("message")
        .trim_matches('\'');
    match ours {
        Ok(v) => Err(format!(
            "ours succeeded with {v:?}, reference raised {theirs}"
        )),
        Err(Error::Transform { node, cause }) => match cause.downcast_ref::<MissingKey>() {
            Some(m) if m.key == key && node == key => Ok(()),
            _ => Err(format!(
                "ours: transform `{node}`: {cause}; reference {theirs}"
            )),
        },
        Err(e) => Err(format!("ours: {e}; reference {theirs}")),
    }
}

fn transform_case(case: &Value) -> Check {
    let t = step(&case["ops"]);
    let ours = ok(ints(&case["inputs"])
        .into_iter()
        .map(|x| t.apply(x))
        .collect::<adl::Result<Vec<_>>>())?;
    same("outputs", &ours, &ints(&case["expected"]))
}

fn collate_case(case: &Value) -> Check {
    let ours = ok(int_lists(&case["inputs"])
        .into_iter()
        .map(|batch| IdentityCollate.collate(batch))
        .collect::<adl::Result<Vec<_>>>())?;
    same("collated", &ours, &int_lists(&case["expected"]))
}

fn pipeline_case(case: &Value) -> Check {
    let p = pipeline(&case["pipeline"]);
    let raw = ints(&case["raw"]);
    let expected = &case["expected"];
    let transformed = ok(raw
        .iter()
        .map(|&x| p.sample(x))
        .collect::<adl::Result<Vec<_>>>())?;
    same("transformed", &transformed, &ints(&expected["transformed"]))?;
    let collated = ok(p.collate(transformed))?;
    same("collated", &collated, &ints(&expected["collated"]))?;
    let processed = ok(p.batch(collated))?;
    same("processed", &processed, &ints(&expected["processed"]))?;
    same("run", &ok(pipeline::run(&p, raw))?, &processed)
}

/// Rule: raw sequences of different lengths (the reference truncates).
fn ragged(raw: &[Vec<i64>]) -> Option<(usize, usize, usize)> {
    let first = raw.first()?.len();
    raw.iter()
        .position(|s| s.len() != first)
        .map(|at| (at, raw[at].len(), first))
}

fn sequence_case(case: &Value, tally: &mut Tally, id: &str) {
    let p = SequencePipeline::new(pipeline(&case["pipeline"]));
    let raw = int_lists(&case["raw"]);
    let expected = &case["expected"];
    let transformed = raw
        .iter()
        .map(|s| p.sample(s.clone()))
        .collect::<adl::Result<Vec<_>>>();
    let check_transformed = || -> Result<Vec<Vec<i64>>, String> {
        let t = ok(transformed)?;
        same("transformed", &t, &int_lists(&expected["transformed"]))?;
        Ok(t)
    };
    if let Some((position, len, first)) = ragged(&raw) {
        let check = (|| {
            let t = check_transformed()?;
            match p.collate(t) {
                Err(Error::Collate {
                    path,
                    position: at,
                    reason,
                }) if path.is_empty()
                    && at == position
                    && reason
                        .contains(&format!("length {len}, but sample 0 has length {first}")) =>
                {
                    Ok(())
                }
                other => Err(format!(
                    "expected a collate error at sample {position} ({len} vs {first}), got {other:?}"
                )),
            }
        })();
        tally.diverges(id, "ragged sequences are an error, not truncated", check);
        return;
    }
    let check = (|| {
        let t = check_transformed()?;
        let collated = ok(p.collate(t))?;
        same("collated", &collated, &int_lists(&expected["collated"]))?;
        let processed = ok(p.batch(collated))?;
        same("processed", &processed, &int_lists(&expected["processed"]))?;
        same("run", &ok(pipeline::run(&p, raw))?, &processed)
    })();
    tally.matches(id, check);
}

/// A keyed sample type, built from a golden object's entries (in the
/// file's order) and converted to a `BTreeMap` for comparison.
trait Sample<T>: Keyed<Value = T> + Clone {
    fn from_entries(entries: Vec<(String, T)>) -> Self;
    fn to_map(self) -> BTreeMap<String, T>;
    /// The keys in the sample's own order, for a type that has one.
    fn order(&self) -> Option<Vec<String>>;
}

impl<T: Clone> Sample<T> for BTreeMap<String, T> {
    fn from_entries(entries: Vec<(String, T)>) -> Self {
        entries.into_iter().collect()
    }
    fn to_map(self) -> BTreeMap<String, T> {
        self
    }
    fn order(&self) -> Option<Vec<String>> {
        None
    }
}

impl<T: Clone> Sample<T> for HashMap<String, T> {
    fn from_entries(entries: Vec<(String, T)>) -> Self {
        entries.into_iter().collect()
    }
    fn to_map(self) -> BTreeMap<String, T> {
        self.into_iter().collect()
    }
    fn order(&self) -> Option<Vec<String>> {
        None
    }
}

impl<T: Clone> Sample<T> for Record<T> {
    fn from_entries(entries: Vec<(String, T)>) -> Self {
        let (names, values): (Vec<String>, Vec<T>) = entries.into_iter().unzip();
        Record::new(Arc::from(names), values).expect("as many names as values")
    }
    fn to_map(self) -> BTreeMap<String, T> {
        self.into_iter().collect()
    }
    fn order(&self) -> Option<Vec<String>> {
        Some(self.names().to_vec())
    }
}

/// A golden object of integers, as a sample, in the file's key order.
fn int_sample<S: Sample<i64>>(v: &Value) -> S {
    S::from_entries(
        v.as_object()
            .expect("object")
            .iter()
            .map(|(k, x)| (k.clone(), int(x)))
            .collect(),
    )
}

/// A keyed result, as a map, and its key order if its type has one.
type Keyed2<T> = (BTreeMap<String, T>, Option<Vec<String>>);

fn keyed<T: Clone, S: Sample<T>>(s: S) -> Keyed2<T> {
    let order = s.order();
    (s.to_map(), order)
}

/// A keyed result against the golden object `want`: the same entries and,
/// for a type with an order, the same key order.
fn same_keyed<T: PartialEq + Debug>(
    what: &str,
    (ours, order): &Keyed2<T>,
    want: &BTreeMap<String, T>,
    golden: &Value,
) -> Check {
    same(what, ours, want)?;
    match order {
        Some(order) if *order != key_order(golden) => Err(format!(
            "{what}: keys {order:?}, reference {:?} (in this order)",
            key_order(golden)
        )),
        _ => Ok(()),
    }
}

type Stage3 = (Vec<Keyed2<i64>>, Keyed2<Vec<i64>>, Keyed2<Vec<i64>>);

fn parallel_pipelines_on<S>(p: &ParallelPipelines<TestPipeline>, raw: &Value) -> adl::Result<Stage3>
where
    S: Sample<i64>,
    S::Of<i64>: Sample<i64> + Send,
    S::Of<Vec<i64>>: Sample<Vec<i64>>,
{
    let raw: Vec<S> = raw
        .as_array()
        .expect("list")
        .iter()
        .map(int_sample)
        .collect();
    let transformed = raw
        .into_iter()
        .map(|x| p.sample(x))
        .collect::<adl::Result<Vec<_>>>()?;
    let as_maps: Vec<_> = transformed.iter().map(|t| keyed(t.clone())).collect();
    // `collate` and `batch` do not mention the raw type: name it.
    let collated = Pipeline::<S>::collate(p, transformed)?;
    let processed = Pipeline::<S>::batch(p, collated.clone())?;
    Ok((as_maps, keyed(collated), keyed(processed)))
}

fn parallel_pipelines_case(case: &Value) -> Check {
    let p: ParallelPipelines<TestPipeline> = case["pipelines"]
        .as_object()
        .expect("pipelines object")
        .iter()
        .map(|(k, spec)| (k.clone(), pipeline(spec)))
        .collect();
    let expected = &case["expected"];
    let runs = [
        (
            "BTreeMap",
            parallel_pipelines_on::<BTreeMap<String, i64>>(&p, &case["raw"]),
        ),
        (
            "HashMap",
            parallel_pipelines_on::<HashMap<String, i64>>(&p, &case["raw"]),
        ),
        (
            "Record",
            parallel_pipelines_on::<Record<i64>>(&p, &case["raw"]),
        ),
    ];
    for (kind, ours) in runs {
        let check = if expected.get("error").is_some() {
            check_key_error(ours, expected)
        } else {
            ok(ours).and_then(|(t, c, pr)| {
                let want = expected["transformed"].as_array().expect("list");
                if t.len() != want.len() {
                    return Err(format!(
                        "transformed: {} samples, reference {}",
                        t.len(),
                        want.len()
                    ));
                }
                for (i, (t, want)) in t.iter().zip(want).enumerate() {
                    same_keyed(&format!("transformed[{i}]"), t, &int_map(want), want)?;
                }
                let (collated, processed) = (&expected["collated"], &expected["processed"]);
                same_keyed("collated", &c, &list_map(collated), collated)?;
                same_keyed("processed", &pr, &list_map(processed), processed)
            })
        };
        check.map_err(|e| format!("{kind} samples: {e}"))?;
    }
    Ok(())
}

fn parallel_transforms_on<S>(
    t: &ParallelTransforms<Step>,
    input: &Value,
) -> adl::Result<Keyed2<i64>>
where
    S: Sample<i64>,
    S::Of<i64>: Sample<i64>,
{
    Ok(keyed(t.apply(int_sample::<S>(input))?))
}

fn parallel_transforms_case(case: &Value) -> Check {
    let t: ParallelTransforms<Step> = case["transforms"]
        .as_object()
        .expect("transforms object")
        .iter()
        .map(|(k, ops)| (k.clone(), step(ops)))
        .collect();
    let expected = &case["expected"];
    let runs = [
        (
            "BTreeMap",
            parallel_transforms_on::<BTreeMap<String, i64>>(&t, &case["input"]),
        ),
        (
            "HashMap",
            parallel_transforms_on::<HashMap<String, i64>>(&t, &case["input"]),
        ),
        (
            "Record",
            parallel_transforms_on::<Record<i64>>(&t, &case["input"]),
        ),
    ];
    for (kind, ours) in runs {
        let check = if expected.get("error").is_some() {
            check_key_error(ours, expected)
        } else {
            ok(ours).and_then(|out| {
                let want = &expected["output"];
                same_keyed("output", &out, &int_map(want), want)
            })
        };
        check.map_err(|e| format!("{kind} samples: {e}"))?;
    }
    Ok(())
}

/// `DatasetMeta`: every sample (a `Record` of JSON values, in the
/// reference's key order) gets `"meta"` first; a sample's own wins.
fn dataset_meta_case(case: &Value) -> Result<(), String> {
    use adl::pipes::DatasetExt;
    use adl::{Dataset, InMemory, Record};
    let samples: InMemory<Record<Value>> = case["data"]
        .as_array()
        .ok_or("data is not a list")?
        .iter()
        .map(|d| {
            let o = d.as_object().expect("a sample object");
            Record::new(
                o.keys().cloned().collect::<Vec<_>>().into(),
                o.values().cloned().collect(),
            )
        })
        .collect::<adl::Result<_>>()
        .map_err(|e| e.to_string())?;
    let ds = samples.with_meta(case["meta"].clone());
    let expected = &case["expected"];
    if ds.len() as u64 != expected["len"].as_u64().ok_or("no len")? {
        return Err(format!("len {} differs from {}", ds.len(), expected["len"]));
    }
    for (i, (item, order)) in expected["items"]
        .as_array()
        .unwrap()
        .iter()
        .zip(expected["key_order"].as_array().unwrap())
        .enumerate()
    {
        let got = ds.get(i).map_err(|e| e.to_string())?;
        let names: Vec<Value> = got
            .names()
            .iter()
            .map(|n| Value::from(n.as_str()))
            .collect();
        if &Value::Array(names) != order {
            return Err(format!(
                "item {i}: key order {:?}, expected {order}",
                got.names()
            ));
        }
        for (k, v) in got.iter() {
            if &item[k] != v {
                return Err(format!("item {i}: {k} = {v}, expected {}", item[k]));
            }
        }
    }
    Ok(())
}

/// Run every case of `file`.
pub fn run(file: &'static str) -> Tally {
    let mut tally = Tally::new(file);
    for case in super::common::cases(file) {
        let id = case["id"].as_str().expect("case id").to_owned();
        match case["kind"].as_str().expect("case kind") {
            "abstract.Transform" => tally.matches(&id, transform_case(&case)),
            "abstract.Collate" => tally.matches(&id, collate_case(&case)),
            "abstract.Pipeline" => tally.matches(&id, pipeline_case(&case)),
            "generic.SequencePipeline" => sequence_case(&case, &mut tally, &id),
            "generic.ParallelPipelines" => tally.matches(&id, parallel_pipelines_case(&case)),
            "generic.ParallelTransforms" => tally.matches(&id, parallel_transforms_case(&case)),
            "generic.DatasetMeta" => tally.matches(&id, dataset_meta_case(&case)),
            other => tally.matches(&id, Err(format!("unknown case kind {other}"))),
        }
    }
    tally
}

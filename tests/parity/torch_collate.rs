//! Parity of our collation with PyTorch's `default_collate` and ADL's
//! numpy-to-torch `Collate` (golden: torch_collate.json).
//!
//! A golden input is Python data; the Rust analogue of a sample is a typed
//! value. To run every case from the JSON, this harness reads each sample
//! into [`Dyn`], a typed tree whose leaves are Rust values (`i64`, `f32`,
//! `ndarray::ArrayD<u8>`, `String`, ...), and makes `Dyn` collatable by
//! delegating every node to the library's own builders: numbers to
//! `ScalarBuilder`, arrays to `StackBuilder` (or `ConcatBuilder` in ADL's
//! "concat" mode), strings to `TextBuilder`, lists and tuples to
//! `VecBuilder`, dicts to `RecordBuilder` (a `Record` keeps its keys in
//! order, as a Python dict does: the batch's key order is the library's),
//! bytes to the `List` strategy. The batch is written back as golden JSON
//! and compared exactly, key order included (`common::json_difference`),
//! or, for error cases, our error is mapped to the Python exception type
//! the reference raises for the same failure ([`python_collate_type`]) and
//! compared with the golden type.
//!
//! By rule (not by id):
//! - no Rust analogue: leaves of different Python types at the same place
//!   (a Rust field has one type: mixing is a compile error), numpy object
//!   arrays (no element type), all-`None` samples (`None` has no type to
//!   collate);
//! - diverges: numpy string arrays (arrays of any `Clone` element stack;
//!   torch raises TypeError); dicts whose keys come in different orders in
//!   different samples (a `Record`'s key order is its layout: ours refuses
//!   them, torch takes sample 0's order).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

use adl::collate::{
    BatchBuilder, Collatable, ConcatBuilder, DefaultCollate, List, ListBuilder, RecordBuilder,
    ScalarBuilder, StackBuilder, Strategy, TextBuilder, VecBuilder,
};
use adl::{Collate, Error, Record, Result};
use ndarray::{ArrayD, IxDyn};
use serde_json::{Value, json};

use super::common::{Tally, f64_of, json_difference};

thread_local! {
    /// ADL's "concat" mode: arrays are concatenated instead of stacked.
    static CONCAT: Cell<bool> = const { Cell::new(false) };
}

/// A golden sample as a typed Rust value.
#[derive(Debug, Clone)]
enum Dyn {
    I64(i64),
    F64(f64),
    F32(f32),
    I32(i32),
    U8(u8),
    U16(u16),
    Bool(bool),
    Str(String),
    Bytes(Vec<u8>),
    Arr(Arr),
    List(Vec<Dyn>),
    Tuple(Vec<Dyn>),
    Named(String, Vec<String>, Vec<Dyn>),
    Map(Record<Dyn>),
}

#[derive(Debug, Clone)]
enum Arr {
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
    I32(ArrayD<i32>),
    I64(ArrayD<i64>),
    U8(ArrayD<u8>),
    U16(ArrayD<u16>),
    Bool(ArrayD<bool>),
    Str(ArrayD<String>),
}

fn flat(values: &Value, out: &mut Vec<Value>) {
    match values {
        Value::Array(items) => items.iter().for_each(|v| flat(v, out)),
        v => out.push(v.clone()),
    }
}

fn array<A>(
    shape: &[usize],
    values: &Value,
    leaf: impl Fn(&Value) -> Option<A>,
) -> std::result::Result<ArrayD<A>, String> {
    let mut items = Vec::new();
    flat(values, &mut items);
    let items = items
        .iter()
        .map(|v| leaf(v).ok_or(format!("bad element {v}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    ArrayD::from_shape_vec(IxDyn(shape), items).map_err(|e| e.to_string())
}

/// Read a golden value; `Err` means it has no Rust analogue.
fn parse(v: &Value) -> std::result::Result<Dyn, String> {
    Ok(match v {
        Value::Bool(b) => Dyn::Bool(*b),
        Value::Number(n) if n.is_f64() => Dyn::F64(n.as_f64().unwrap()),
        Value::Number(n) => Dyn::I64(n.as_i64().ok_or("integer beyond i64")?),
        Value::String(s) => Dyn::Str(s.clone()),
        Value::Null => return Err("None has no type; see the all-None rule".into()),
        Value::Array(items) => Dyn::List(
            items
                .iter()
                .map(parse)
                .collect::<std::result::Result<_, _>>()?,
        ),
        Value::Object(o) => {
            if let Some(t) = o.get("__tensor__").or_else(|| o.get("__ndarray__")) {
                let shape: Vec<usize> = t["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_u64().unwrap() as usize)
                    .collect();
                let vals = &t["values"];
                let f = |x: &Value| Some(f64_of(x));
                Dyn::Arr(match t["dtype"].as_str().unwrap() {
                    "float32" => Arr::F32(array(&shape, vals, |x| f(x).map(|x| x as f32))?),
                    "float64" => Arr::F64(array(&shape, vals, f)?),
                    "int32" => Arr::I32(array(&shape, vals, |x| x.as_i64().map(|x| x as i32))?),
                    "int64" => Arr::I64(array(&shape, vals, Value::as_i64)?),
                    "uint8" => Arr::U8(array(&shape, vals, |x| x.as_u64().map(|x| x as u8))?),
                    "uint16" => Arr::U16(array(&shape, vals, |x| x.as_u64().map(|x| x as u16))?),
                    "bool" => Arr::Bool(array(&shape, vals, Value::as_bool)?),
                    d if d.starts_with("<U") => {
                        Arr::Str(array(&shape, vals, |x| x.as_str().map(String::from))?)
                    }
                    d => return Err(format!("numpy dtype {d} has no Rust element type")),
                })
            } else if let Some(s) = o.get("__npscalar__") {
                let x = &s["value"];
                match s["dtype"].as_str().unwrap() {
                    "float32" => Dyn::F32(f64_of(x) as f32),
                    "float64" => Dyn::F64(f64_of(x)),
                    "int32" => Dyn::I32(x.as_i64().unwrap() as i32),
                    "int64" => Dyn::I64(x.as_i64().unwrap()),
                    "uint8" => Dyn::U8(x.as_u64().unwrap() as u8),
                    "uint16" => Dyn::U16(x.as_u64().unwrap() as u16),
                    "bool" => Dyn::Bool(x.as_bool().unwrap()),
                    d => return Err(format!("numpy scalar dtype {d} has no Rust type")),
                }
            } else if let Some(items) = o.get("__tuple__") {
                Dyn::Tuple(
                    items
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(parse)
                        .collect::<std::result::Result<_, _>>()?,
                )
            } else if let Some(nt) = o.get("__namedtuple__") {
                let fields = nt["fields"].as_object().unwrap();
                Dyn::Named(
                    nt["name"].as_str().unwrap().to_owned(),
                    fields.keys().cloned().collect(),
                    fields
                        .values()
                        .map(parse)
                        .collect::<std::result::Result<_, _>>()?,
                )
            } else if let Some(hex) = o.get("__bytes__") {
                let hex = hex.as_str().unwrap();
                Dyn::Bytes(
                    (0..hex.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                        .collect(),
                )
            } else {
                let names: Arc<[String]> = o.keys().cloned().collect();
                let values = o
                    .values()
                    .map(parse)
                    .collect::<std::result::Result<_, _>>()?;
                Dyn::Map(Record::new(names, values).map_err(|e| e.to_string())?)
            }
        }
    })
}

/// Leaf kinds at each path, to find a path whose leaves have different
/// Python types in different samples.
fn leaf_kinds(d: &Dyn, path: String, out: &mut Vec<(String, &'static str)>) {
    let kind = match d {
        Dyn::I64(_) | Dyn::I32(_) | Dyn::U8(_) | Dyn::U16(_) => "int",
        Dyn::F64(_) | Dyn::F32(_) => "float",
        Dyn::Bool(_) => "bool",
        Dyn::Str(_) => "str",
        Dyn::Bytes(_) => "bytes",
        Dyn::Arr(_) => "array",
        Dyn::List(xs) | Dyn::Tuple(xs) | Dyn::Named(_, _, xs) => {
            for (i, x) in xs.iter().enumerate() {
                leaf_kinds(x, format!("{path}[{i}]"), out);
            }
            return;
        }
        Dyn::Map(m) => {
            for (k, x) in m.iter() {
                leaf_kinds(x, format!("{path}.{k}"), out);
            }
            return;
        }
    };
    out.push((path, kind));
}

/// The key order of every dict, by path, to find dicts with the same keys
/// in different orders in different samples.
fn dict_orders(d: &Dyn, path: String, out: &mut Vec<(String, Vec<String>)>) {
    match d {
        Dyn::List(xs) | Dyn::Tuple(xs) | Dyn::Named(_, _, xs) => {
            for (i, x) in xs.iter().enumerate() {
                dict_orders(x, format!("{path}[{i}]"), out);
            }
        }
        Dyn::Map(m) => {
            out.push((path.clone(), m.names().to_vec()));
            for (k, x) in m.iter() {
                dict_orders(x, format!("{path}.{k}"), out);
            }
        }
        _ => {}
    }
}

/// Rule: at some path, a sample's dict has the same keys as sample 0's in
/// another order; the path and both orders.
fn reordered_dicts(samples: &[Dyn]) -> Option<(String, Vec<String>, Vec<String>)> {
    let mut first = Vec::new();
    dict_orders(samples.first()?, String::new(), &mut first);
    samples[1..].iter().find_map(|s| {
        let mut orders = Vec::new();
        dict_orders(s, String::new(), &mut orders);
        orders.into_iter().find_map(|(path, keys)| {
            let (_, want) = first.iter().find(|(p, _)| *p == path)?;
            let mut a = keys.clone();
            let mut b = want.clone();
            a.sort();
            b.sort();
            (a == b && keys != *want).then(|| (path, keys, want.clone()))
        })
    })
}

/// `d` with every dict's keys in the order of the dict at the same place
/// in `like` (sample 0), where both have the same keys.
fn reorder_like(d: Dyn, like: &Dyn) -> Dyn {
    match (d, like) {
        (Dyn::List(xs), Dyn::List(ys)) => Dyn::List(
            xs.into_iter()
                .zip(ys)
                .map(|(x, y)| reorder_like(x, y))
                .collect(),
        ),
        (Dyn::Tuple(xs), Dyn::Tuple(ys)) => Dyn::Tuple(
            xs.into_iter()
                .zip(ys)
                .map(|(x, y)| reorder_like(x, y))
                .collect(),
        ),
        (Dyn::Map(m), Dyn::Map(first)) if m.len() == first.len() => {
            let names = first.shared_names();
            let values: Option<Vec<Dyn>> = first
                .iter()
                .map(|(k, y)| m.get(k).map(|x| reorder_like(x.clone(), y)))
                .collect();
            match values {
                Some(values) => Dyn::Map(Record::new(names, values).expect("same length")),
                None => Dyn::Map(m),
            }
        }
        (d, _) => d,
    }
}

enum ArrB<A> {
    Stack(StackBuilder<A, IxDyn>),
    Concat(ConcatBuilder<A, IxDyn>),
}

impl<A: Clone> ArrB<A> {
    fn new(first: &ArrayD<A>, len: usize) -> Self {
        if CONCAT.get() {
            ArrB::Concat(<adl::collate::ConcatRows as Strategy<ArrayD<A>>>::builder(
                first, len,
            ))
        } else {
            ArrB::Stack(<ArrayD<A> as Collatable>::builder(first, len))
        }
    }
    fn push(&mut self, a: ArrayD<A>, position: usize) -> Result<()> {
        match self {
            ArrB::Stack(b) => b.push(a, position),
            ArrB::Concat(b) => b.push(a, position),
        }
    }
    fn finish(self) -> Result<ArrayD<A>> {
        match self {
            ArrB::Stack(b) => b.finish().map(|a| a.into_dyn()),
            ArrB::Concat(b) => b.finish(),
        }
    }
}

/// A builder per node, each delegating to the library's builder.
enum DynBuilder {
    I64(ScalarBuilder<i64>),
    F64(ScalarBuilder<f64>),
    F32(ScalarBuilder<f32>),
    I32(ScalarBuilder<i32>),
    U8(ScalarBuilder<u8>),
    U16(ScalarBuilder<u16>),
    Bool(ScalarBuilder<bool>),
    Str(TextBuilder),
    Bytes(ListBuilder<Vec<u8>>),
    ArrF32(ArrB<f32>),
    ArrF64(ArrB<f64>),
    ArrI32(ArrB<i32>),
    ArrI64(ArrB<i64>),
    ArrU8(ArrB<u8>),
    ArrU16(ArrB<u16>),
    ArrBool(ArrB<bool>),
    ArrStr(ArrB<String>),
    List(VecBuilder<Dyn>),
    Tuple(VecBuilder<Dyn>),
    Named(String, Vec<String>, VecBuilder<Dyn>),
    Map(RecordBuilder<Dyn>),
}

impl Collatable for Dyn {
    type Batch = Value;
    type Builder = DynBuilder;

    fn builder(first: &Self, len: usize) -> DynBuilder {
        use DynBuilder as B;
        match first {
            Dyn::I64(x) => B::I64(Collatable::builder(x, len)),
            Dyn::F64(x) => B::F64(Collatable::builder(x, len)),
            Dyn::F32(x) => B::F32(Collatable::builder(x, len)),
            Dyn::I32(x) => B::I32(Collatable::builder(x, len)),
            Dyn::U8(x) => B::U8(Collatable::builder(x, len)),
            Dyn::U16(x) => B::U16(Collatable::builder(x, len)),
            Dyn::Bool(x) => B::Bool(Collatable::builder(x, len)),
            Dyn::Str(x) => B::Str(Collatable::builder(x, len)),
            Dyn::Bytes(x) => B::Bytes(<List as Strategy<Vec<u8>>>::builder(x, len)),
            Dyn::Arr(Arr::F32(a)) => B::ArrF32(ArrB::new(a, len)),
            Dyn::Arr(Arr::F64(a)) => B::ArrF64(ArrB::new(a, len)),
            Dyn::Arr(Arr::I32(a)) => B::ArrI32(ArrB::new(a, len)),
            Dyn::Arr(Arr::I64(a)) => B::ArrI64(ArrB::new(a, len)),
            Dyn::Arr(Arr::U8(a)) => B::ArrU8(ArrB::new(a, len)),
            Dyn::Arr(Arr::U16(a)) => B::ArrU16(ArrB::new(a, len)),
            Dyn::Arr(Arr::Bool(a)) => B::ArrBool(ArrB::new(a, len)),
            Dyn::Arr(Arr::Str(a)) => B::ArrStr(ArrB::new(a, len)),
            Dyn::List(xs) => B::List(Collatable::builder(xs, len)),
            Dyn::Tuple(xs) => B::Tuple(Collatable::builder(xs, len)),
            Dyn::Named(n, keys, xs) => {
                B::Named(n.clone(), keys.clone(), Collatable::builder(xs, len))
            }
            Dyn::Map(m) => B::Map(Collatable::builder(m, len)),
        }
    }
}

impl BatchBuilder<Dyn> for DynBuilder {
    type Batch = Value;

    fn push(&mut self, item: Dyn, p: usize) -> Result<()> {
        use DynBuilder as B;
        match (self, item) {
            (B::I64(b), Dyn::I64(x)) => b.push(x, p),
            (B::F64(b), Dyn::F64(x)) => b.push(x, p),
            (B::F32(b), Dyn::F32(x)) => b.push(x, p),
            (B::I32(b), Dyn::I32(x)) => b.push(x, p),
            (B::U8(b), Dyn::U8(x)) => b.push(x, p),
            (B::U16(b), Dyn::U16(x)) => b.push(x, p),
            (B::Bool(b), Dyn::Bool(x)) => b.push(x, p),
            (B::Str(b), Dyn::Str(x)) => b.push(x, p),
            (B::Bytes(b), Dyn::Bytes(x)) => b.push(x, p),
            (B::ArrF32(b), Dyn::Arr(Arr::F32(a))) => b.push(a, p),
            (B::ArrF64(b), Dyn::Arr(Arr::F64(a))) => b.push(a, p),
            (B::ArrI32(b), Dyn::Arr(Arr::I32(a))) => b.push(a, p),
            (B::ArrI64(b), Dyn::Arr(Arr::I64(a))) => b.push(a, p),
            (B::ArrU8(b), Dyn::Arr(Arr::U8(a))) => b.push(a, p),
            (B::ArrU16(b), Dyn::Arr(Arr::U16(a))) => b.push(a, p),
            (B::ArrBool(b), Dyn::Arr(Arr::Bool(a))) => b.push(a, p),
            (B::ArrStr(b), Dyn::Arr(Arr::Str(a))) => b.push(a, p),
            (B::List(b), Dyn::List(xs)) | (B::Tuple(b), Dyn::Tuple(xs)) => b.push(xs, p),
            (B::Named(n, _, b), Dyn::Named(m, _, xs)) if *n == m => b.push(xs, p),
            (B::Map(b), Dyn::Map(m)) => b.push(m, p),
            (_, other) => Err(Error::collate(
                p,
                format!("{other:?} has another type than sample 0"),
            )),
        }
    }

    fn finish(self) -> Result<Value> {
        use DynBuilder as B;
        let scalar = |dtype: &str, values: Vec<Value>| tensor(dtype, &[values.len()], values);
        Ok(match self {
            B::I64(b) => scalar("int64", b.finish()?.iter().map(|&x| json!(x)).collect()),
            B::F64(b) => scalar("float64", b.finish()?.iter().map(|&x| float(x)).collect()),
            B::F32(b) => scalar("float32", b.finish()?.iter().map(|&x| float(x as f64)).collect()),
            B::I32(b) => scalar("int32", b.finish()?.iter().map(|&x| json!(x)).collect()),
            B::U8(b) => scalar("uint8", b.finish()?.iter().map(|&x| json!(x)).collect()),
            B::U16(b) => scalar("uint16", b.finish()?.iter().map(|&x| json!(x)).collect()),
            B::Bool(b) => scalar("bool", b.finish()?.iter().map(|&x| json!(x)).collect()),
            B::Str(b) => json!(<TextBuilder as BatchBuilder<String>>::finish(b)?),
            B::Bytes(b) => Value::Array(
                b.finish()?.iter().map(|x| json!({"__bytes__": x.iter().map(|b| format!("{b:02x}")).collect::<String>()})).collect(),
            ),
            B::ArrF32(b) => arr_json("float32", b.finish()?, |&x| float(x as f64)),
            B::ArrF64(b) => arr_json("float64", b.finish()?, |&x| float(x)),
            B::ArrI32(b) => arr_json("int32", b.finish()?, |&x| json!(x)),
            B::ArrI64(b) => arr_json("int64", b.finish()?, |&x| json!(x)),
            B::ArrU8(b) => arr_json("uint8", b.finish()?, |&x| json!(x)),
            B::ArrU16(b) => arr_json("uint16", b.finish()?, |&x| json!(x)),
            B::ArrBool(b) => arr_json("bool", b.finish()?, |&x| json!(x)),
            B::ArrStr(b) => arr_json("str", b.finish()?, |x| json!(x)),
            B::List(b) => Value::Array(b.finish()?),
            B::Tuple(b) => json!({"__tuple__": b.finish()?}),
            B::Named(name, keys, b) => {
                let fields: serde_json::Map<String, Value> = keys.into_iter().zip(b.finish()?).collect();
                json!({"__namedtuple__": {"name": name, "fields": fields}})
            }
            B::Map(b) => {
                // In the batch's own key order, as the library built it.
                let batch = b.finish()?;
                let names = batch.names().to_vec();
                Value::Object(names.into_iter().zip(batch.into_values()).collect())
            }
        })
    }
}

fn float(x: f64) -> Value {
    if x.is_nan() {
        json!("nan")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(x)
    }
}

fn nest(shape: &[usize], values: &mut impl Iterator<Item = Value>) -> Value {
    match shape {
        [] => values.next().unwrap_or(Value::Null),
        [n, rest @ ..] => Value::Array((0..*n).map(|_| nest(rest, values)).collect()),
    }
}

fn tensor(dtype: &str, shape: &[usize], values: Vec<Value>) -> Value {
    json!({"__tensor__": {"dtype": dtype, "shape": shape, "values": nest(shape, &mut values.into_iter())}})
}

fn arr_json<A>(dtype: &str, a: ArrayD<A>, to: impl Fn(&A) -> Value) -> Value {
    tensor(dtype, a.shape(), a.iter().map(to).collect())
}

/// torch's default_collate returns a list for a tuple; ADL's Collate keeps
/// the tuple. Our batch of a tuple is a tuple: compare it the way the
/// reference represents it.
fn as_reference(v: Value, default_collate: bool) -> Value {
    match v {
        Value::Object(mut o) if default_collate && o.contains_key("__tuple__") => {
            as_reference(o.remove("__tuple__").unwrap(), default_collate)
        }
        Value::Object(o) if o.contains_key("__tensor__") => Value::Object(o),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k, as_reference(v, default_collate)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.into_iter()
                .map(|v| as_reference(v, default_collate))
                .collect(),
        ),
        v => v,
    }
}

/// The Python exception type that the reference raises for the failure
/// that our `e` reports (`adl_collate`: ADL's `ext.torch.Collate`, which
/// walks the samples with optree, rather than torch's `default_collate`);
/// `"Exception"` for an error we cannot place, which matches no golden
/// type. Our collate errors are all [`Error::Collate`], told apart by what
/// their reason says (the library's wording; a change to it shows up here
/// as a failure, never as a silent match):
/// - an empty batch: `IndexError` (torch reads `batch[0]`), `TypeError` in
///   ADL's collate (`optree.tree_map` is called without a tree);
/// - samples with different keys: `KeyError` (torch reads sample 0's keys
///   from every sample), `ValueError` in ADL's collate (optree's structure
///   mismatch);
/// - lists of different lengths: `RuntimeError` (torch checks the
///   lengths), `ValueError` in ADL's collate (optree);
/// - arrays of different shapes, or that cannot be concatenated:
///   `RuntimeError` (`torch.stack`, `torch.concat`);
/// - a value of another type than sample 0's: `TypeError`.
fn python_collate_type(e: &Error, adl_collate: bool) -> &'static str {
    let Error::Collate { reason, .. } = e else {
        return "Exception";
    };
    let says = |phrase: &str| reason.contains(phrase);
    if says("the batch is empty") {
        if adl_collate {
            "TypeError"
        } else {
            "IndexError"
        }
    } else if says("every sample must have the same keys") || says("but sample 0 has [") {
        if adl_collate {
            "ValueError"
        } else {
            "KeyError"
        }
    } else if says("lists must have equal lengths") {
        if adl_collate {
            "ValueError"
        } else {
            "RuntimeError"
        }
    } else if says("differs from shape") || says("cannot be concatenated") {
        "RuntimeError"
    } else if says("has another type than sample 0") {
        "TypeError"
    } else {
        "Exception"
    }
}

/// Our batch against the golden `expected`: the same output (key order
/// included), or an error of the same Python type.
fn compare(ours: Result<Value>, expected: &Value, default_collate: bool) -> Result<(), String> {
    match (ours, expected.get("error")) {
        (Err(e), Some(theirs)) => {
            let want = theirs["type"].as_str().expect("error type");
            let got = python_collate_type(&e, !default_collate);
            if got == want {
                Ok(())
            } else {
                Err(format!("expected {want}, got {got} ({e})"))
            }
        }
        (Ok(v), None) => {
            let got = as_reference(v, default_collate);
            match json_difference(&got, &expected["output"]) {
                None => Ok(()),
                Some(diff) => Err(format!(
                    "{diff}; expected {}, got {got}",
                    expected["output"]
                )),
            }
        }
        (ours, _) => Err(format!("expected {expected}, got {ours:?}")),
    }
}

fn run_case(case: &Value, tally: &mut Tally) {
    let id = case["id"].as_str().unwrap();
    let inputs = case["input"].as_array().unwrap();
    let expected = &case["expected"];
    let default_collate = case["kind"].as_str().unwrap().starts_with("torch.");
    CONCAT.set(case.get("mode").and_then(Value::as_str) == Some("concat"));

    if !inputs.is_empty() && inputs.iter().all(Value::is_null) {
        return tally.no_analogue(
            id,
            "every sample is None, which has no type to collate (a Rust batch of Option<T> \
             has one; torch raises TypeError)",
        );
    }
    let samples = match inputs
        .iter()
        .map(parse)
        .collect::<std::result::Result<Vec<_>, _>>()
    {
        Ok(s) => s,
        Err(why) => return tally.no_analogue(id, &why),
    };
    let mut kinds: HashMap<String, &'static str> = HashMap::new();
    for s in &samples {
        let mut leaves = Vec::new();
        leaf_kinds(s, String::new(), &mut leaves);
        for (path, kind) in leaves {
            if let Some(k0) = kinds.insert(path.clone(), kind)
                && k0 != kind
            {
                let place = if path.is_empty() {
                    "the sample".to_owned()
                } else {
                    format!("`{path}`")
                };
                return tally.no_analogue(
                    id,
                    &format!("{k0} and {kind} leaves at {place}: a Rust field has one type (mixing is a compile error)"),
                );
            }
        }
    }
    let string_arrays = samples.iter().any(|s| matches!(s, Dyn::Arr(Arr::Str(_))));
    if string_arrays {
        let check = match &DefaultCollate.collate(samples) {
            Ok(v) if v["__tensor__"]["shape"][0] == json!(inputs.len()) => Ok(()),
            other => Err(format!("expected a stacked string array, got {other:?}")),
        };
        return tally.diverges(
            id,
            "arrays of strings stack (torch raises TypeError)",
            check,
        );
    }
    if let Some((path, keys, first)) = reordered_dicts(&samples) {
        // Ours refuses the batch as it is; with every dict in sample 0's
        // order, it gives the reference's batch exactly.
        let reordered: Vec<Dyn> = samples
            .iter()
            .map(|s| reorder_like(s.clone(), &samples[0]))
            .collect();
        let check = match DefaultCollate.collate(samples) {
            Err(e @ Error::Collate { .. })
                if e.to_string().contains(&keys.join(", "))
                    && e.to_string().contains(&first.join(", ")) =>
            {
                compare(DefaultCollate.collate(reordered), expected, default_collate)
                    .map_err(|e| format!("in sample 0's key order: {e}"))
            }
            other => Err(format!(
                "expected a collate error naming keys {keys:?} and sample 0's {first:?} at `{path}`, got {other:?}"
            )),
        };
        return tally.diverges(
            id,
            "dicts with the same keys in different orders are refused (a Record's key order \
             is its layout; torch takes sample 0's order)",
            check,
        );
    }
    let check = compare(DefaultCollate.collate(samples), expected, default_collate);
    tally.matches(id, check);
}

/// Run every case of `file`.
pub fn run(file: &'static str) -> Tally {
    let mut tally = Tally::new(file);
    for case in super::common::cases(file) {
        run_case(&case, &mut tally);
    }
    tally
}

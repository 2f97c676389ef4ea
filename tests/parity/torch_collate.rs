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
//! `VecBuilder`, dicts to `HashMapBuilder`, bytes to the `List` strategy.
//! The batch is written back as golden JSON and compared exactly (dtype,
//! shape, values, key order), or, for error cases, checked to be an
//! `Error::Collate`.
//!
//! By rule (not by id):
//! - no Rust analogue: leaves of different Python types at the same place
//!   (a Rust field has one type: mixing is a compile error), numpy object
//!   arrays (no element type);
//! - diverges: all-`None` samples (`Option<T>` collates: all `None` gives
//!   `None`; torch raises TypeError), numpy string arrays (arrays of any
//!   `Clone` element stack; torch raises TypeError).

use std::cell::Cell;
use std::collections::HashMap;

use adl::collate::{
    BatchBuilder, Collatable, ConcatBuilder, List, ListBuilder, ScalarBuilder, StackBuilder,
    Strategy, TextBuilder, VecBuilder,
};
use adl::collate::{DefaultCollate, HashMapBuilder};
use adl::{Collate, Error, Result};
use ndarray::{ArrayD, IxDyn};
use serde_json::{Value, json};

use super::common::{Tally, f64_of};

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
    Map(Vec<String>, HashMap<String, Dyn>),
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
                let mut map = HashMap::new();
                for (k, v) in o {
                    map.insert(k.clone(), parse(v)?);
                }
                Dyn::Map(o.keys().cloned().collect(), map)
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
        Dyn::Map(_, m) => {
            for (k, x) in m {
                leaf_kinds(x, format!("{path}.{k}"), out);
            }
            return;
        }
    };
    out.push((path, kind));
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
    Map(Vec<String>, HashMapBuilder<String, Dyn>),
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
            Dyn::Map(keys, m) => B::Map(keys.clone(), Collatable::builder(m, len)),
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
            (B::Map(_, b), Dyn::Map(_, m)) => b.push(m, p),
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
            B::Map(keys, b) => {
                let mut batches = b.finish()?;
                let ordered: serde_json::Map<String, Value> =
                    keys.into_iter().map(|k| (k.clone(), batches.remove(&k).unwrap_or(Value::Null))).collect();
                Value::Object(ordered)
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

fn run_case(case: &Value, tally: &mut Tally) {
    let id = case["id"].as_str().unwrap();
    let inputs = case["input"].as_array().unwrap();
    let expected = &case["expected"];
    let default_collate = case["kind"].as_str().unwrap().starts_with("torch.");
    CONCAT.set(case.get("mode").and_then(Value::as_str) == Some("concat"));

    if !inputs.is_empty() && inputs.iter().all(Value::is_null) {
        let ours = DefaultCollate.collate(vec![None::<i64>; inputs.len()]);
        let check = match ours {
            Ok(None) => Ok(()),
            other => Err(format!("expected Ok(None), got {other:?}")),
        };
        return tally.diverges(
            id,
            "all-None samples collate to None (torch raises TypeError)",
            check,
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
    let ours = DefaultCollate.collate(samples);
    if string_arrays {
        let check = match &ours {
            Ok(v) if v["__tensor__"]["shape"][0] == json!(inputs.len()) => Ok(()),
            other => Err(format!("expected a stacked string array, got {other:?}")),
        };
        return tally.diverges(
            id,
            "arrays of strings stack (torch raises TypeError)",
            check,
        );
    }
    let check = match (ours, expected.get("error")) {
        (Err(Error::Collate { .. }), Some(_)) => Ok(()),
        (Ok(v), None) => {
            let got = as_reference(v, default_collate);
            if got == expected["output"] {
                Ok(())
            } else {
                Err(format!("expected {}, got {got}", expected["output"]))
            }
        }
        (ours, _) => Err(format!("expected {expected}, got {ours:?}")),
    };
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

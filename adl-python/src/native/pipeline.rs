//! `adl.Pipeline`: a pipeline composed in Python of adl's transforms
//! (`adl.transforms`) under the keys of the sample they transform, run in
//! Rust: each key's sample transforms, a collate that stacks every array
//! of the samples into one of a batch axis (its memory from the loader's
//! pool), each key's batch transforms. Under `adl.Loader` a pipeline of
//! adl's transforms over adl's sensors never takes the GIL; a Python
//! callable among the transforms takes it for each call (counted in the
//! loader's statistics).

use std::sync::Arc;

use adl_core::description::{Body, Description, NodeInfo, Stage};
use adl_core::exec::{Context, NodeId, Sequential, Tagged};
use adl_core::{Error, Result, Transform as _};
use numpy::PyArray;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::transforms::{Step, Transform};
use super::value::{Path, Value, each_array, stack};
use crate::errors::to_python;
use crate::gil::GilTime;

/// What a node of an `adl.Pipeline` does.
enum Op {
    /// One of adl's transforms, in Rust.
    Native(Step),
    /// A Python callable: called with the GIL, its input and output
    /// copied between NumPy arrays and adl's.
    Python(Py<PyAny>),
}

/// A node: what it does, on the value at `path`.
struct NodeOp {
    op: Op,
    path: Path,
    gil: Arc<GilTime>,
}

impl adl_core::Transform<Value> for NodeOp {
    type Output = Value;

    fn apply(&self, input: Value) -> Result<Value> {
        self.apply_in(&Sequential::new(), input)
    }

    fn apply_in(&self, cx: &dyn Context, input: Value) -> Result<Value> {
        match &self.op {
            Op::Native(step) => step.apply(cx, input, &self.path),
            Op::Python(callable) => self.gil.attach(|py| {
                let failed = |e: PyErr| Error::Transform {
                    node: String::new(),
                    cause: Box::new(crate::errors::PythonError::new(py, e)),
                };
                let argument = into_python(py, input).map_err(failed)?;
                let out = callable.bind(py).call1((argument,)).map_err(failed)?;
                Value::from_python(&out, &self.path).map_err(failed)
            }),
        }
    }
}

/// `value` as Python objects: its arrays moved into NumPy arrays (no
/// copy), its dicts as dicts.
pub(crate) fn into_python(py: Python<'_>, value: Value) -> PyResult<Bound<'_, PyAny>> {
    match value {
        Value::Array(array) => {
            Ok(each_array!(array, a => PyArray::from_owned_array(py, a).into_any()))
        }
        Value::Map(items) => {
            let dict = PyDict::new(py);
            for (key, value) in items {
                dict.set_item(&*key, into_python(py, value)?)?;
            }
            Ok(dict.into_any())
        }
        Value::Encoded(frame) => Ok(pyo3::types::PyBytes::new(py, frame.0.bytes()).into_any()),
    }
}

/// The nodes of one key of the sample: its sample transforms, its
/// collate, its batch transforms, each tagged with its node id (its place
/// in the pipeline's description).
struct Branch {
    path: Path,
    sample: Vec<Tagged<NodeOp>>,
    collate: NodeId,
    batch: Vec<Tagged<NodeOp>>,
}

/// The Rust side of an `adl.Pipeline` (cheap to clone: shared).
#[derive(Clone)]
pub(crate) struct NativePipeline(Arc<Inner>);

struct Inner {
    branches: Vec<Branch>,
    description: Description,
    /// Whether every node is adl's own (none takes the GIL).
    native: bool,
}

impl NativePipeline {
    /// Whether every node is adl's own.
    pub(crate) fn is_native(&self) -> bool {
        self.0.native
    }

    /// Take the value at `path` out of `value` (a sample or a batch),
    /// or say what is there instead.
    fn take(value: &mut Value, path: &Path) -> Result<Value> {
        let missing = |at: &Value, key: &str| {
            Error::invalid(
                format_args!("adl.Pipeline key {path}"),
                format!("there is no `{key}` in {}", at.kind()),
            )
        };
        let keys = path.keys();
        let mut at = value;
        for key in &keys[..keys.len().saturating_sub(1)] {
            let Value::Map(items) = at else {
                return Err(missing(at, key));
            };
            match items.iter().position(|(k, _)| k == key) {
                Some(i) => at = &mut items[i].1,
                None => return Err(missing(&Value::Map(items.clone()), key)),
            }
        }
        let last = keys.last().map_or("", |k| &**k);
        let kind = at.kind();
        at.take(last).ok_or_else(|| {
            Error::invalid(
                format_args!("adl.Pipeline key {path}"),
                format!("there is no `{last}` in {kind}"),
            )
        })
    }

    /// Put `value` back at `path` (where [`NativePipeline::take`] took it).
    fn put(into: &mut Value, path: &Path, value: Value) {
        let keys = path.keys();
        let mut at = into;
        for key in &keys[..keys.len().saturating_sub(1)] {
            let Value::Map(items) = at else {
                return;
            };
            match items.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => at = &mut slot.1,
                None => return,
            }
        }
        if let Some(last) = keys.last() {
            at.put(last, value);
        }
    }

    /// Run `nodes` on the value at each branch's path of `value`.
    fn run(
        &self,
        cx: &dyn Context,
        mut value: Value,
        nodes: impl Fn(&Branch) -> &[Tagged<NodeOp>],
    ) -> Result<Value> {
        for branch in &self.0.branches {
            let nodes = nodes(branch);
            if nodes.is_empty() {
                continue;
            }
            let mut taken = Self::take(&mut value, &branch.path)?;
            for node in nodes {
                taken = node.apply_in(cx, taken)?;
            }
            Self::put(&mut value, &branch.path, taken);
        }
        Ok(value)
    }
}

impl adl_core::Pipeline<Value> for NativePipeline {
    type Transformed = Value;
    type Collated = Value;
    type Processed = Value;

    fn sample(&self, raw: Value) -> Result<Value> {
        self.sample_in(&Sequential::new(), raw)
    }

    fn collate(&self, samples: Vec<Value>) -> Result<Value> {
        self.collate_in(&Sequential::new(), samples)
    }

    fn batch(&self, collated: Value) -> Result<Value> {
        self.batch_in(&Sequential::new(), collated)
    }

    fn sample_in(&self, cx: &dyn Context, raw: Value) -> Result<Value> {
        self.run(cx, raw, |branch| &branch.sample)
    }

    /// Each branch's values stacked apart (timed as its collate node),
    /// then the rest of the samples.
    fn collate_in(&self, cx: &dyn Context, mut samples: Vec<Value>) -> Result<Value> {
        let buffers = cx.buffers();
        let mut stacked = Vec::with_capacity(self.0.branches.len());
        for branch in &self.0.branches {
            let mut column = Vec::with_capacity(samples.len());
            for (position, sample) in samples.iter_mut().enumerate() {
                column.push(
                    Self::take(sample, &branch.path)
                        .map_err(|e| Error::collate(position, e.to_string()))?,
                );
            }
            let entered = cx.enter(branch.collate);
            let batch = stack(column, buffers);
            cx.leave(branch.collate, entered);
            let within = branch
                .path
                .keys()
                .iter()
                .map(|k| format!("[{k:?}]"))
                .collect::<String>();
            stacked.push(batch.map_err(|e| e.within(within))?);
        }
        let mut batch = stack(samples, buffers)?;
        for (branch, value) in self.0.branches.iter().zip(stacked) {
            Self::put(&mut batch, &branch.path, value);
        }
        Ok(batch)
    }

    fn batch_in(&self, cx: &dyn Context, collated: Value) -> Result<Value> {
        self.run(cx, collated, |branch| &branch.batch)
    }

    fn description(&self) -> Option<&Description> {
        Some(&self.0.description)
    }
}

/// The nodes listed under one key: adl's transforms or Python callables.
fn nodes_of(
    listed: &Bound<'_, PyAny>,
    path: &Path,
    stage: Stage,
    gil: &Arc<GilTime>,
) -> PyResult<Vec<(NodeInfo, NodeOp)>> {
    let items: Vec<Bound<'_, PyAny>> =
        if listed.cast::<PyList>().is_ok() || listed.cast::<pyo3::types::PyTuple>().is_ok() {
            listed.try_iter()?.collect::<PyResult<_>>()?
        } else {
            vec![listed.clone()]
        };
    let mut nodes = Vec::with_capacity(items.len());
    for item in items {
        let (info, op) = if let Ok(transform) = item.cast::<Transform>() {
            let step = transform.get().step().clone();
            (step.info(), Op::Native(step))
        } else if item.is_callable() {
            let name = item
                .getattr("__name__")
                .and_then(|n| n.extract::<String>())
                .unwrap_or_else(|_| "python".to_owned());
            (
                NodeInfo::new(name, stage).with_doc("A Python callable (takes the GIL)."),
                Op::Python(item.clone().unbind()),
            )
        } else {
            return Err(PyTypeError::new_err(format!(
                "an adl.Pipeline lists adl.transforms or Python callables under {path}, not {}",
                item.repr()?
            )));
        };
        nodes.push((
            info,
            NodeOp {
                op,
                path: path.clone(),
                gil: Arc::clone(gil),
            },
        ));
    }
    Ok(nodes)
}

/// A pipeline of adl's transforms, composed in Python: `sample` and
/// `batch` map keys of the sample (`"camera"`, or `"imu/acc"` for a
/// nested one) to the transforms applied there, in order (a list, or one
/// transform): `adl.transforms` (run in Rust, without the GIL) or Python
/// callables (given and giving dicts of NumPy arrays; each call takes the
/// GIL). Between them, every array of the samples is stacked into one of
/// a leading batch axis (each sample's of the same shape and dtype).
///
/// As `adl.Loader`'s pipeline over `adl.files` or `adl.px4` sensors (in an
/// `adl.Trace` or an `adl.Dataset` of them), a batch is made without the
/// GIL from the read to the last transform. It is also an
/// `abstract_dataloader.spec.Pipeline` (`sample`, `collate`, `batch`) to
/// call from Python.
#[pyclass(module = "adl", frozen)]
pub(crate) struct Pipeline {
    pipeline: NativePipeline,
    gil: Arc<GilTime>,
}

impl Pipeline {
    /// The Rust pipeline, and the count of its calls into Python.
    pub(crate) fn parts(&self) -> (NativePipeline, Arc<GilTime>) {
        (self.pipeline.clone(), Arc::clone(&self.gil))
    }
}

/// `nodes`, each tagged with its node id, from `next` on.
fn tagged(nodes: Vec<(NodeInfo, NodeOp)>, next: &mut u32) -> Vec<Tagged<NodeOp>> {
    nodes
        .into_iter()
        .map(|(info, node)| {
            *next += 1;
            Tagged::new(NodeId(*next - 1), info.name, node)
        })
        .collect()
}

/// A stage's nodes under one key of the sample, in order.
type Keyed = (Path, Vec<(NodeInfo, NodeOp)>);

/// The `(path, nodes)` of a stage's mapping.
fn stage_of(
    mapping: Option<&Bound<'_, PyDict>>,
    stage: Stage,
    gil: &Arc<GilTime>,
) -> PyResult<Vec<Keyed>> {
    let mut out = Vec::new();
    if let Some(mapping) = mapping {
        for (key, listed) in mapping.iter() {
            let key: String = key.extract().map_err(|_| {
                PyTypeError::new_err("an adl.Pipeline's keys are strs (\"camera\", \"imu/acc\")")
            })?;
            let path = Path::parse(&key).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{key:?} is not a key of the sample: keys separated by `/`, none empty"
                ))
            })?;
            out.push((path.clone(), nodes_of(&listed, &path, stage, gil)?));
        }
    }
    Ok(out)
}

#[pymethods]
impl Pipeline {
    #[new]
    #[pyo3(signature = (sample = None, batch = None))]
    fn new(
        sample: Option<&Bound<'_, PyDict>>,
        batch: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let gil = Arc::new(GilTime::default());
        let mut sample = stage_of(sample, Stage::Sample, &gil)?;
        let mut batch = stage_of(batch, Stage::Batch, &gil)?;
        // One branch per key, in the order they are first named.
        let mut paths: Vec<Path> = Vec::new();
        for (path, _) in sample.iter().chain(&batch) {
            if !paths.contains(path) {
                paths.push(path.clone());
            }
        }
        for (i, a) in paths.iter().enumerate() {
            for b in &paths[i + 1..] {
                let (short, long) = if a.keys().len() <= b.keys().len() {
                    (a, b)
                } else {
                    (b, a)
                };
                if long.keys().starts_with(short.keys()) {
                    return Err(PyValueError::new_err(format!(
                        "an adl.Pipeline transforms {short} and {long}, which is inside it: list the transforms under one of them"
                    )));
                }
            }
        }
        let take = |stage: &mut Vec<Keyed>, path: &Path| {
            stage
                .iter()
                .position(|(p, _)| p == path)
                .map(|at| stage.remove(at).1)
                .unwrap_or_default()
        };
        let mut described = Vec::new();
        let mut branches = Vec::new();
        let mut next = 0u32;
        let mut native = true;
        for path in paths {
            let name = path
                .keys()
                .iter()
                .map(|k| &**k)
                .collect::<Vec<_>>()
                .join("/");
            let sample_nodes = take(&mut sample, &path);
            let batch_nodes = take(&mut batch, &path);
            let infos =
                |nodes: &[(NodeInfo, NodeOp)]| nodes.iter().map(|(info, _)| info.clone()).collect();
            described.push((
                name,
                Description::new(Body::stages(
                    infos(&sample_nodes),
                    vec![NodeInfo::new("stack", Stage::Collate).with_doc(
                        "Every array of the samples stacked along a new first axis (adl.Pipeline's collate).",
                    )],
                    infos(&batch_nodes),
                )),
            ));
            native &= sample_nodes
                .iter()
                .chain(&batch_nodes)
                .all(|(_, node)| matches!(node.op, Op::Native(_)));
            let sample = tagged(sample_nodes, &mut next);
            let collate = NodeId(next);
            next += 1;
            let batch = tagged(batch_nodes, &mut next);
            branches.push(Branch {
                path,
                sample,
                collate,
                batch,
            });
        }
        let description = if described.is_empty() {
            Description::new(Body::stages(
                Vec::new(),
                vec![NodeInfo::new("stack", Stage::Collate)],
                Vec::new(),
            ))
        } else {
            Description::new(Body::parallel(described))
        };
        let violations = description.check();
        if !violations.is_empty() {
            return Err(PyValueError::new_err(format!(
                "this adl.Pipeline breaks adl's composition rules:\n{}",
                violations
                    .iter()
                    .map(|v| format!("  {v}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            )));
        }
        Ok(Pipeline {
            pipeline: NativePipeline(Arc::new(Inner {
                branches,
                description,
                native,
            })),
            gil,
        })
    }

    /// Whether every transform is adl's own (a loader of adl's sensors
    /// with this pipeline never takes the GIL).
    #[getter]
    fn native(&self) -> bool {
        self.pipeline.is_native()
    }

    /// `sample` (a dict of NumPy arrays) through the sample transforms,
    /// as the loader runs them for sample 0 of epoch 0 of seed 0.
    fn sample<'py>(
        &self,
        py: Python<'py>,
        sample: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = Value::from_python(sample, &Path::root())?;
        let out = py
            .detach(|| adl_core::Pipeline::sample(&self.pipeline, value))
            .map_err(to_python)?;
        into_python(py, out)
    }

    /// `samples` (a list) stacked into a batch.
    fn collate<'py>(
        &self,
        py: Python<'py>,
        samples: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let values = samples
            .try_iter()?
            .map(|s| Value::from_python(&s?, &Path::root()))
            .collect::<PyResult<Vec<_>>>()?;
        let out = py
            .detach(|| adl_core::Pipeline::collate(&self.pipeline, values))
            .map_err(to_python)?;
        into_python(py, out)
    }

    /// `batch` (a collated batch) through the batch transforms.
    fn batch<'py>(
        &self,
        py: Python<'py>,
        batch: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = Value::from_python(batch, &Path::root())?;
        let out = py
            .detach(|| adl_core::Pipeline::batch(&self.pipeline, value))
            .map_err(to_python)?;
        into_python(py, out)
    }

    fn __repr__(&self) -> String {
        let branches: Vec<String> = self
            .pipeline
            .0
            .branches
            .iter()
            .map(|b| {
                let names = |nodes: &[Tagged<NodeOp>]| {
                    nodes
                        .iter()
                        .map(|n| n.name().to_owned())
                        .collect::<Vec<_>>()
                        .join(" -> ")
                };
                format!(
                    "{:?}: [{}] / [{}]",
                    b.path
                        .keys()
                        .iter()
                        .map(|k| &**k)
                        .collect::<Vec<_>>()
                        .join("/"),
                    names(&b.sample),
                    names(&b.batch)
                )
            })
            .collect();
        format!("adl.Pipeline({})", branches.join(", "))
    }
}

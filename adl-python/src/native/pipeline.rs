//! `adl.Pipeline`: a pipeline composed in Python of adl's transforms
//! (`adl.transforms`) under the keys of the sample they transform, run in
//! Rust: each key's sample transforms, a collate that stacks every array
//! of the samples into one of a batch axis (its memory from the loader's
//! pool), each key's batch transforms. Under `adl.Loader` a pipeline of
//! adl's transforms over adl's sensors never takes the GIL; a Python
//! callable among the transforms takes it for each call (counted in the
//! loader's statistics).

use std::sync::Arc;

use adl_core::description::{NodeInfo, Stage};
use adl_core::{Error, Result};
use adl_exec::{Context, Sequential};
use adl_value::{Keyed, Node, Path, Value, ValuePipeline};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::transforms::Transform;
use super::value::{from_python, into_python};
use crate::errors::to_python;
use crate::gil::GilTime;

/// A Python callable among an `adl.Pipeline`'s nodes: called with the
/// GIL (counted in the loader's statistics), its input and output copied
/// between NumPy arrays and values.
struct PythonNode {
    callable: Py<PyAny>,
    path: Path,
    gil: Arc<GilTime>,
}

impl adl_core::Transform<Value> for PythonNode {
    type Output = Value;

    fn apply(&self, input: Value) -> Result<Value> {
        self.apply_in(&Sequential::new(), input)
    }

    fn apply_in(&self, _cx: &dyn Context, input: Value) -> Result<Value> {
        self.gil.attach(|py| {
            let failed = |e: PyErr| Error::Transform {
                node: String::new(),
                cause: Box::new(crate::errors::PythonError::new(py, e)),
            };
            let argument = into_python(py, input).map_err(failed)?;
            let out = self.callable.bind(py).call1((argument,)).map_err(failed)?;
            from_python(&out, &self.path).map_err(failed)
        })
    }
}

/// The nodes listed under one key: adl's transforms or Python callables.
fn nodes_of(
    listed: &Bound<'_, PyAny>,
    path: &Path,
    stage: Stage,
    gil: &Arc<GilTime>,
) -> PyResult<Vec<(NodeInfo, Node)>> {
    let items: Vec<Bound<'_, PyAny>> =
        if listed.cast::<PyList>().is_ok() || listed.cast::<pyo3::types::PyTuple>().is_ok() {
            listed.try_iter()?.collect::<PyResult<_>>()?
        } else {
            vec![listed.clone()]
        };
    let mut nodes = Vec::with_capacity(items.len());
    for item in items {
        let node = if let Ok(transform) = item.cast::<Transform>() {
            let step = transform.get().step().clone();
            (step.info(), Node::Step(step))
        } else if item.is_callable() {
            let name = item
                .getattr("__name__")
                .and_then(|n| n.extract::<String>())
                .unwrap_or_else(|_| "python".to_owned());
            let callable = PythonNode {
                callable: item.clone().unbind(),
                path: path.clone(),
                gil: Arc::clone(gil),
            };
            (
                NodeInfo::new(name, stage).with_doc("A Python callable (takes the GIL)."),
                Node::Other(Arc::new(callable)),
            )
        } else {
            return Err(PyTypeError::new_err(format!(
                "an adl.Pipeline lists adl.transforms or Python callables under {path}, not {}",
                item.repr()?
            )));
        };
        nodes.push(node);
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
    pipeline: ValuePipeline,
    gil: Arc<GilTime>,
    /// The stages' mappings as given, what it pickles by.
    given: (Option<Py<PyDict>>, Option<Py<PyDict>>),
}

impl Pipeline {
    /// The Rust pipeline, and the count of its calls into Python.
    pub(crate) fn parts(&self) -> (ValuePipeline, Arc<GilTime>) {
        (self.pipeline.clone(), Arc::clone(&self.gil))
    }
}

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
        let given = (
            sample.map(|d| d.clone().unbind()),
            batch.map(|d| d.clone().unbind()),
        );
        let gil = Arc::new(GilTime::default());
        let sample = stage_of(sample, Stage::Sample, &gil)?;
        let batch = stage_of(batch, Stage::Batch, &gil)?;
        let pipeline = ValuePipeline::new(sample, batch).map_err(|e| {
            PyValueError::new_err(match e {
                Error::InvalidParameter { reason, .. } => format!("this adl.Pipeline: {reason}"),
                other => other.to_string(),
            })
        })?;
        Ok(Pipeline {
            pipeline,
            gil,
            given,
        })
    }

    /// Pickled by the mappings it was made from (adl's transforms pickle
    /// by theirs; a Python transform as pickle takes it, by reference for
    /// a function of a module).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let given = |d: &Option<Py<PyDict>>| d.as_ref().map(|d| d.clone_ref(py));
        let args = (given(&self.given.0), given(&self.given.1));
        (py.get_type::<Pipeline>(), args).into_pyobject(py)
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
        let value = from_python(sample, &Path::root())?;
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
            .map(|s| from_python(&s?, &Path::root()))
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
        let value = from_python(batch, &Path::root())?;
        let out = py
            .detach(|| adl_core::Pipeline::batch(&self.pipeline, value))
            .map_err(to_python)?;
        into_python(py, out)
    }

    fn __repr__(&self) -> String {
        let branches: Vec<String> = (self.pipeline.branches().into_iter())
            .map(|(key, sample, batch)| {
                format!(
                    "{key:?}: [{}] / [{}]",
                    sample.join(" -> "),
                    batch.join(" -> ")
                )
            })
            .collect();
        format!("adl.Pipeline({})", branches.join(", "))
    }
}

//! A Python dataset and a Python pipeline as adl's [`Dataset`] and
//! [`Pipeline`]: each call takes the GIL for itself, so that adl's workers
//! run them (one at a time, as Python runs) while the thread that iterates
//! waits without it.

use std::sync::Arc;

use adl_core::exec::Recycle;
use adl_core::{Dataset, Error, Pipeline, Result};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::PythonError;
use crate::gil::GilTime;

/// A Python object with `__getitem__` and `__len__` (an `adl.Dataset`,
/// the reference's, a list): sample `i` is `dataset[i]`.
pub(crate) struct PyDataset {
    object: Py<PyAny>,
    len: usize,
    gil: Arc<GilTime>,
}

impl PyDataset {
    /// `object`, its length read once; its calls counted in `gil`.
    pub(crate) fn new(object: &Bound<'_, PyAny>, gil: Arc<GilTime>) -> PyResult<Self> {
        Ok(PyDataset {
            len: object.len()?,
            object: object.clone().unbind(),
            gil,
        })
    }

    /// The Python object.
    pub(crate) fn object(&self) -> &Py<PyAny> {
        &self.object
    }
}

impl Dataset for PyDataset {
    type Sample = Py<PyAny>;

    fn len(&self) -> usize {
        self.len
    }

    /// `dataset[index]`; its exception is the error's cause.
    fn get(&self, index: usize) -> Result<Py<PyAny>> {
        self.gil.attach(|py| {
            self.object
                .bind(py)
                .get_item(index)
                .map(Bound::unbind)
                .map_err(|e| Error::read("the dataset", index, PythonError::new(py, e)))
        })
    }
}

/// A Python pipeline: an object with `sample`, `collate` and `batch`
/// (`abstract_dataloader.spec.Pipeline`), or none (samples as they are,
/// collated by [`default_collate`](crate::collate::default_collate), as
/// PyTorch's DataLoader does by default).
pub(crate) struct PyPipeline {
    object: Option<Py<PyAny>>,
    gil: Arc<GilTime>,
}

impl PyPipeline {
    /// `object`, checked for the three methods; its calls counted in
    /// `gil`.
    pub(crate) fn new(object: Option<&Bound<'_, PyAny>>, gil: Arc<GilTime>) -> PyResult<Self> {
        if let Some(object) = object {
            for method in ["sample", "collate", "batch"] {
                if !object.hasattr(method)? {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "a pipeline has `sample`, `collate` and `batch` (abstract_dataloader.spec.Pipeline); {} has no `{method}`",
                        object.repr()?
                    )));
                }
            }
        }
        Ok(PyPipeline {
            object: object.map(|o| o.clone().unbind()),
            gil,
        })
    }

    /// `pipeline.<method>(value)`, its exception the cause of an error of
    /// the node named `method`.
    fn call(&self, method: &str, value: Py<PyAny>) -> Result<Py<PyAny>> {
        let Some(object) = &self.object else {
            return Ok(value);
        };
        self.gil.attach(|py| {
            object
                .bind(py)
                .call_method1(method, (value,))
                .map(Bound::unbind)
                .map_err(|e| Error::Transform {
                    node: method.to_string(),
                    cause: Box::new(PythonError::new(py, e)),
                })
        })
    }
}

/// A batch as Python gets it (its memory is Python's: nothing to
/// recycle).
pub(crate) struct PyBatch(pub(crate) Py<PyAny>);

impl Recycle for PyBatch {}

impl Pipeline<Py<PyAny>> for PyPipeline {
    type Transformed = Py<PyAny>;
    type Collated = Py<PyAny>;
    type Processed = PyBatch;

    fn sample(&self, raw: Py<PyAny>) -> Result<Py<PyAny>> {
        self.call("sample", raw)
    }

    fn collate(&self, samples: Vec<Py<PyAny>>) -> Result<Py<PyAny>> {
        let failed = |py: Python<'_>, e: PyErr| Error::Transform {
            node: "collate".into(),
            cause: Box::new(PythonError::new(py, e)),
        };
        let list = self.gil.attach(|py| {
            PyList::new(py, samples)
                .map(|l| l.into_any().unbind())
                .map_err(|e| failed(py, e))
        })?;
        if self.object.is_none() {
            return self.gil.attach(|py| {
                crate::collate::default_collate(list.bind(py))
                    .map(Bound::unbind)
                    .map_err(|e| failed(py, e))
            });
        }
        self.call("collate", list)
    }

    fn batch(&self, collated: Py<PyAny>) -> Result<PyBatch> {
        self.call("batch", collated).map(PyBatch)
    }
}

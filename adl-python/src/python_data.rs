//! A Python dataset and a Python pipeline as adl's [`Dataset`] and
//! [`Pipeline`]: each call takes the GIL for itself, so that adl's workers
//! run them (one at a time, as Python runs) while the thread that iterates
//! waits without it.

use std::sync::Arc;

use adl_core::storage::{Fetched, Storage};
use adl_core::{Dataset, Error, Origin, Pipeline, Result};
use adl_exec::Recycle;
use adl_value::ValueTraces;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::PythonError;
use crate::gil::GilTime;
use crate::native::into_python;
use crate::processes::Processes;

/// A Python object with `__getitem__` and `__len__` (an `adl.Dataset`,
/// the reference's, a list): sample `i` is `dataset[i]`.
pub(crate) struct PyDataset {
    object: Py<PyAny>,
    len: usize,
    gil: Arc<GilTime>,
    /// Whether its samples are made by worker processes: then `get` gives
    /// the index alone, and the pipeline's collate hands the batch's
    /// indices to a process.
    in_processes: bool,
    /// Whether it is adl's own (an `adl.Dataset` or `adl.Trace` of adl's
    /// sensors): thread-safe, its calls never one at a time.
    adl_own: bool,
    /// Where it is adl's own, the same traces read in Rust: their storage
    /// is the dataset's, so that the loader reads files and objects ahead
    /// (each sensor's at once, without the GIL), and a sample read ahead
    /// is made from its reads as `dataset[i]` makes it.
    native: Option<ValueTraces>,
}

/// A sample as the loader's threads hold it: the object the dataset gave,
/// or, where worker processes make the samples, its index.
pub(crate) enum Raw {
    Object(Py<PyAny>),
    Index(usize),
}

impl PyDataset {
    /// `object`, its length read once; its calls counted in `gil`.
    pub(crate) fn new(object: &Bound<'_, PyAny>, gil: Arc<GilTime>) -> PyResult<Self> {
        let native = crate::native::native_dataset(object)?;
        Ok(PyDataset {
            len: object.len()?,
            object: object.clone().unbind(),
            gil,
            in_processes: false,
            adl_own: native.is_some(),
            native,
        })
    }

    /// The same dataset, its samples made by worker processes.
    pub(crate) fn in_processes(mut self) -> Self {
        self.in_processes = true;
        // The processes read their samples: nothing is read ahead here.
        self.native = None;
        self
    }

    /// The Python object.
    pub(crate) fn object(&self) -> &Py<PyAny> {
        &self.object
    }
}

impl Dataset for PyDataset {
    type Sample = Raw;

    fn len(&self) -> usize {
        self.len
    }

    /// `dataset[index]`, its exception the error's cause (the index
    /// alone where worker processes make the samples).
    fn get(&self, index: usize) -> Result<Raw> {
        if self.in_processes {
            return Ok(Raw::Index(index));
        }
        let call = |py: Python<'_>| {
            self.object
                .bind(py)
                .get_item(index)
                .map(|o| Raw::Object(o.unbind()))
                .map_err(|e| Error::read("the dataset", index, PythonError::new(py, e)))
        };
        match self.adl_own {
            true => self.gil.attach_adl(call),
            false => self.gil.attach(call),
        }
    }

    /// Sample `index` made from what the read stage read for it: read in
    /// Rust without the GIL (a sensor whose part holds nothing reads for
    /// itself), then given to Python as `dataset[i]` gives it (each
    /// sensor's arrays, bytes or dicts in a dict). Where nothing at all was
    /// read ahead, `dataset[index]` reads; where the read in Rust fails,
    /// `dataset[index]` reads again, so that the error is the one Python
    /// gives for it (as without a read stage: its notes name the sensor
    /// and the sample).
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Raw> {
        let native = match &self.native {
            Some(native) if !fetched.is_nothing() => native,
            _ => return self.get(index),
        };
        match native.get_fetched(index, fetched) {
            Ok(value) => self.gil.attach_adl(|py| {
                into_python(py, value)
                    .map(|o| Raw::Object(o.unbind()))
                    .map_err(|e| Error::read("the dataset", index, PythonError::new(py, e)))
            }),
            Err(_) => self.get(index),
        }
    }

    /// adl's own traces' storage, where the samples are made here (worker
    /// processes read their own: [`in_processes`](Self::in_processes)
    /// drops the traces).
    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        self.native.as_ref().and_then(|n| n.storage())
    }
}

/// A Python pipeline: an object with `sample`, `collate` and `batch`
/// (`abstract_dataloader.spec.Pipeline`), or none (samples as they are,
/// collated by [`default_collate`](crate::collate::default_collate), as
/// PyTorch's DataLoader does by default).
pub(crate) struct PyPipeline {
    object: Option<Py<PyAny>>,
    gil: Arc<GilTime>,
    /// The worker processes that make the samples and collate them, and
    /// whether they leave failed samples out.
    processes: Option<(Arc<Processes>, bool)>,
    /// Whether each batch is weighed ([`bytes_of`]), for a loader under a
    /// memory budget.
    weighing: bool,
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
            processes: None,
            weighing: false,
        })
    }

    /// The same pipeline, weighing each batch it makes where `weighing`
    /// (the loader has a memory budget).
    pub(crate) fn weighing(mut self, weighing: bool) -> Self {
        self.weighing = weighing;
        self
    }

    /// The same pipeline, its `sample` and `collate` run by `processes`
    /// (which leave failed samples out where `skip`).
    pub(crate) fn in_processes(mut self, processes: Arc<Processes>, skip: bool) -> Self {
        self.processes = Some((processes, skip));
        self
    }

    /// Its worker processes, if it has them.
    pub(crate) fn processes(&self) -> Option<Arc<Processes>> {
        self.processes.as_ref().map(|(p, _)| Arc::clone(p))
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
/// recycle), and its bytes where it was weighed ([`bytes_of`]).
pub(crate) struct PyBatch(pub(crate) Py<PyAny>, pub(crate) usize);

impl Recycle for PyBatch {
    fn unpooled_bytes(&self) -> usize {
        self.1
    }
}

/// How deep [`bytes_of`] looks into nested containers.
const WEIGHED_DEPTH: usize = 8;

/// The bytes of the arrays in `value`, a batch as collated: the `nbytes`
/// of each NumPy array or PyTorch tensor (anything with an integer
/// `nbytes`), the length of `bytes`, in dicts, lists and tuples nested up
/// to [`WEIGHED_DEPTH`] deep. Other objects weigh nothing: this is what a
/// memory budget counts of a Python batch, its arrays.
pub(crate) fn bytes_of(value: &Bound<'_, PyAny>) -> usize {
    fn weigh(value: &Bound<'_, PyAny>, depth: usize) -> usize {
        if let Ok(bytes) = value.cast::<pyo3::types::PyBytes>() {
            return bytes.as_bytes().len();
        }
        if depth == 0 {
            return 0;
        }
        if let Ok(dict) = value.cast::<pyo3::types::PyDict>() {
            return dict.values().iter().map(|v| weigh(&v, depth - 1)).sum();
        }
        if let Ok(list) = value.cast::<PyList>() {
            return list.iter().map(|v| weigh(&v, depth - 1)).sum();
        }
        if let Ok(tuple) = value.cast::<pyo3::types::PyTuple>() {
            return tuple.iter().map(|v| weigh(&v, depth - 1)).sum();
        }
        value
            .getattr(pyo3::intern!(value.py(), "nbytes"))
            .and_then(|n| n.extract::<usize>())
            .unwrap_or(0)
    }
    weigh(value, WEIGHED_DEPTH)
}

impl Pipeline<Raw> for PyPipeline {
    type Transformed = Raw;
    type Collated = Py<PyAny>;
    type Processed = PyBatch;

    fn sample(&self, raw: Raw) -> Result<Raw> {
        match raw {
            Raw::Object(object) => self.call("sample", object).map(Raw::Object),
            index @ Raw::Index(_) => Ok(index),
        }
    }

    fn collate(&self, samples: Vec<Raw>) -> Result<Py<PyAny>> {
        if let Some((processes, skip)) = &self.processes {
            let indices: Vec<usize> = (samples.iter())
                .filter_map(|s| match s {
                    Raw::Index(i) => Some(*i),
                    Raw::Object(_) => None,
                })
                .collect();
            return processes.batch(&indices, *skip);
        }
        let failed = |py: Python<'_>, e: PyErr| Error::Transform {
            node: "collate".into(),
            cause: Box::new(PythonError::new(py, e)),
        };
        let objects = samples.into_iter().filter_map(|s| match s {
            Raw::Object(o) => Some(o),
            Raw::Index(_) => None,
        });
        let list = self.gil.attach(|py| {
            PyList::new(py, objects)
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
        let batch = self.call("batch", collated)?;
        let bytes = match self.weighing {
            true => self.gil.attach(|py| Ok(bytes_of(batch.bind(py))))?,
            false => 0,
        };
        Ok(PyBatch(batch, bytes))
    }
}

//! `adl.Dataset`: abstract-dataloader 0.4.7's `abstract.Dataset`, traces
//! concatenated, a global index found in its trace by a binary search
//! over their ends.

use std::sync::OnceLock;

use numpy::PyArray1;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PySequence};

/// A dataset: `traces` (a sequence of traces, adl's or any with
/// `__getitem__` and `__len__`) one after another. Sample `i` is sample
/// `i - start` of the trace it falls in.
#[pyclass(module = "adl", subclass)]
pub(crate) struct Dataset {
    /// The traces, as given.
    #[pyo3(get)]
    traces: Py<PyAny>,
    /// Each trace's end, as a global index (the running sum of their
    /// lengths), found on first use.
    ends: OnceLock<Vec<i64>>,
}

impl Dataset {
    /// The traces, as given.
    pub(crate) fn traces<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.traces.bind(py).clone()
    }

    fn ends(&self, py: Python<'_>) -> PyResult<&[i64]> {
        if let Some(ends) = self.ends.get() {
            return Ok(ends);
        }
        let traces = self.traces.bind(py).cast::<PySequence>()?;
        let mut ends = Vec::with_capacity(traces.len()?);
        let mut total = 0_i64;
        for trace in traces.try_iter()? {
            total = total.saturating_add(i64::try_from(trace?.len()?).unwrap_or(i64::MAX));
            ends.push(total);
        }
        Ok(self.ends.get_or_init(|| ends))
    }

    fn total(&self, py: Python<'_>) -> PyResult<i64> {
        Ok(self.ends(py)?.last().copied().unwrap_or(0))
    }
}

#[pymethods]
impl Dataset {
    #[new]
    fn new(traces: Bound<'_, PyAny>) -> Self {
        Dataset {
            traces: traces.unbind(),
            ends: OnceLock::new(),
        }
    }

    /// Pickled by what it is made of (see `adl._pickle`): its class
    /// called with its traces. A subclass whose constructor takes other
    /// arguments defines its own `__reduce__`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let py = slf.py();
        let made = crate::made_from::MadeFrom::method(
            slf.get_type().into_any(),
            None,
            (slf.borrow().traces.clone_ref(py),),
            pyo3::types::PyDict::new(py),
        )?;
        made.reduce(py)
    }

    /// The end of each trace, as a global index (int64).
    #[getter]
    fn indices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        Ok(PyArray1::from_slice(py, self.ends(py)?))
    }

    /// Sample `index` (an int or a numpy integer, `0 <= index <
    /// len(self)`; another is an `IndexError`).
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let total = self.total(py)?;
        let at: i64 = index.call_method0("__index__")?.extract()?;
        if at < 0 || at >= total {
            return Err(PyIndexError::new_err(format!(
                "Index {} is out of bounds for dataset with length {total}.",
                index.str()?
            )));
        }
        let ends = self.ends(py)?;
        let trace = ends.partition_point(|&end| end <= at);
        let start = if trace > 0 { ends[trace - 1] } else { 0 };
        self.traces.bind(py).get_item(trace)?.get_item(at - start)
    }

    /// The number of samples over every trace.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(usize::try_from(self.total(py)?).unwrap_or(0))
    }

    /// The traces (the dataset's children in a tree of components).
    fn children<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.traces.bind(py).cast::<PySequence>()?.to_list()
    }
}

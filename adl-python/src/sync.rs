//! The synchronization policies of abstract-dataloader 0.4.7's `generic`
//! module, computed by adl-core: `Empty`, `Next` and `Nearest`, each
//! called with `dict[str, array]` of timestamps and returning a
//! `dict[str, uint32 array]` of indices, keys in the input's order, as the
//! reference's do.
//!
//! Where adl refuses what the reference lets through (timestamps not
//! sorted or not finite, a negative count of samples as a margin, a margin
//! naming no sensor, a margin that trims every sample of a sensor, a NaN
//! tolerance), it raises where the reference would index around an
//! array's end or give an empty result; see `adl-python/README.md`.

use adl_core::Synchronization;
use adl_core::sync::{self, Margins};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyString};

use crate::errors::to_python;
use crate::margin;
use crate::timestamps::{Inputs, to_dict};

/// `adl._pickle.native`: what the policies pickle by (their classes are
/// named `adl.generic`'s, where Python classes of the same names wrap
/// them, so pickle cannot find them by name).
fn native(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py.import("adl._pickle")?.getattr("native")
}

/// No synchronization: an empty index array for every sensor (a trace
/// that is only a collection of sensors).
#[pyclass(module = "adl.generic", frozen)]
pub(crate) struct Empty;

#[pymethods]
impl Empty {
    #[new]
    fn new() -> Self {
        Empty
    }

    /// `{sensor: []}` (uint32) for every sensor of `timestamps`.
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        timestamps: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let inputs = Inputs::read(timestamps)?;
        let names = inputs.sensors.iter().map(|(name, _)| name.as_str());
        to_dict(py, &adl_core::Indices::empty(names))
    }

    fn __repr__(&self) -> String {
        "Empty()".to_string()
    }

    /// Pickled as `Empty()`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        (native(py)?, ("Empty",)).into_pyobject(py)
    }
}

/// Each sensor's first sample at or after each reference sample inside
/// every sensor's (margin-trimmed) span.
#[pyclass(module = "adl.generic", frozen)]
pub(crate) struct Next {
    policy: sync::Next,
    margin: Py<PyAny>,
}

#[pymethods]
impl Next {
    #[new]
    #[pyo3(signature = (reference, margin = None))]
    fn new(py: Python<'_>, reference: String, margin: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let margins = margin::read(margin)?;
        Ok(Next {
            policy: sync::Next::new(reference).margin(margins),
            margin: given(py, margin),
        })
    }

    /// The reference sensor's name.
    #[getter]
    fn reference(&self) -> &str {
        self.policy.reference()
    }

    /// The margin, as it was given.
    #[getter]
    fn margin(&self, py: Python<'_>) -> Py<PyAny> {
        self.margin.clone_ref(py)
    }

    /// The indices of every sensor of `timestamps`.
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        timestamps: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        synchronize(py, &self.policy, self.policy.reference(), timestamps)
    }

    /// Pickled as `Next(reference, margin)`, the margin as it was given.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let args = ("Next", self.policy.reference(), self.margin.clone_ref(py));
        (native(py)?, args).into_pyobject(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Next(reference={}, margin={})",
            PyString::new(py, self.policy.reference()).repr()?,
            self.margin.bind(py).repr()?
        ))
    }
}

/// Each sensor's nearest sample to each reference sample inside every
/// sensor's (margin-trimmed) span, kept where every sensor's is within
/// `tol` seconds (strictly).
#[pyclass(module = "adl.generic", frozen)]
pub(crate) struct Nearest {
    policy: sync::Nearest,
    margin: Py<PyAny>,
}

#[pymethods]
impl Nearest {
    #[new]
    #[pyo3(signature = (reference, margin = None, tol = None))]
    fn new(
        py: Python<'_>,
        reference: String,
        margin: Option<&Bound<'_, PyAny>>,
        tol: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (tol, tol_text) = match tol {
            None => (0.1, "0.1".to_string()),
            Some(given) => (given.extract::<f64>()?, given.str()?.to_string()),
        };
        if tol < 0.0 {
            return Err(PyValueError::new_err(format!(
                "Synchronization tolerance must be positive: {tol_text} < 0"
            )));
        }
        let margins: Margins = margin::read(margin)?;
        let policy = sync::Nearest::new(reference, tol)
            .map_err(to_python)?
            .margin(margins);
        Ok(Nearest {
            policy,
            margin: given(py, margin),
        })
    }

    /// The reference sensor's name.
    #[getter]
    fn reference(&self) -> &str {
        self.policy.reference()
    }

    /// The tolerance, in seconds.
    #[getter]
    fn tol(&self) -> f64 {
        self.policy.tolerance()
    }

    /// Pickled as `Nearest(reference, margin, tol)`, the margin as it was
    /// given.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let args = (
            "Nearest",
            self.policy.reference(),
            self.margin.clone_ref(py),
            self.policy.tolerance(),
        );
        (native(py)?, args).into_pyobject(py)
    }

    /// The margin, as it was given.
    #[getter]
    fn margin(&self, py: Python<'_>) -> Py<PyAny> {
        self.margin.clone_ref(py)
    }

    /// The indices of every sensor of `timestamps`.
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        timestamps: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        synchronize(py, &self.policy, self.policy.reference(), timestamps)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Nearest(reference={}, margin={}, tol={})",
            PyString::new(py, self.policy.reference()).repr()?,
            self.margin.bind(py).repr()?,
            PyFloat::new(py, self.policy.tolerance()).repr()?
        ))
    }
}

/// `policy` over `timestamps`, computed with the GIL released; a missing
/// reference is the reference's `KeyError`, in its words.
fn synchronize<'py, P: Synchronization + Sync>(
    py: Python<'py>,
    policy: &P,
    reference: &str,
    timestamps: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let inputs = Inputs::read(timestamps)?;
    if !inputs.sensors.iter().any(|(name, _)| name == reference) {
        return Err(PyKeyError::new_err(format!(
            "Reference sensor {reference} was not provided in timestamps, with keys: {}",
            inputs.keys_repr(py)?
        )));
    }
    let indices = py
        .detach(|| policy.synchronize(&inputs.borrowed()))
        .map_err(to_python)?;
    to_dict(py, &indices)
}

/// The margin as given, `{}` (the reference's default) when none was.
fn given(py: Python<'_>, margin: Option<&Bound<'_, PyAny>>) -> Py<PyAny> {
    match margin {
        Some(margin) => margin.clone().unbind(),
        None => PyDict::new(py).into_any().unbind(),
    }
}

//! A policy's input and output: `dict[str, array]` of timestamps in,
//! `dict[str, uint32 array]` of indices out, keys in the input's order.

use adl_core::Indices;
use numpy::{AllowTypeChange, PyArray1, PyArrayLike1};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping};

/// The timestamps of every sensor, in the mapping's order: each value read
/// as float64 seconds (any numeric array or sequence, as numpy converts
/// it).
pub(crate) struct Inputs {
    pub(crate) sensors: Vec<(String, Vec<f64>)>,
}

impl Inputs {
    /// The sensors of `timestamps`, a mapping of names to timestamps.
    pub(crate) fn read(timestamps: &Bound<'_, PyAny>) -> PyResult<Inputs> {
        let mapping = timestamps.cast::<PyMapping>().map_err(|_| {
            PyTypeError::new_err(format!(
                "timestamps must be a mapping of sensor names to arrays, not {}",
                type_name(timestamps)
            ))
        })?;
        let mut sensors = Vec::new();
        for item in mapping.items()?.iter() {
            let (name, values): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let name: String = name.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a sensor name must be a str, not {}",
                    type_name(&name)
                ))
            })?;
            let values = Inputs::read_one(&name, &values)?;
            sensors.push((name, values));
        }
        Ok(Inputs { sensors })
    }

    /// The timestamps of sensor `name` given as `values` (any numeric
    /// 1-D array or sequence, read as float64 seconds).
    pub(crate) fn read_one(name: &str, values: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
        let array: PyArrayLike1<'_, f64, AllowTypeChange> = values.extract().map_err(|e| {
            PyTypeError::new_err(format!(
                "the timestamps of sensor `{name}` must be a 1-D array of seconds: {e}"
            ))
        })?;
        Ok(array.as_array().iter().copied().collect())
    }

    /// The sensors as a policy takes them.
    pub(crate) fn borrowed(&self) -> Vec<(&str, &[f64])> {
        self.sensors
            .iter()
            .map(|(name, values)| (name.as_str(), values.as_slice()))
            .collect()
    }

    /// The names, as Python's `list(timestamps.keys())` prints them.
    pub(crate) fn keys_repr(&self, py: Python<'_>) -> PyResult<String> {
        let names: Vec<&str> = self.sensors.iter().map(|(n, _)| n.as_str()).collect();
        Ok(PyList::new(py, names)?.repr()?.to_string())
    }
}

/// `indices` as a dict of uint32 arrays, one per sensor in order.
pub(crate) fn to_dict<'py>(py: Python<'py>, indices: &Indices) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (name, column) in indices.iter() {
        out.set_item(name, PyArray1::from_slice(py, column))?;
    }
    Ok(out)
}

/// The Python type name of `value`, for messages.
pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

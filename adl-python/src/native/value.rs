//! [`Value`]s to and from Python: a dict (possibly nested) of NumPy
//! arrays and numbers copied into one, and one handed to Python as NumPy
//! arrays and dicts. The values themselves, their transforms and their
//! collate are `adl_value`'s.

use std::sync::Arc;

use adl_value::{AnyArray, DTYPES, Path, Value, each_array};
use ndarray::{ArrayD, IxDyn};
use numpy::{PyArray, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt};

use crate::{Owner, ToPython};

/// A NumPy array (of a dtype adl reads) copied into an owned array;
/// another dtype is a `TypeError` naming `path`.
fn array_from_numpy(array: &Bound<'_, PyUntypedArray>, path: &Path) -> PyResult<AnyArray> {
    macro_rules! try_as {
        ($($t:ty => $variant:ident),*) => {$(
            if let Ok(typed) = array.cast::<PyArrayDyn<$t>>() {
                return Ok(AnyArray::$variant(typed.to_owned_array()));
            }
        )*};
    }
    try_as!(u8 => U8, i16 => I16, u16 => U16, i32 => I32, i64 => I64, f32 => F32, f64 => F64);
    Err(PyTypeError::new_err(format!(
        "an adl.Pipeline takes arrays of {DTYPES}; {path} is a {} array",
        array.dtype()
    )))
}

/// `object` (a dict, possibly nested, of NumPy arrays and Python
/// numbers) as a value, copied; anything else is a `TypeError` naming
/// where in the sample it is.
pub(crate) fn from_python(object: &Bound<'_, PyAny>, path: &Path) -> PyResult<Value> {
    if let Ok(dict) = object.cast::<PyDict>() {
        let mut items = Vec::with_capacity(dict.len());
        for (key, value) in dict.iter() {
            let key: String = key.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "an adl.Pipeline takes dicts with str keys; {path} has the key {}",
                    key.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                ))
            })?;
            let value = from_python(&value, &path.join(&key))?;
            items.push((Arc::from(key), value));
        }
        return Ok(Value::Map(items));
    }
    if let Ok(array) = object.cast::<PyUntypedArray>() {
        return array_from_numpy(array, path).map(Value::Array);
    }
    if object.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "an adl.Pipeline takes no booleans ({path} is one): give it as a number"
        )));
    }
    if object.is_instance_of::<PyInt>() {
        let value: i64 = object.extract()?;
        return Ok(Value::Array(AnyArray::I64(ArrayD::from_elem(
            IxDyn(&[]),
            value,
        ))));
    }
    if object.is_instance_of::<PyFloat>() {
        let value: f64 = object.extract()?;
        return Ok(Value::Array(AnyArray::F64(ArrayD::from_elem(
            IxDyn(&[]),
            value,
        ))));
    }
    Err(PyTypeError::new_err(format!(
        "an adl.Pipeline takes dicts of NumPy arrays ({DTYPES}) and numbers; {path} is a {}",
        object.get_type().name()?
    )))
}

/// `value` as Python objects: its arrays moved into NumPy arrays (no
/// copy), its dicts as dicts, a frame still in its file as its bytes.
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
        Value::Encoded(frame) => Ok(PyBytes::new(py, frame.0.bytes()).into_any()),
    }
}

impl ToPython for Value {
    fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Value::Array(array) => each_array!(array, a => a.to_python(owner)),
            Value::Map(items) => {
                let dict = PyDict::new(owner.py());
                for (key, value) in items {
                    dict.set_item(&**key, value.to_python(owner)?)?;
                }
                Ok(dict.into_any())
            }
            Value::Encoded(frame) => Ok(PyBytes::new(owner.py(), frame.0.bytes()).into_any()),
        }
    }
}

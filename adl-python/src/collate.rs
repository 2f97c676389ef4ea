//! `adl.default_collate`: PyTorch's `default_collate` with NumPy arrays
//! out (a tensor of the same dtype and shape is `torch.from_numpy` of it,
//! no copy): arrays stacked by adl with the GIL released, numbers into
//! arrays, strings into lists, and the structure kept (dicts by key,
//! tuples and lists transposed, named tuples by field).

use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMapping, PySequence, PyString, PyTuple,
};

/// The batch of `samples` (a sequence of samples of one structure), as
/// PyTorch's `default_collate` makes it, arrays where it makes tensors.
#[pyfunction]
pub(crate) fn default_collate<'py>(samples: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = samples.py();
    let samples: Vec<Bound<'py, PyAny>> = samples.try_iter()?.collect::<PyResult<_>>()?;
    let Some(first) = samples.first() else {
        return Err(PyIndexError::new_err("list index out of range"));
    };
    let numpy = py.import("numpy")?;
    if let Ok(array) = first.cast::<PyUntypedArray>() {
        let kind = array.dtype().kind();
        if matches!(kind, b'U' | b'S' | b'O' | b'V') {
            return Err(unsupported(&array.dtype().str()?.to_string()));
        }
        return stack(py, &samples);
    }
    if first.is_instance(&numpy.getattr("generic")?)? {
        let dtype = first.getattr("dtype")?;
        if matches!(
            dtype.getattr("kind")?.extract::<String>()?.as_str(),
            "U" | "S" | "O" | "V"
        ) {
            return Err(unsupported(&dtype.str()?.to_string()));
        }
        return numpy.call_method1("array", (PyList::new(py, &samples)?, dtype));
    }
    if first.is_instance_of::<PyFloat>() {
        return numbers(py, &samples, "float64");
    }
    if first.is_instance_of::<PyInt>() {
        // Inferred as torch.tensor infers: all bools bool, ints int64, a
        // float among them float32 (torch's default), anything else an error.
        let all_bool = samples.iter().all(|s| s.is_instance_of::<PyBool>());
        let any_float = samples.iter().any(|s| s.is_instance_of::<PyFloat>());
        let dtype = if all_bool {
            "bool"
        } else if any_float {
            "float32"
        } else {
            "int64"
        };
        return numbers(py, &samples, dtype);
    }
    if first.is_instance_of::<PyString>() || first.is_instance_of::<PyBytes>() {
        return Ok(PyList::new(py, &samples)?.into_any());
    }
    if let Ok(mapping) = first.cast::<PyMapping>() {
        let out = PyDict::new(py);
        for key in mapping.keys()?.iter() {
            let column = samples
                .iter()
                .map(|s| {
                    s.get_item(&key)
                        .map_err(|_| PyKeyError::new_err(key.clone().unbind()))
                })
                .collect::<PyResult<Vec<_>>>()?;
            out.set_item(&key, default_collate(PyList::new(py, column)?.as_any())?)?;
        }
        return Ok(out.into_any());
    }
    if first.is_instance_of::<PyTuple>() && first.hasattr("_fields")? {
        let fields = transposed(py, &samples)?;
        return first.get_type().call1(PyTuple::new(py, fields)?);
    }
    if first.cast::<PySequence>().is_ok() {
        let fields = transposed(py, &samples)?;
        return Ok(PyList::new(py, fields)?.into_any());
    }
    Err(unsupported(&first.get_type().repr()?.to_string()))
}

/// Each position of the samples (sequences of one length) collated.
fn transposed<'py>(
    py: Python<'py>,
    samples: &[Bound<'py, PyAny>],
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let len = samples[0].len()?;
    if samples.iter().any(|s| s.len().map_or(true, |n| n != len)) {
        return Err(PyRuntimeError::new_err(
            "each element in list of batch should be of equal size",
        ));
    }
    (0..len)
        .map(|at| {
            let column = samples
                .iter()
                .map(|s| s.get_item(at))
                .collect::<PyResult<Vec<_>>>()?;
            default_collate(PyList::new(py, column)?.as_any())
        })
        .collect()
}

/// Python numbers as a 1-D array of `dtype`.
fn numbers<'py>(
    py: Python<'py>,
    samples: &[Bound<'py, PyAny>],
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    for sample in samples {
        if !(sample.is_instance_of::<PyInt>() || sample.is_instance_of::<PyFloat>()) {
            let name = sample.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "new(): invalid data type '{name}'"
            )));
        }
    }
    py.import("numpy")?
        .call_method1("array", (PyList::new(py, samples)?, dtype))
}

/// The arrays `samples` (one shape, one dtype) stacked on a new first
/// axis: the output allocated by NumPy, each sample's bytes copied into it
/// by adl with the GIL released.
fn stack<'py>(py: Python<'py>, samples: &[Bound<'py, PyAny>]) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let mut arrays = Vec::with_capacity(samples.len());
    for sample in samples {
        let Ok(array) = sample.cast::<PyUntypedArray>() else {
            return Err(unsupported(&sample.get_type().repr()?.to_string()));
        };
        // C order, so that a sample's bytes are one run (`asarray`, which
        // keeps a 0-d array 0-d, where `ascontiguousarray` makes it 1-d).
        let kwargs = PyDict::new(py);
        kwargs.set_item("order", "C")?;
        let contiguous = numpy
            .call_method("asarray", (array,), Some(&kwargs))?
            .cast_into::<PyUntypedArray>()?;
        arrays.push(contiguous);
    }
    let first = &arrays[0];
    let shape = first.shape().to_vec();
    let dtype = first.dtype();
    for (at, array) in arrays.iter().enumerate().skip(1) {
        if array.shape() != shape.as_slice() {
            return Err(PyRuntimeError::new_err(format!(
                "stack expects each tensor to be equal size, but got {:?} at entry 0 and {:?} at entry {at}",
                shape,
                array.shape()
            )));
        }
        if !array.dtype().is_equiv_to(&dtype) {
            return Err(PyRuntimeError::new_err(format!(
                "stack expects each array to have one dtype, but got {} at entry 0 and {} at entry {at}",
                dtype.str()?,
                array.dtype().str()?
            )));
        }
    }
    let mut out_shape = vec![arrays.len()];
    out_shape.extend_from_slice(&shape);
    let out = numpy
        .call_method1("empty", (PyTuple::new(py, &out_shape)?, &dtype))?
        .cast_into::<PyUntypedArray>()?;
    let bytes = shape.iter().product::<usize>() * dtype.itemsize();
    // SAFETY: every array is C-contiguous (from `asarray(order="C")`, or
    // `empty`) with `bytes` bytes per sample, and `out` holds one run of
    // `bytes` per sample; the arrays are kept alive by `arrays` and `out`,
    // which this function holds until the copy is done, and no Python code
    // runs on them meanwhile (`out` is new and not yet shared).
    let sources: Vec<usize> = arrays
        .iter()
        .map(|a| unsafe { (*a.as_array_ptr()).fields.data as usize })
        .collect();
    let target = unsafe { (*out.as_array_ptr()).fields.data as usize };
    py.detach(|| {
        for (k, &source) in sources.iter().enumerate() {
            unsafe {
                std::ptr::copy_nonoverlapping(
                    source as *const u8,
                    (target as *mut u8).add(k * bytes),
                    bytes,
                );
            }
        }
    });
    Ok(out.into_any())
}

fn unsupported(found: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {found}"
    ))
}

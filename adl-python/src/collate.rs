//! `adl.default_collate`: PyTorch's `default_collate` with NumPy arrays
//! out (a tensor of the same dtype and shape is `torch.from_numpy` of it,
//! no copy) where the samples hold NumPy arrays and numbers, and tensors
//! where they hold tensors (stacked by `torch.stack`, as PyTorch's own):
//! arrays stacked by adl under the GIL, numbers into
//! arrays, strings into lists, and the structure kept (dicts by key,
//! tuples and lists transposed, named tuples by field, dataclasses by
//! field into an instance of their class, as `abstract_dataloader`'s
//! `ext.torch.Collate` batches the optree dataclasses of `ext.types`).

use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMapping, PySequence, PyString, PyTuple,
};

/// The batch of `samples` (a sequence of samples of one structure), as
/// PyTorch's `default_collate` makes it, arrays where it makes tensors.
#[pyfunction]
pub(crate) fn default_collate<'py>(samples: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    collate(samples, &Path::Root)
}

/// Where a value stands in a sample, from its root: told by an error
/// about a dataclass (`sample['radar'].iq`), and built only then.
enum Path<'a, 'py> {
    /// The sample itself.
    Root,
    /// The value under a mapping's key.
    Key(&'a Path<'a, 'py>, &'a Bound<'py, PyAny>),
    /// The value at a sequence's position.
    Index(&'a Path<'a, 'py>, usize),
    /// A dataclass's field.
    Field(&'a Path<'a, 'py>, &'a str),
}

impl Path<'_, '_> {
    /// The path as Python would index it, from `sample`.
    fn render(&self) -> String {
        match self {
            Path::Root => "sample".to_owned(),
            Path::Key(parent, key) => {
                let key = key
                    .repr()
                    .map_or_else(|_| "<key>".to_owned(), |r| r.to_string());
                format!("{}[{key}]", parent.render())
            }
            Path::Index(parent, at) => format!("{}[{at}]", parent.render()),
            Path::Field(parent, name) => format!("{}.{name}", parent.render()),
        }
    }
}

/// The batch of `samples`, each the value at `path` of its sample.
fn collate<'py>(samples: &Bound<'py, PyAny>, path: &Path<'_, 'py>) -> PyResult<Bound<'py, PyAny>> {
    let py = samples.py();
    let samples: Vec<Bound<'py, PyAny>> = samples.try_iter()?.collect::<PyResult<_>>()?;
    let Some(first) = samples.first() else {
        return Err(PyIndexError::new_err("list index out of range"));
    };
    if let Some(torch) = torch_of(first)? {
        // As PyTorch's own: the tensors stacked by `torch.stack`, its
        // errors (another shape, a sample that is no tensor) its own.
        return torch.call_method1("stack", (PyList::new(py, &samples)?, 0));
    }
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
    if is_dataclass_instance(first)? {
        return dataclass(py, &samples, path);
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
            let value = collate(PyList::new(py, column)?.as_any(), &Path::Key(path, &key))?;
            out.set_item(&key, value)?;
        }
        return Ok(out.into_any());
    }
    if first.is_instance_of::<PyTuple>() && first.hasattr("_fields")? {
        let fields = transposed(py, &samples, path)?;
        return first.get_type().call1(PyTuple::new(py, fields)?);
    }
    if first.cast::<PySequence>().is_ok() {
        let fields = transposed(py, &samples, path)?;
        return Ok(PyList::new(py, fields)?.into_any());
    }
    Err(unsupported(&first.get_type().repr()?.to_string()))
}

/// The `torch` module, where `value` is one of its tensors: looked up in
/// the modules already imported (a tensor's module is), so that a batch
/// without tensors never imports PyTorch.
fn torch_of<'py>(value: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let modules = value.py().import("sys")?.getattr("modules")?;
    let Ok(torch) = modules.get_item("torch") else {
        return Ok(None);
    };
    let Ok(tensor) = torch.getattr("Tensor") else {
        return Ok(None);
    };
    Ok(value.is_instance(&tensor)?.then_some(torch))
}

/// Whether `value` is an instance of a dataclass (not the class itself),
/// as `dataclasses.is_dataclass` tells it.
fn is_dataclass_instance(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(value.get_type().hasattr("__dataclass_fields__")?
        && !value.is_instance_of::<pyo3::types::PyType>())
}

/// The dataclass instances `samples` (all of one class) as one instance
/// of that class, rebuilt with `cls(**fields)` as optree rebuilds the
/// dataclasses of `ext.types.dataclass`: each field given to `__init__`
/// collated across the samples; a field that optree keeps as metadata
/// (`pytree_node=False`) must be equal in every sample and is kept as it
/// is; a field not given to `__init__` is left to the class to make.
fn dataclass<'py>(
    py: Python<'py>,
    samples: &[Bound<'py, PyAny>],
    path: &Path<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let class = samples[0].get_type();
    for (at, sample) in samples.iter().enumerate().skip(1) {
        if !sample.get_type().is(&class) {
            return Err(PyTypeError::new_err(format!(
                "default_collate: {} is a {} in sample 0 but a {} in sample {at}; a batch's samples must have one structure",
                path.render(),
                qualified_name(&class),
                qualified_name(&sample.get_type()),
            )));
        }
    }
    let fields = py
        .import("dataclasses")?
        .call_method1("fields", (&samples[0],))?;
    let kwargs = PyDict::new(py);
    for field in fields.try_iter()? {
        let field = field?;
        if !field.getattr("init")?.is_truthy()? {
            continue;
        }
        let name: String = field.getattr("name")?.extract()?;
        let here = Path::Field(path, &name);
        let column = samples
            .iter()
            .map(|s| s.getattr(name.as_str()))
            .collect::<PyResult<Vec<_>>>()?;
        let node = field
            .getattr("metadata")?
            .call_method1("get", ("pytree_node", true))?
            .is_truthy()?;
        let value = if node {
            collate(PyList::new(py, column)?.as_any(), &here)?
        } else {
            same_everywhere(&column, &here, &class)?
        };
        kwargs.set_item(&name, value)?;
    }
    class.call((), Some(&kwargs)).map_err(|error| {
        let message = format!(
            "default_collate: {} could not be rebuilt as a batch, {}(**fields) raised: {error}",
            path.render(),
            qualified_name(&class),
        );
        let wrapped = PyTypeError::new_err(message);
        wrapped.set_cause(py, Some(error));
        wrapped
    })
}

/// The value of a metadata field (optree's `pytree_node=False`), which
/// every sample must hold equal, as optree requires of one batch.
fn same_everywhere<'py>(
    column: &[Bound<'py, PyAny>],
    path: &Path<'_, 'py>,
    class: &Bound<'py, pyo3::types::PyType>,
) -> PyResult<Bound<'py, PyAny>> {
    let first = &column[0];
    for (at, value) in column.iter().enumerate().skip(1) {
        let equal = value
            .eq(first)
            .map_err(|error| {
                PyTypeError::new_err(format!(
                    "default_collate: {} (a metadata field of {}, pytree_node=False) must be equal in every sample, and comparing sample {at} with sample 0 raised: {error}",
                    path.render(),
                    qualified_name(class),
                ))
            })?;
        if !equal {
            return Err(PyValueError::new_err(format!(
                "default_collate: {} (a metadata field of {}, pytree_node=False) must be equal in every sample, but sample 0 has {} and sample {at} has {}",
                path.render(),
                qualified_name(class),
                short_repr(first),
                short_repr(value),
            )));
        }
    }
    Ok(first.clone())
}

/// `module.QualName` of a class, for errors.
fn qualified_name(class: &Bound<'_, pyo3::types::PyType>) -> String {
    let module = class
        .module()
        .map_or_else(|_| String::new(), |m| format!("{m}."));
    let name = class
        .qualname()
        .map_or_else(|_| "<class>".to_owned(), |n| n.to_string());
    format!("{module}{name}")
}

/// A value's `repr`, cut to a line's length, for errors.
fn short_repr(value: &Bound<'_, PyAny>) -> String {
    let text = value
        .repr()
        .map_or_else(|_| "<unprintable>".to_owned(), |r| r.to_string());
    if text.chars().count() > 80 {
        format!("{}...", text.chars().take(77).collect::<String>())
    } else {
        text
    }
}

/// Each position of the samples (sequences of one length) collated.
fn transposed<'py>(
    py: Python<'py>,
    samples: &[Bound<'py, PyAny>],
    path: &Path<'_, 'py>,
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
            collate(PyList::new(py, column)?.as_any(), &Path::Index(path, at))
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
/// by adl with the GIL held (the samples are the caller's arrays, which
/// any other Python thread may write while the GIL is released).
fn stack<'py>(py: Python<'py>, samples: &[Bound<'py, PyAny>]) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let mut arrays = Vec::with_capacity(samples.len());
    for sample in samples {
        let Ok(array) = sample.cast::<PyUntypedArray>() else {
            return Err(unsupported(&sample.get_type().repr()?.to_string()));
        };
        // C order, so that a sample's bytes are one run (`asarray`, which
        // keeps a 0-d array 0-d, where `ascontiguousarray` makes it 1-d);
        // an array in C order already is taken as it is, with no call
        // into Python (W6's 64 samples of four arrays: 123 us a batch
        // with the calls).
        if array.is_c_contiguous() {
            arrays.push(array.clone());
            continue;
        }
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
    let target = out.as_array_ptr();
    for (k, array) in arrays.iter().enumerate() {
        // SAFETY: `array` is C-contiguous (checked, or from
        // `asarray(order="C")`) with
        // `bytes` bytes (its shape and dtype were checked equal to the
        // first's above, and its dtype is not an object dtype, so the bytes
        // are plain data), and `out` is C-contiguous (from `empty`) with one
        // run of `bytes` per sample, so the `k`-th run is in bounds; both
        // are kept alive by `arrays` and `out`, and `out` is new, not shared,
        // so the two do not overlap. The GIL is held for the whole copy
        // (`py` is borrowed and nothing here releases it), so no Python
        // thread runs meanwhile, and none can write `array` or resize it.
        unsafe {
            let source = (*array.as_array_ptr()).fields.data as *const u8;
            let run = ((*target).fields.data as *mut u8).add(k * bytes);
            std::ptr::copy_nonoverlapping(source, run, bytes);
        }
    }
    Ok(out.into_any())
}

fn unsupported(found: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {found}"
    ))
}

//! [`IntoPython`]: a Rust batch as the Python object a training loop
//! gets, arrays as NumPy arrays that own their buffers (no copy).

use adl_core::Record;
use ndarray::{Array, Dimension};
use numpy::{Element, IntoPyArray};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// A value that becomes a Python object: an `ndarray` array becomes a
/// NumPy array owning its buffer (no copy), numbers and strings Python's,
/// `Option` `None` or the value, `Vec` a list, a tuple a tuple, a
/// [`Record`] a dict. A batch type of one's own implements it in a few
/// lines (a dict of its fields, say).
pub trait IntoPython: Send + 'static {
    /// `self` as a Python object.
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl<T: Element + Send + 'static, D: Dimension + 'static> IntoPython for Array<T, D> {
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(self.into_pyarray(py).into_any().unbind())
    }
}

/// Numbers, booleans and strings: Python's own.
macro_rules! into_python_as_is {
    ($($t:ty),*) => {$(
        impl IntoPython for $t {
            fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                Ok(self.into_pyobject(py)?.to_owned().into_any().unbind())
            }
        }
    )*};
}

into_python_as_is!(
    bool, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize, String
);

impl<T: IntoPython> IntoPython for Option<T> {
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Some(value) => value.into_python(py),
            None => Ok(py.None()),
        }
    }
}

impl<T: IntoPython> IntoPython for Vec<T> {
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = self
            .into_iter()
            .map(|item| item.into_python(py))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any().unbind())
    }
}

impl<T: IntoPython> IntoPython for Record<T> {
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let out = PyDict::new(py);
        for (name, value) in self {
            out.set_item(name, value.into_python(py)?)?;
        }
        Ok(out.into_any().unbind())
    }
}

/// Tuples of up to four values.
macro_rules! into_python_tuple {
    ($($name:ident),+) => {
        impl<$($name: IntoPython),+> IntoPython for ($($name,)+) {
            #[allow(non_snake_case)]
            fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                let ($($name,)+) = self;
                let items = [$($name.into_python(py)?),+];
                Ok(PyTuple::new(py, items)?.into_any().unbind())
            }
        }
    };
}

into_python_tuple!(A);
into_python_tuple!(A, B);
into_python_tuple!(A, B, C);
into_python_tuple!(A, B, C, D);

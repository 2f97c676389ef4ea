//! [`ToPython`]: a Rust batch as the Python object a training loop gets,
//! its arrays NumPy arrays over the batch's own buffers (no copy), which
//! go back to the loader's pool when Python frees the last of them.

use adl_core::Record;
use ndarray::{Array, Dimension};
use numpy::{Element, PyArray};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// A value that Python sees: an `ndarray` array as a NumPy array viewing
/// its buffer, kept alive by `owner` (the object that owns the whole
/// batch: no copy, and the buffer returns to the loader's pool once
/// Python drops every view); numbers and strings as Python's; `Option` as
/// `None` or the value; `Vec` as a list; a tuple as a tuple; a [`Record`]
/// as a dict. A batch type of one's own implements it in a few lines (a
/// dict of its fields, each field's `to_python(owner)`).
pub trait ToPython: Send + Sync + 'static {
    /// `self` as a Python object, its arrays kept alive by `owner`, which
    /// owns `self` and does not move or change it while Python holds it.
    fn to_python<'py>(&self, owner: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>>;
}

impl<T: Element + Send + Sync + 'static, D: Dimension + 'static> ToPython for Array<T, D> {
    fn to_python<'py>(&self, owner: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: `owner` owns the batch this array is part of and keeps
        // it, unmoved and unchanged, for as long as the view (its base)
        // lives; the array's buffer is on the heap, where moving the batch
        // into `owner` did not move it.
        let view = unsafe { PyArray::borrow_from_array(self, owner.clone()) };
        Ok(view.into_any())
    }
}

/// Numbers, booleans and strings: copied into Python's own.
macro_rules! to_python_as_is {
    ($($t:ty),*) => {$(
        impl ToPython for $t {
            fn to_python<'py>(&self, owner: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
                Ok(self.clone().into_pyobject(owner.py())?.to_owned().into_any())
            }
        }
    )*};
}

to_python_as_is!(
    bool, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize, String
);

impl<T: ToPython> ToPython for Option<T> {
    fn to_python<'py>(&self, owner: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Some(value) => value.to_python(owner),
            None => Ok(owner.py().None().into_bound(owner.py())),
        }
    }
}

impl<T: ToPython> ToPython for Vec<T> {
    fn to_python<'py>(&self, owner: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let items = self
            .iter()
            .map(|item| item.to_python(owner))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(owner.py(), items)?.into_any())
    }
}

impl<T: ToPython> ToPython for Record<T> {
    fn to_python<'py>(&self, owner: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let out = PyDict::new(owner.py());
        for (name, value) in self.names().iter().zip(self.values()) {
            out.set_item(name, value.to_python(owner)?)?;
        }
        Ok(out.into_any())
    }
}

/// Tuples of up to four values.
macro_rules! to_python_tuple {
    ($($name:ident),+) => {
        impl<$($name: ToPython),+> ToPython for ($($name,)+) {
            #[allow(non_snake_case)]
            fn to_python<'py>(&self, owner: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
                let ($($name,)+) = self;
                let items = [$($name.to_python(owner)?),+];
                Ok(PyTuple::new(owner.py(), items)?.into_any())
            }
        }
    };
}

to_python_tuple!(A);
to_python_tuple!(A, B);
to_python_tuple!(A, B, C);
to_python_tuple!(A, B, C, D);

//! [`ToPython`]: a Rust batch as the Python object a training loop gets,
//! its arrays NumPy arrays over the batch's own buffers (no copy), which
//! go back to the loader's pool when Python frees the last of them.

use std::marker::PhantomData;

use adl_core::Record;
use ndarray::{Array, Dimension};
use numpy::{Element, PyArray};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// The Python object that owns a batch being handed to Python, as
/// [`ToPython::to_python`] is lent it: the base of the NumPy arrays that
/// view the batch's buffers, which keeps the batch alive, unmoved and
/// unchanged, for as long as any of them lives.
///
/// Only the loader makes one (its constructor is not public), for the
/// batch it owns, whose borrow is `'b`; and `to_python` lends it together
/// with `&'b self`, so an array viewed through it is one that lives at
/// least as long as that borrow: a part of the batch (or data that is
/// never freed). An array of a `to_python` of one's own, made there and
/// dropped at its end, cannot be viewed through it: the borrow checker
/// refuses it (the compile-fail example below), where a view of it would
/// read freed memory.
///
/// ```compile_fail,E0597
/// use adl_python::{Owner, ToPython};
/// use ndarray::Array1;
/// use pyo3::prelude::*;
///
/// struct Batch;
///
/// impl ToPython for Batch {
///     fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
///         let local = Array1::<f32>::zeros(4); // not the batch's: dropped below
///         local.to_python(owner)               // error: `local` does not live long enough
///     }
/// }
/// ```
pub struct Owner<'b, 'py> {
    object: &'b Bound<'py, PyAny>,
    /// `'b` invariant: an owner is not lent as one of a shorter borrow.
    _batch: PhantomData<fn(&'b ()) -> &'b ()>,
}

impl<'b, 'py> Owner<'b, 'py> {
    /// The owner `object` of a batch borrowed for `'b`.
    ///
    /// # Safety
    ///
    /// `object` owns the batch whose `&'b` borrow is handed to
    /// `to_python` with this owner, and keeps it, unmoved and unchanged
    /// (its buffers on the heap where they are), for as long as `object`
    /// lives.
    pub(crate) unsafe fn new(object: &'b Bound<'py, PyAny>) -> Self {
        Owner {
            object,
            _batch: PhantomData,
        }
    }

    /// The Python interpreter.
    pub fn py(&self) -> Python<'py> {
        self.object.py()
    }
}

/// A value that Python sees: an `ndarray` array as a NumPy array viewing
/// its buffer, kept alive by the batch's [`Owner`] (no copy, and the
/// buffer returns to the loader's pool once Python drops every view);
/// numbers and strings as Python's; `Option` as `None` or the value; `Vec`
/// as a list; a tuple as a tuple; a [`Record`] as a dict. A batch type of
/// one's own implements it in a few lines (a dict of its fields, each
/// field's `to_python(owner)`).
pub trait ToPython: Send + Sync + 'static {
    /// `self`, a part of the batch that `owner` owns, as a Python object,
    /// its arrays kept alive by `owner`.
    fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>>;
}

impl<T: Element + Send + Sync + 'static, D: Dimension + 'static> ToPython for Array<T, D> {
    fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: `self` is borrowed for `'b`, the borrow of the batch that
        // `owner` owns (the only way to an `Owner` is the loader's, whose
        // contract is that), so it is part of that batch (or lives for
        // ever): `owner` keeps it, unmoved and unchanged, for as long as
        // the view (its base) lives; the array's buffer is on the heap,
        // where moving the batch into `owner` did not move it.
        let view = unsafe { PyArray::borrow_from_array(self, owner.object.clone()) };
        Ok(view.into_any())
    }
}

/// Numbers, booleans and strings: copied into Python's own.
macro_rules! to_python_as_is {
    ($($t:ty),*) => {$(
        impl ToPython for $t {
            fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(self.clone().into_pyobject(owner.py())?.to_owned().into_any())
            }
        }
    )*};
}

to_python_as_is!(
    bool, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize, String
);

impl<T: ToPython> ToPython for Option<T> {
    fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Some(value) => value.to_python(owner),
            None => Ok(owner.py().None().into_bound(owner.py())),
        }
    }
}

impl<T: ToPython> ToPython for Vec<T> {
    fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
        let items = self
            .iter()
            .map(|item| item.to_python(owner))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(owner.py(), items)?.into_any())
    }
}

impl<T: ToPython> ToPython for Record<T> {
    fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
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
            fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
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

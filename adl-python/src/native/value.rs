//! [`Value`]: a sample or a batch of whatever shape a Python program
//! gives it (dicts of NumPy arrays of any of adl's dtypes, nested), held
//! in Rust so that an `adl.Pipeline` transforms and collates it without
//! the GIL.

use std::fmt;
use std::sync::Arc;

use adl_core::exec::{Buffers, Recycle, Recycler};
use adl_core::{Error, Result};
use adl_files::EncodedImage;
use ndarray::{ArrayD, IxDyn};
use numpy::{PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt};

use crate::{Owner, ToPython};

/// An array of one of the element types adl's sensors read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AnyArray {
    /// `uint8`: camera frames.
    U8(ArrayD<u8>),
    /// `int16`.
    I16(ArrayD<i16>),
    /// `uint16`: depth maps.
    U16(ArrayD<u16>),
    /// `int32`.
    I32(ArrayD<i32>),
    /// `int64`: Python's ints.
    I64(ArrayD<i64>),
    /// `float32`.
    F32(ArrayD<f32>),
    /// `float64`: Python's floats, tables, flight logs.
    F64(ArrayD<f64>),
}

/// `$body` with `$array` bound to the array of whatever element type.
macro_rules! each_array {
    ($value:expr, $array:ident => $body:expr) => {
        match $value {
            $crate::native::AnyArray::U8($array) => $body,
            $crate::native::AnyArray::I16($array) => $body,
            $crate::native::AnyArray::U16($array) => $body,
            $crate::native::AnyArray::I32($array) => $body,
            $crate::native::AnyArray::I64($array) => $body,
            $crate::native::AnyArray::F32($array) => $body,
            $crate::native::AnyArray::F64($array) => $body,
        }
    };
}
pub(crate) use each_array;

/// An element type of [`AnyArray`]: its arrays in and out of the enum.
pub(crate) trait Dtype: Copy + Send + Sync + 'static {
    /// NumPy's name of the type.
    const NAME: &'static str;
    /// The array, if `array` holds this type; else `array` back.
    fn unwrap(array: AnyArray) -> std::result::Result<ArrayD<Self>, AnyArray>;
    /// `array` in the enum.
    fn wrap(array: ArrayD<Self>) -> AnyArray;
}

macro_rules! dtype {
    ($($t:ty => $variant:ident, $name:ident);*) => {$(
        impl Dtype for $t {
            const NAME: &'static str = stringify!($name);
            fn unwrap(array: AnyArray) -> std::result::Result<ArrayD<$t>, AnyArray> {
                match array {
                    AnyArray::$variant(a) => Ok(a),
                    other => Err(other),
                }
            }
            fn wrap(array: ArrayD<$t>) -> AnyArray {
                AnyArray::$variant(array)
            }
        }
    )*};
}
dtype!(
    u8 => U8, uint8; i16 => I16, int16; u16 => U16, uint16; i32 => I32, int32;
    i64 => I64, int64; f32 => F32, float32; f64 => F64, float64
);

/// The NumPy names of [`AnyArray`]'s element types, for messages.
pub(crate) const DTYPES: &str = "uint8, int16, uint16, int32, int64, float32, float64";

impl AnyArray {
    /// The element type's NumPy name.
    pub(crate) fn dtype(&self) -> &'static str {
        fn name<T: Dtype>(_: &ArrayD<T>) -> &'static str {
            T::NAME
        }
        each_array!(self, a => name(a))
    }

    /// The array's shape.
    pub(crate) fn shape(&self) -> &[usize] {
        each_array!(self, a => a.shape())
    }

    /// A NumPy array (of a dtype adl reads) copied into an owned array;
    /// another dtype is a `TypeError` naming `path`.
    fn from_numpy(array: &Bound<'_, PyUntypedArray>, path: &Path) -> PyResult<AnyArray> {
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
}

/// A camera frame still in its file (`files.Images(...).encoded()`): a
/// sample transform decodes it (`T.RandomResizedCrop` only the crop,
/// `T.Decode` whole). Two are equal when their files' bytes are.
#[derive(Debug, Clone)]
pub(crate) struct Encoded(pub(crate) EncodedImage);

impl PartialEq for Encoded {
    fn eq(&self, other: &Self) -> bool {
        self.0.bytes() == other.0.bytes()
    }
}

/// What collating a frame still in its file says: where to decode it.
const DECODE_FIRST: &str = "an encoded frame (files.Images(...).encoded()): decode it in the sample stage, with adl.transforms.RandomResizedCrop (only the crop) or adl.transforms.Decode (whole)";

/// A sample or a batch: an array, or named values in order (a dict); in a
/// sample, also a frame still in its file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// An array (a Python number is a 0-d one).
    Array(AnyArray),
    /// A dict's items, in its order.
    Map(Vec<(Arc<str>, Value)>),
    /// A camera frame, read and not decoded.
    Encoded(Encoded),
}

impl Value {
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
                let value = Value::from_python(&value, &path.join(&key))?;
                items.push((Arc::from(key), value));
            }
            return Ok(Value::Map(items));
        }
        if let Ok(array) = object.cast::<PyUntypedArray>() {
            return AnyArray::from_numpy(array, path).map(Value::Array);
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

    /// A short description of the value's kind, for messages.
    pub(crate) fn kind(&self) -> String {
        match self {
            Value::Array(array) => format!("{} array of shape {:?}", array.dtype(), array.shape()),
            Value::Map(items) => format!(
                "dict of {}",
                items
                    .iter()
                    .map(|(k, _)| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Encoded(frame) => format!("encoded frame ({})", frame.0.location()),
        }
    }

    /// The value at `key` of a dict, taken out (to be transformed and put
    /// back with [`Value::put`]).
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        let Value::Map(items) = self else {
            return None;
        };
        let at = items.iter().position(|(k, _)| &**k == key)?;
        let placeholder = Value::Map(Vec::new());
        Some(std::mem::replace(&mut items[at].1, placeholder))
    }

    /// Put `value` back at `key` (where [`Value::take`] took it).
    pub(crate) fn put(&mut self, key: &str, value: Value) {
        if let Value::Map(items) = self
            && let Some(slot) = items.iter_mut().find(|(k, _)| &**k == key)
        {
            slot.1 = value;
        }
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

impl Recycle for Value {
    fn recycle(self, recycler: &mut Recycler) {
        match self {
            Value::Array(array) => each_array!(array, a => a.recycle(recycler)),
            Value::Map(items) => {
                for (_, value) in items {
                    value.recycle(recycler);
                }
            }
            Value::Encoded(_) => {}
        }
    }
}

/// Where a value is in a sample: its keys from the top, as Python writes
/// them (`sample["camera"]`), for messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Path(Vec<Arc<str>>);

impl Path {
    /// The sample itself.
    pub(crate) fn root() -> Path {
        Path(Vec::new())
    }

    /// A path of `keys` split at `/` (`"camera"`, `"imu/acc"`), as an
    /// `adl.Pipeline` names the values its transforms take.
    pub(crate) fn parse(keys: &str) -> Option<Path> {
        let parts: Vec<Arc<str>> = keys.split('/').map(Arc::from).collect();
        parts.iter().all(|p| !p.is_empty()).then_some(Path(parts))
    }

    /// This path and then `key`.
    pub(crate) fn join(&self, key: &str) -> Path {
        let mut keys = self.0.clone();
        keys.push(Arc::from(key));
        Path(keys)
    }

    /// The keys from the top.
    pub(crate) fn keys(&self) -> &[Arc<str>] {
        &self.0
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sample")?;
        for key in &self.0 {
            write!(f, "[{key:?}]")?;
        }
        Ok(())
    }
}

/// `samples` stacked into a batch: dicts key by key (each sample with the
/// same keys, in the same order), arrays into one of a leading batch axis
/// (each sample's of the same dtype and shape), its buffer from the
/// loader's pool (`buffers`). A sample that does not fit is an
/// [`Error::Collate`] naming its position, where in it, and both shapes.
pub(crate) fn stack(samples: Vec<Value>, buffers: Buffers<'_>) -> Result<Value> {
    let Some(first) = samples.first() else {
        return Err(Error::collate(0, "an empty batch"));
    };
    match first {
        Value::Map(first_items) => {
            let keys: Vec<Arc<str>> = first_items.iter().map(|(k, _)| Arc::clone(k)).collect();
            let mut columns: Vec<Vec<Value>> = keys
                .iter()
                .map(|_| Vec::with_capacity(samples.len()))
                .collect();
            for (position, sample) in samples.into_iter().enumerate() {
                let Value::Map(items) = sample else {
                    return Err(Error::collate(
                        position,
                        format!("a {} where the first sample has a dict", sample.kind()),
                    ));
                };
                let same = items.len() == keys.len()
                    && items.iter().zip(&keys).all(|((k, _), key)| k == key);
                if !same {
                    return Err(Error::collate(
                        position,
                        format!(
                            "the keys {:?}, where the first sample has {:?}",
                            items.iter().map(|(k, _)| &**k).collect::<Vec<_>>(),
                            keys.iter().map(|k| &**k).collect::<Vec<_>>()
                        ),
                    ));
                }
                for ((_, value), column) in items.into_iter().zip(&mut columns) {
                    column.push(value);
                }
            }
            let mut out = Vec::with_capacity(keys.len());
            for (key, column) in keys.into_iter().zip(columns) {
                let stacked = stack(column, buffers).map_err(|e| e.within(format!("[{key:?}]")))?;
                out.push((key, stacked));
            }
            Ok(Value::Map(out))
        }
        Value::Array(first) => {
            let stacker = each_array!(first, a => stacker_of(a));
            stacker(samples, buffers).map(Value::Array)
        }
        Value::Encoded(_) => Err(Error::collate(0, DECODE_FIRST)),
    }
}

/// The stacking of arrays of `_first`'s element type.
fn stacker_of<T: Dtype>(_first: &ArrayD<T>) -> fn(Vec<Value>, Buffers<'_>) -> Result<AnyArray> {
    stack_arrays::<T>
}

/// `samples`, arrays of `T` of one shape, stacked along a new first axis
/// into a buffer from `buffers`.
fn stack_arrays<T: Dtype>(samples: Vec<Value>, buffers: Buffers<'_>) -> Result<AnyArray> {
    let count = samples.len();
    let mut shape: Option<Vec<usize>> = None;
    let mut values: Vec<T> = Vec::new();
    for (position, sample) in samples.into_iter().enumerate() {
        let array = match sample {
            Value::Array(array) => T::unwrap(array).map_err(Value::Array),
            other => Err(other),
        };
        let array = match (array, &shape) {
            (Ok(array), Some(shape)) if array.shape() == shape.as_slice() => array,
            (Ok(array), None) => {
                let per_sample: usize = array.len();
                values = buffers.take(per_sample.saturating_mul(count));
                shape = Some(array.shape().to_vec());
                array
            }
            (Ok(array), Some(shape)) => {
                return Err(Error::collate(
                    position,
                    format!(
                        "an array of shape {:?} where the first sample's has shape {shape:?}",
                        array.shape()
                    ),
                ));
            }
            (Err(other), _) => {
                return Err(Error::collate(
                    position,
                    format!(
                        "a {} where the first sample has a {} array",
                        other.kind(),
                        T::NAME
                    ),
                ));
            }
        };
        match array.as_slice() {
            Some(slice) => values.extend_from_slice(slice),
            None => values.extend(array.iter().copied()),
        }
    }
    let shape = shape.unwrap_or_default();
    let mut batch_shape = Vec::with_capacity(shape.len() + 1);
    batch_shape.push(count);
    batch_shape.extend_from_slice(&shape);
    let stacked = ArrayD::from_shape_vec(IxDyn(&batch_shape), values)
        .map_err(|e| Error::internal("adl.Pipeline collate", e))?;
    Ok(T::wrap(stacked))
}

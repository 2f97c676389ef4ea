//! [`stack`]: samples of one shape stacked into a batch, as an
//! `adl.Pipeline` collates them.

use std::sync::Arc;

use adl_core::{Error, Result};
use adl_exec::Buffers;
use ndarray::{ArrayD, IxDyn};

use crate::array::{AnyArray, Dtype};
use crate::value::{DECODE_FIRST, Value};

/// `samples` stacked into a batch: dicts key by key (each sample with the
/// same keys, in the same order), arrays into one of a leading batch axis
/// (each sample's of the same dtype and shape), its buffer from the
/// loader's pool (`buffers`). A sample that does not fit is an
/// [`Error::Collate`] naming its position, where in it, and both shapes.
pub fn stack(samples: Vec<Value>, buffers: Buffers<'_>) -> Result<Value> {
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
            let stacker = crate::each_array!(first, a => stacker_of(a));
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

//! [`Value`]: a sample or a batch of any shape (named values in order,
//! arrays of adl's element types, frames still in their files), and
//! [`Path`], where a value is in a sample.

use std::fmt;
use std::sync::Arc;

use adl_exec::{Recycle, Recycler};
use adl_files::EncodedImage;

use crate::array::AnyArray;

/// A camera frame still in its file (`files.Images(...).encoded()`): a
/// sample transform decodes it (`T.RandomResizedCrop` only the crop,
/// `T.Decode` whole). Two are equal when their files' bytes are.
#[derive(Debug, Clone)]
pub struct Encoded(pub EncodedImage);

impl PartialEq for Encoded {
    fn eq(&self, other: &Self) -> bool {
        self.0.bytes() == other.0.bytes()
    }
}

/// What collating a frame still in its file says: where to decode it.
pub(crate) const DECODE_FIRST: &str = "an encoded frame (files.Images(...).encoded()): decode it in the sample stage, with adl.transforms.RandomResizedCrop (only the crop) or adl.transforms.Decode (whole)";

/// A sample or a batch: an array, or named values in order (a dict); in a
/// sample, also a frame still in its file.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An array (a Python number is a 0-d one).
    Array(AnyArray),
    /// A dict's items, in its order.
    Map(Vec<(Arc<str>, Value)>),
    /// A camera frame, read and not decoded.
    Encoded(Encoded),
}

impl Value {
    /// A short description of the value's kind, for messages.
    pub fn kind(&self) -> String {
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
    pub fn take(&mut self, key: &str) -> Option<Value> {
        let Value::Map(items) = self else {
            return None;
        };
        let at = items.iter().position(|(k, _)| &**k == key)?;
        let placeholder = Value::Map(Vec::new());
        Some(std::mem::replace(&mut items[at].1, placeholder))
    }

    /// Put `value` back at `key` (where [`Value::take`] took it).
    pub fn put(&mut self, key: &str, value: Value) {
        if let Value::Map(items) = self
            && let Some(slot) = items.iter_mut().find(|(k, _)| &**k == key)
        {
            slot.1 = value;
        }
    }
}

impl Recycle for Value {
    fn recycle(self, recycler: &mut Recycler) {
        match self {
            Value::Array(array) => crate::each_array!(array, a => a.recycle(recycler)),
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
pub struct Path(Vec<Arc<str>>);

impl Path {
    /// The sample itself.
    pub fn root() -> Path {
        Path(Vec::new())
    }

    /// A path of `keys` split at `/` (`"camera"`, `"imu/acc"`), as an
    /// `adl.Pipeline` names the values its transforms take.
    pub fn parse(keys: &str) -> Option<Path> {
        let parts: Vec<Arc<str>> = keys.split('/').map(Arc::from).collect();
        parts.iter().all(|p| !p.is_empty()).then_some(Path(parts))
    }

    /// This path and then `key`.
    pub fn join(&self, key: &str) -> Path {
        let mut keys = self.0.clone();
        keys.push(Arc::from(key));
        Path(keys)
    }

    /// The keys from the top.
    pub fn keys(&self) -> &[Arc<str>] {
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

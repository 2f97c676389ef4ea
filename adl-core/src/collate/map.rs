use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use adl_exec::Buffers;

use super::{BatchBuilder, Collatable};
use crate::{Error, Record, Result};

fn key_mismatch(position: usize, key: &impl Debug) -> Error {
    Error::collate(
        position,
        format!("key {key:?} is not in sample 0; every sample must have the same keys"),
    )
}

fn size_mismatch(position: usize, got: usize, want: usize) -> Error {
    Error::collate(
        position,
        format!("{got} keys, but sample 0 has {want}; every sample must have the same keys"),
    )
}

/// The builder and the impls of one map type: collated key by key, every
/// sample with the same keys.
macro_rules! map_collatable {
    ($(#[$doc:meta])* $builder:ident, $map:ident, [$($key_bound:tt)*]) => {
        $(#[$doc])*
        pub struct $builder<K, V: Collatable> {
            values: $map<K, V::Builder>,
        }

        impl<K: $($key_bound)* + Debug, V: Collatable> BatchBuilder<$map<K, V>> for $builder<K, V> {
            type Batch = $map<K, V::Batch>;

            fn push(&mut self, item: $map<K, V>, position: usize) -> Result<()> {
                if item.len() != self.values.len() {
                    if let Some(extra) = item.keys().find(|k| !self.values.contains_key(*k)) {
                        return Err(key_mismatch(position, extra));
                    }
                    return Err(size_mismatch(position, item.len(), self.values.len()));
                }
                for (key, value) in item {
                    let Some(builder) = self.values.get_mut(&key) else {
                        return Err(key_mismatch(position, &key));
                    };
                    builder
                        .push(value, position)
                        .map_err(|e| e.within(format!("[{key:?}]")))?;
                }
                Ok(())
            }

            fn finish(self) -> Result<Self::Batch> {
                self.values
                    .into_iter()
                    .map(|(k, b)| {
                        let batch = b.finish().map_err(|e| e.within(format!("[{k:?}]")))?;
                        Ok((k, batch))
                    })
                    .collect()
            }
        }

        impl<K: $($key_bound)* + Clone + Debug, V: Collatable> Collatable for $map<K, V> {
            type Batch = $map<K, V::Batch>;
            type Builder = $builder<K, V>;

            fn builder(first: &Self, len: usize) -> Self::Builder {
                Self::builder_in(first, len, Buffers::none())
            }

            fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
                $builder {
                    values: first
                        .iter()
                        .map(|(k, v)| (k.clone(), V::builder_in(v, len, buffers)))
                        .collect(),
                }
            }
        }
    };
}

map_collatable!(
    /// Collates `HashMap`s with the same keys, key by key.
    HashMapBuilder, HashMap, [Eq + Hash]
);
map_collatable!(
    /// Collates `BTreeMap`s with the same keys, key by key.
    BTreeMapBuilder, BTreeMap, [Ord]
);

/// Collates [`Record`]s (synchronized trace samples) sensor by sensor.
pub struct RecordBuilder<T: Collatable> {
    names: Arc<[String]>,
    values: Vec<T::Builder>,
}

impl<T: Collatable> BatchBuilder<Record<T>> for RecordBuilder<T> {
    type Batch = Record<T::Batch>;

    fn push(&mut self, item: Record<T>, position: usize) -> Result<()> {
        if item.names() != &self.names[..] {
            return Err(Error::collate(
                position,
                format!(
                    "sensors [{}], but sample 0 has [{}]",
                    item.names().join(", "),
                    self.names.join(", ")
                ),
            ));
        }
        for ((name, builder), value) in self
            .names
            .iter()
            .zip(&mut self.values)
            .zip(item.into_values())
        {
            builder
                .push(value, position)
                .map_err(|e| e.within(format!(".{name}")))?;
        }
        Ok(())
    }

    fn finish(self) -> Result<Record<T::Batch>> {
        let values = self
            .names
            .iter()
            .zip(self.values)
            .map(|(name, b)| b.finish().map_err(|e| e.within(format!(".{name}"))))
            .collect::<Result<Vec<_>>>()?;
        Ok(Record::from_parts(self.names, values))
    }
}

impl<T: Collatable> Collatable for Record<T> {
    type Batch = Record<T::Batch>;
    type Builder = RecordBuilder<T>;

    fn builder(first: &Self, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        RecordBuilder {
            names: first.shared_names(),
            values: first
                .values()
                .iter()
                .map(|v| T::builder_in(v, len, buffers))
                .collect(),
        }
    }
}

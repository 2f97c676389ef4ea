use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use crate::{Error, Record, Result};

/// A sample made of values under string keys, which parallel composition
/// ([`ParallelTransforms`](super::ParallelTransforms),
/// [`ParallelPipelines`](crate::pipeline::ParallelPipelines)) routes key by
/// key: [`Record<T>`], `HashMap<String, T>` and `BTreeMap<String, T>`.
///
/// The output of a parallel step is the same kind of container, holding
/// only the step's keys: a `Record` keeps the step's key order, the maps
/// their own.
pub trait Keyed: Sized {
    /// The value under each key.
    type Value;
    /// The same kind of container, holding values of type `U`.
    type Of<U>: Keyed<Value = U>;

    /// The values under `keys`, in that order; other keys are dropped. A
    /// key that the sample lacks (or a key asked for twice) is a
    /// [`MissingKey`].
    fn take(self, keys: &[String]) -> std::result::Result<Vec<Self::Value>, MissingKey>;

    /// A container with `values[i]` under `keys[i]`.
    fn assemble<U>(keys: &Arc<[String]>, values: Vec<U>) -> Self::Of<U>;
}

/// A key that a parallel step routes but the sample does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingKey {
    /// The key looked for.
    pub key: String,
    /// The keys the sample has.
    pub available: Vec<String>,
}

impl fmt::Display for MissingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the sample has no key `{}`; its keys are [{}]",
            self.key,
            self.available.join(", ")
        )
    }
}

impl std::error::Error for MissingKey {}

impl MissingKey {
    /// As the error of the sample (or batch) stage: an
    /// [`Error::Transform`] of the branch named by the key.
    pub(crate) fn into_transform_error(self) -> Error {
        Error::Transform {
            node: self.key.clone(),
            cause: Box::new(self),
        }
    }

    /// As the error of the collate stage: an [`Error::Collate`] at
    /// `["key"]` of sample `position`.
    pub(crate) fn into_collate_error(self, position: usize) -> Error {
        Error::collate(position, &self).within(format!("[{:?}]", self.key))
    }
}

fn missing<'a>(key: &str, available: impl Iterator<Item = &'a String>) -> MissingKey {
    MissingKey {
        key: key.to_owned(),
        available: available.cloned().collect(),
    }
}

impl<T> Keyed for Record<T> {
    type Value = T;
    type Of<U> = Record<U>;

    fn take(self, keys: &[String]) -> std::result::Result<Vec<T>, MissingKey> {
        let names = self.shared_names();
        let positions = keys
            .iter()
            .map(|k| {
                names
                    .iter()
                    .position(|n| n == k)
                    .ok_or_else(|| missing(k, names.iter()))
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let mut values: Vec<Option<T>> = self.into_values().into_iter().map(Some).collect();
        positions
            .into_iter()
            .zip(keys)
            .map(|(p, k)| values[p].take().ok_or_else(|| missing(k, names.iter())))
            .collect()
    }

    fn assemble<U>(keys: &Arc<[String]>, values: Vec<U>) -> Record<U> {
        Record::from_parts(keys.clone(), values)
    }
}

/// `Keyed` for a map type with `String` keys.
macro_rules! keyed_map {
    ($map:ident) => {
        impl<T> Keyed for $map<String, T> {
            type Value = T;
            type Of<U> = $map<String, U>;

            fn take(mut self, keys: &[String]) -> std::result::Result<Vec<T>, MissingKey> {
                let mut values = Vec::with_capacity(keys.len());
                for (i, k) in keys.iter().enumerate() {
                    match self.remove(k) {
                        Some(v) => values.push(v),
                        None => {
                            let mut available: Vec<String> =
                                keys[..i].iter().chain(self.keys()).cloned().collect();
                            available.sort();
                            available.dedup();
                            return Err(missing(k, available.iter()));
                        }
                    }
                }
                Ok(values)
            }

            fn assemble<U>(keys: &Arc<[String]>, values: Vec<U>) -> $map<String, U> {
                keys.iter().cloned().zip(values).collect()
            }
        }
    };
}

keyed_map!(HashMap);
keyed_map!(BTreeMap);

/// The collate stage's split of keyed samples: one column per key (in
/// `keys` order) of every sample's value; a sample without a key is an
/// [`Error::Collate`] at `["key"]` of its position.
pub(crate) fn key_columns<S: Keyed>(
    keys: &[String],
    samples: Vec<S>,
) -> Result<Vec<Vec<S::Value>>> {
    let mut columns: Vec<Vec<S::Value>> = (0..keys.len())
        .map(|_| Vec::with_capacity(samples.len()))
        .collect();
    for (position, sample) in samples.into_iter().enumerate() {
        let values = sample
            .take(keys)
            .map_err(|m| m.into_collate_error(position))?;
        for (column, v) in columns.iter_mut().zip(values) {
            column.push(v);
        }
    }
    Ok(columns)
}

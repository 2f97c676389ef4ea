//! [`DatasetMeta`]: a `"meta"` entry added to every sample.

use std::collections::{BTreeMap, HashMap};

use super::IterableDataset;
use crate::storage::Fetched;
use crate::{Dataset, Record, Result};

/// A sample with named entries that can take a `"meta"` entry:
/// `HashMap<String, V>`, `BTreeMap<String, V>` and [`Record<V>`], with
/// `meta: V`.
pub trait MetaSample<M> {
    /// The sample with `"meta"` set to `meta`, unless it has a `"meta"`
    /// entry of its own, which wins.
    fn insert_meta(self, meta: &M) -> Self;
}

impl<V: Clone, H: std::hash::BuildHasher> MetaSample<V> for HashMap<String, V, H> {
    fn insert_meta(mut self, meta: &V) -> Self {
        if !self.contains_key("meta") {
            self.insert("meta".to_owned(), meta.clone());
        }
        self
    }
}

impl<V: Clone> MetaSample<V> for BTreeMap<String, V> {
    fn insert_meta(mut self, meta: &V) -> Self {
        if !self.contains_key("meta") {
            self.insert("meta".to_owned(), meta.clone());
        }
        self
    }
}

/// `"meta"` comes first, as in the reference's `{"meta": meta, **sample}`,
/// also when the sample's own `"meta"` wins.
impl<V: Clone> MetaSample<V> for Record<V> {
    fn insert_meta(self, meta: &V) -> Self {
        // The sample's own "meta" wins, but, as in a Python dict update,
        // the key stays first.
        let own = self.names().iter().position(|n| n == "meta");
        let others: Vec<String> = self
            .names()
            .iter()
            .filter(|n| *n != "meta")
            .cloned()
            .collect();
        let mut values = self.into_values();
        let first = match own {
            Some(at) => values.remove(at),
            None => meta.clone(),
        };
        let names: Vec<String> = std::iter::once("meta".to_owned()).chain(others).collect();
        Record::from_parts(names.into(), std::iter::once(first).chain(values).collect())
    }
}

/// The reference's `DatasetMeta(dataset, meta)`: every sample with a
/// `"meta"` entry, `ds[i] = {"meta": meta, **dataset[i]}`, where a
/// sample's own `"meta"` entry wins. [`with_meta`](super::DatasetExt::with_meta).
///
/// Map-style over a map-style source, iterable over an iterable one.
///
/// Length: the source's, exact (or `None`).
///
/// ```
/// use std::collections::HashMap;
/// use adl::pipes::DatasetExt;
/// use adl::{Dataset, Result};
///
/// struct Frames;
/// impl Dataset for Frames {
///     type Sample = HashMap<String, String>;
///     fn len(&self) -> usize { 2 }
///     fn get(&self, i: usize) -> Result<Self::Sample> {
///         let mut sample = HashMap::from([("frame".to_owned(), i.to_string())]);
///         if i == 1 {
///             sample.insert("meta".to_owned(), "own".to_owned());
///         }
///         Ok(sample)
///     }
/// }
///
/// let ds = Frames.with_meta("flight-1".to_owned());
/// assert_eq!(ds.get(0)?["meta"], "flight-1");
/// assert_eq!(ds.get(1)?["meta"], "own");
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DatasetMeta<S, M> {
    source: S,
    meta: M,
}

impl<S, M> DatasetMeta<S, M> {
    /// `source`'s samples with `"meta"` set to `meta`.
    pub fn new(source: S, meta: M) -> Self {
        DatasetMeta { source, meta }
    }

    /// The metadata.
    pub fn meta(&self) -> &M {
        &self.meta
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: Dataset, M> Dataset for DatasetMeta<S, M>
where
    S::Sample: MetaSample<M>,
{
    type Sample = S::Sample;

    fn len(&self) -> usize {
        self.source.len()
    }

    fn get(&self, index: usize) -> Result<S::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<S::Sample> {
        Ok(self
            .source
            .get_fetched(index, fetched)?
            .insert_meta(&self.meta))
    }

    same_indices!();
}

impl<S: IterableDataset, M> IterableDataset for DatasetMeta<S, M>
where
    S::Item: MetaSample<M>,
{
    type Item = S::Item;
    type Iter<'a>
        = MetaIter<'a, S, M>
    where
        Self: 'a;

    fn iter(&self) -> MetaIter<'_, S, M> {
        MetaIter {
            inner: self.source.iter(),
            meta: &self.meta,
        }
    }

    fn len(&self) -> Option<usize> {
        self.source.len()
    }
}

/// The iterator of an iterable [`DatasetMeta`].
pub struct MetaIter<'a, S: IterableDataset + 'a, M> {
    inner: S::Iter<'a>,
    meta: &'a M,
}

impl<'a, S: IterableDataset + 'a, M> Iterator for MetaIter<'a, S, M>
where
    S::Item: MetaSample<M>,
{
    type Item = Result<S::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.inner.next()?.map(|s| s.insert_meta(self.meta)))
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        Some(self.inner.nth(n)?.map(|s| s.insert_meta(self.meta)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

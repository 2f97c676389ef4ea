use std::sync::Arc;

use super::Keyed;
use super::named::label;
use crate::{Result, Transform};
use adl_exec::{Context, Sequential};

/// Parallel composition by key: each key of a [`Keyed`] sample
/// ([`Record`](crate::Record), `HashMap<String, _>`, `BTreeMap<String, _>`)
/// goes through its own transform.
///
/// The output holds exactly the transforms' keys, as in the reference's
/// `generic.ParallelTransforms`: keys of the sample without a transform are
/// **dropped**, and a key with a transform but missing from the sample is an
/// [`Error::Transform`](crate::Error::Transform) naming the key (its source
/// is a [`MissingKey`](super::MissingKey)). An error of a branch is named by
/// its key (`key/step`).
///
/// All branches have one type `T`; to mix closures, box them
/// ([`BoxedTransform`](super::BoxedTransform)). For samples that are tuples,
/// a tuple of transforms is the typed parallel composition (see
/// [`Transform` for tuples](super#parallel-composition)).
///
/// ```
/// use std::collections::BTreeMap;
/// use adl::{Transform, transform::{ParallelTransforms, TransformExt}};
///
/// let t = ParallelTransforms::new()
///     .with("a", (|x: i64| x + 1).boxed())
///     .with("b", (|x: i64| x * 3).boxed());
/// let sample = BTreeMap::from([("a".to_string(), 1), ("b".to_string(), 2), ("z".to_string(), 0)]);
/// let out = t.apply(sample)?;
/// assert_eq!(out, BTreeMap::from([("a".to_string(), 2), ("b".to_string(), 6)]));
///
/// let err = t.apply(BTreeMap::from([("b".to_string(), 2)])).unwrap_err();
/// assert_eq!(format!("{err:#}"), "transform `a`: the sample has no key `a`; its keys are [b]");
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ParallelTransforms<T> {
    keys: Arc<[String]>,
    transforms: Vec<T>,
}

impl<T> Default for ParallelTransforms<T> {
    fn default() -> Self {
        ParallelTransforms {
            keys: Arc::new([]),
            transforms: Vec::new(),
        }
    }
}

impl<T> ParallelTransforms<T> {
    /// No branches yet; the output of an empty composition is empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add the branch `transform` for `key`. A key given twice keeps its
    /// first position and the last transform.
    pub fn with(mut self, key: impl Into<String>, transform: T) -> Self {
        let key = key.into();
        match self.keys.iter().position(|k| *k == key) {
            Some(at) => self.transforms[at] = transform,
            None => {
                let mut keys = self.keys.to_vec();
                keys.push(key);
                self.keys = keys.into();
                self.transforms.push(transform);
            }
        }
        self
    }

    /// The keys, in order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The transform of `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        let at = self.keys.iter().position(|k| k == key)?;
        self.transforms.get(at)
    }
}

impl<K: Into<String>, T> FromIterator<(K, T)> for ParallelTransforms<T> {
    /// Branches from `(key, transform)` pairs, as with [`with`](Self::with).
    fn from_iter<I: IntoIterator<Item = (K, T)>>(iter: I) -> Self {
        iter.into_iter()
            .fold(Self::new(), |acc, (k, t)| acc.with(k, t))
    }
}

impl<S, T> Transform<S> for ParallelTransforms<T>
where
    S: Keyed,
    T: Transform<S::Value>,
{
    type Output = S::Of<T::Output>;

    fn apply(&self, input: S) -> Result<Self::Output> {
        self.apply_in(&Sequential::new(), input)
    }

    fn apply_in(&self, cx: &dyn Context, input: S) -> Result<Self::Output> {
        let values = input
            .take(&self.keys)
            .map_err(|m| m.into_transform_error())?;
        let out = values
            .into_iter()
            .zip(&self.transforms)
            .zip(self.keys.iter())
            .map(|((v, t), k)| t.apply_in(cx, v).map_err(|e| label(e, k)))
            .collect::<Result<Vec<_>>>()?;
        Ok(S::assemble(&self.keys, out))
    }
}

use std::sync::Arc;

use super::filled;
use super::in_branch;
use crate::transform::{Keyed, label};
use crate::{Pipeline, Result};
use adl_exec::{Context, Sequential, join_each};

/// Parallel composition by key: each key of a [`Keyed`] sample
/// ([`Record`](crate::Record), `HashMap<String, _>`, `BTreeMap<String, _>`)
/// goes through its own pipeline, **with its own collate** (the reference's
/// `generic.ParallelPipelines`).
///
/// - `sample(d)` = `{k: p_k.sample(d[k])}`;
/// - `collate(samples)` = `{k: p_k.collate([s[k] for s in samples])}`;
/// - `batch(c)` = `{k: p_k.batch(c[k])}`.
///
/// Keys of a sample without a pipeline are **dropped**; a key with a
/// pipeline but missing from the sample is an error naming the key: an
/// [`Error::Transform`](crate::Error::Transform) in the sample and batch
/// stages (its source a [`MissingKey`](crate::transform::MissingKey)), an
/// [`Error::Collate`](crate::Error::Collate) at `["key"]` in the collate
/// stage. Errors of a branch are named by its key.
///
/// All branches have one type `P`; to mix pipelines, box them
/// ([`BoxedPipeline`](super::BoxedPipeline)). For tuple samples, a tuple of
/// pipelines is the typed parallel composition (see the
/// [module docs](super#parallel-composition)).
///
/// ```
/// use std::collections::BTreeMap;
/// use adl::pipeline::{BoxedPipeline, ParallelPipelines, Stages, run};
///
/// let times = |k: i64| -> BoxedPipeline<i64, i64, Vec<i64>, Vec<i64>> {
///     Box::new(Stages::new().with_sample(move |x: i64| x * k))
/// };
/// let p = ParallelPipelines::new().with("a", times(2)).with("b", times(10));
/// let raw = |a, b| BTreeMap::from([("a".to_string(), a), ("b".to_string(), b)]);
/// let out = run(&p, vec![raw(1, 2), raw(3, 4)])?;
/// assert_eq!(out["a"], vec![2, 6]);
/// assert_eq!(out["b"], vec![20, 40]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ParallelPipelines<P> {
    keys: Arc<[String]>,
    pipelines: Vec<P>,
}

impl<P> Default for ParallelPipelines<P> {
    fn default() -> Self {
        ParallelPipelines {
            keys: Arc::new([]),
            pipelines: Vec::new(),
        }
    }
}

impl<P> ParallelPipelines<P> {
    /// No branches yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add the branch `pipeline` for `key`. A key given twice keeps its
    /// first position and the last pipeline.
    pub fn with(mut self, key: impl Into<String>, pipeline: P) -> Self {
        let key = key.into();
        match self.keys.iter().position(|k| *k == key) {
            Some(at) => self.pipelines[at] = pipeline,
            None => {
                let mut keys = self.keys.to_vec();
                keys.push(key);
                self.keys = keys.into();
                self.pipelines.push(pipeline);
            }
        }
        self
    }

    /// The keys, in order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The pipeline of `key`.
    pub fn get(&self, key: &str) -> Option<&P> {
        let at = self.keys.iter().position(|k| k == key)?;
        self.pipelines.get(at)
    }
}

impl<K: Into<String>, P> FromIterator<(K, P)> for ParallelPipelines<P> {
    /// Branches from `(key, pipeline)` pairs, as with [`with`](Self::with).
    fn from_iter<I: IntoIterator<Item = (K, P)>>(iter: I) -> Self {
        iter.into_iter()
            .fold(Self::new(), |acc, (k, p)| acc.with(k, p))
    }
}

impl<S, P> Pipeline<S> for ParallelPipelines<P>
where
    S: Keyed,
    P: Pipeline<S::Value> + Sync,
    P::Collated: Send,
    P::Processed: Send,
    S::Of<P::Transformed>: Send,
{
    type Transformed = S::Of<P::Transformed>;
    type Collated = S::Of<P::Collated>;
    type Processed = S::Of<P::Processed>;

    fn sample(&self, raw: S) -> Result<Self::Transformed> {
        <Self as Pipeline<S>>::sample_in(self, &Sequential::new(), raw)
    }

    fn collate(&self, samples: Vec<Self::Transformed>) -> Result<Self::Collated> {
        <Self as Pipeline<S>>::collate_in(self, &Sequential::new(), samples)
    }

    fn batch(&self, collated: Self::Collated) -> Result<Self::Processed> {
        <Self as Pipeline<S>>::batch_in(self, &Sequential::new(), collated)
    }

    fn sample_in(&self, cx: &dyn Context, raw: S) -> Result<Self::Transformed> {
        let values = raw.take(&self.keys).map_err(|m| m.into_transform_error())?;
        let out = values
            .into_iter()
            .zip(&self.pipelines)
            .zip(self.keys.iter())
            .map(|((v, p), k)| p.sample_in(cx, v).map_err(|e| label(e, k)))
            .collect::<Result<Vec<_>>>()?;
        Ok(S::assemble(&self.keys, out))
    }

    fn collate_in(
        &self,
        cx: &dyn Context,
        samples: Vec<Self::Transformed>,
    ) -> Result<Self::Collated> {
        let columns = crate::transform::key_columns(&self.keys, samples)?;
        let out = self.each(
            cx,
            columns,
            |p, c| p.collate_in(cx, c),
            |e, k| in_branch(e, &format!("[{k:?}]"), k),
        )?;
        Ok(S::assemble(&self.keys, out))
    }

    fn batch_in(&self, cx: &dyn Context, collated: Self::Collated) -> Result<Self::Processed> {
        let values = collated
            .take(&self.keys)
            .map_err(|m| m.into_transform_error())?;
        let out = self.each(cx, values, |p, v| p.batch_in(cx, v), label)?;
        Ok(S::assemble(&self.keys, out))
    }
}

/// One branch's pipeline, its input until it runs, its output after.
type Slot<'a, P, I, O> = (&'a P, Option<I>, Option<Result<O>>);

impl<P: Sync> ParallelPipelines<P> {
    /// `run(pipeline, input)` for every branch at once (in `cx`), the
    /// outputs in key order; the first error by key order, named by `name`.
    fn each<I: Send, O: Send>(
        &self,
        cx: &dyn Context,
        inputs: Vec<I>,
        run: impl Fn(&P, I) -> Result<O> + Sync,
        name: impl Fn(crate::Error, &str) -> crate::Error,
    ) -> Result<Vec<O>> {
        let mut slots: Vec<Slot<'_, P, I, O>> = self
            .pipelines
            .iter()
            .zip(inputs)
            .map(|(p, i)| (p, Some(i), None))
            .collect();
        join_each(cx, &mut slots, |(p, input, out)| {
            *out = input.take().map(|i| run(p, i));
        });
        slots
            .into_iter()
            .zip(self.keys.iter())
            .map(|((_, _, out), k)| filled(out).map_err(|e| name(e, k)))
            .collect()
    }
}

compose_methods!(ParallelPipelines<P>);

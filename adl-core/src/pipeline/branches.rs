//! Parallel branches built by `pipeline!`: [`Branch`] lists, one typed
//! pipeline per field of a struct sample (split into nested pairs), and
//! [`KeyedBranches`], one pipeline per key of a keyed sample.
//!
//! Unlike [`ParallelPipelines`](crate::pipeline::ParallelPipelines) (one
//! pipeline type for every key), each branch keeps its own type, and its
//! errors are named by the branch: a transform error as `radar/...`, a
//! collate error at `.radar` (fields) or `["radar"]` (keys).

use std::sync::Arc;

use crate::pipeline::in_branch;
use crate::transform::{Keyed, label};
use crate::{Pipeline, Result};
use adl_exec::{Context, Sequential};

/// A list of named branch pipelines: `pipeline` for the first element of
/// a pair sample, `next` (another `Branch`, or [`NoBranch`]) for the rest.
///
/// As a [`Pipeline`] over nested pairs `(a, (b, ()))`, each element goes
/// through its own pipeline and is collated by its own collate; the
/// stages give nested pairs of the same shape.
///
/// ```
/// use adl::collate::DefaultCollate;
/// use adl::pipeline::{Branch, NoBranch};
/// use adl::pipeline::{Stages, run};
/// use ndarray::array;
///
/// let p = Branch::new("x", Stages::new().with_collate(DefaultCollate),
///     Branch::new("name", Stages::new().with_sample(|s: String| s.len()), NoBranch));
/// let (x, (lengths, ())) = run(&p, vec![(1.0f32, ("ab".to_string(), ())), (2.0, ("c".to_string(), ()))])?;
/// assert_eq!(x, array![1.0f32, 2.0]);
/// assert_eq!(lengths, vec![2, 1]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Branch<P, Next> {
    name: &'static str,
    pipeline: P,
    next: Next,
}

/// The end of a [`Branch`] list: the pipeline of `()`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NoBranch;

impl<P, Next> Branch<P, Next> {
    /// The branch `name` running `pipeline`, then the branches `next`.
    pub fn new(name: &'static str, pipeline: P, next: Next) -> Self {
        Branch {
            name,
            pipeline,
            next,
        }
    }

    /// The branch's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The branch's pipeline.
    pub fn pipeline(&self) -> &P {
        &self.pipeline
    }

    /// The branches after this one.
    pub fn next(&self) -> &Next {
        &self.next
    }
}

impl Pipeline<()> for NoBranch {
    type Transformed = ();
    type Collated = ();
    type Processed = ();

    fn sample(&self, _raw: ()) -> Result<()> {
        Ok(())
    }

    fn collate(&self, _samples: Vec<()>) -> Result<()> {
        Ok(())
    }

    fn batch(&self, _collated: ()) -> Result<()> {
        Ok(())
    }
}

impl<V, R, P, Next> Pipeline<(V, R)> for Branch<P, Next>
where
    P: Pipeline<V> + Sync,
    Next: Pipeline<R> + Sync,
    P::Transformed: Send,
    P::Collated: Send,
    P::Processed: Send,
    Next::Transformed: Send,
    Next::Collated: Send,
    Next::Processed: Send,
{
    type Transformed = (P::Transformed, Next::Transformed);
    type Collated = (P::Collated, Next::Collated);
    type Processed = (P::Processed, Next::Processed);

    fn sample(&self, raw: (V, R)) -> Result<Self::Transformed> {
        self.sample_in(&Sequential::new(), raw)
    }

    fn collate(&self, samples: Vec<Self::Transformed>) -> Result<Self::Collated> {
        <Self as Pipeline<(V, R)>>::collate_in(self, &Sequential::new(), samples)
    }

    fn batch(&self, collated: Self::Collated) -> Result<Self::Processed> {
        <Self as Pipeline<(V, R)>>::batch_in(self, &Sequential::new(), collated)
    }

    fn sample_in(&self, cx: &dyn Context, (value, rest): (V, R)) -> Result<Self::Transformed> {
        let value = self
            .pipeline
            .sample_in(cx, value)
            .map_err(|e| label(e, self.name))?;
        Ok((value, self.next.sample_in(cx, rest)?))
    }

    /// This branch's collate and the next branches' at once.
    fn collate_in(
        &self,
        cx: &dyn Context,
        samples: Vec<Self::Transformed>,
    ) -> Result<Self::Collated> {
        let (values, rest): (Vec<_>, Vec<_>) = samples.into_iter().unzip();
        let (value, rest) = cx.join(
            || self.pipeline.collate_in(cx, values),
            || self.next.collate_in(cx, rest),
        );
        let value = value.map_err(|e| in_branch(e, &format!(".{}", self.name), self.name))?;
        Ok((value, rest?))
    }

    /// This branch's batch stage and the next branches' at once.
    fn batch_in(&self, cx: &dyn Context, (value, rest): Self::Collated) -> Result<Self::Processed> {
        let (value, rest) = cx.join(
            || self.pipeline.batch_in(cx, value),
            || self.next.batch_in(cx, rest),
        );
        Ok((value.map_err(|e| label(e, self.name))?, rest?))
    }
}

/// Branches that all take `V` and give the same types `T` (sample), `C`
/// (collate) and `O` (batch): what [`KeyedBranches`] runs, one value per
/// branch, in order.
pub trait SameBranches<V, T, C, O>: BranchNames {
    /// `sample` of each branch on its value, in `cx`.
    fn sample_each(
        &self,
        cx: &dyn Context,
        values: &mut std::vec::IntoIter<V>,
        into: &mut Vec<T>,
    ) -> Result<()>;
    /// `collate` of each branch on its column, in `cx`: the branches at once.
    fn collate_each(
        &self,
        cx: &dyn Context,
        columns: &mut std::vec::IntoIter<Vec<T>>,
        into: &mut Vec<C>,
    ) -> Result<()>;
    /// `batch` of each branch on its batch, in `cx`: the branches at once.
    fn batch_each(
        &self,
        cx: &dyn Context,
        values: &mut std::vec::IntoIter<C>,
        into: &mut Vec<O>,
    ) -> Result<()>;
}

/// The names of a [`Branch`] list, in order.
pub trait BranchNames {
    /// Push the names of the branches onto `into`, in order.
    fn names(&self, into: &mut Vec<String>);
}

impl BranchNames for NoBranch {
    fn names(&self, _into: &mut Vec<String>) {}
}

impl<P, Next: BranchNames> BranchNames for Branch<P, Next> {
    fn names(&self, into: &mut Vec<String>) {
        into.push(self.name.to_owned());
        self.next.names(into);
    }
}

impl<V, T, C, O> SameBranches<V, T, C, O> for NoBranch {
    fn sample_each(
        &self,
        _cx: &dyn Context,
        _values: &mut std::vec::IntoIter<V>,
        _into: &mut Vec<T>,
    ) -> Result<()> {
        Ok(())
    }
    fn collate_each(
        &self,
        _cx: &dyn Context,
        _columns: &mut std::vec::IntoIter<Vec<T>>,
        _into: &mut Vec<C>,
    ) -> Result<()> {
        Ok(())
    }
    fn batch_each(
        &self,
        _cx: &dyn Context,
        _values: &mut std::vec::IntoIter<C>,
        _into: &mut Vec<O>,
    ) -> Result<()> {
        Ok(())
    }
}

/// Fewer values than branches: a caller of [`SameBranches`] broke its
/// contract (one value per branch, in order).
fn too_few(branch: &str) -> crate::Error {
    crate::Error::invalid(
        "keyed branches",
        format!("no value left for branch `{branch}`: give one value per branch, in order"),
    )
}

impl<V, P, Next> SameBranches<V, P::Transformed, P::Collated, P::Processed> for Branch<P, Next>
where
    P: Pipeline<V> + Sync,
    P::Transformed: Send,
    P::Collated: Send,
    P::Processed: Send,
    Next: SameBranches<V, P::Transformed, P::Collated, P::Processed> + Sync,
{
    fn sample_each(
        &self,
        cx: &dyn Context,
        values: &mut std::vec::IntoIter<V>,
        into: &mut Vec<P::Transformed>,
    ) -> Result<()> {
        let value = values.next().ok_or_else(|| too_few(self.name))?;
        into.push(
            self.pipeline
                .sample_in(cx, value)
                .map_err(|e| label(e, self.name))?,
        );
        self.next.sample_each(cx, values, into)
    }

    fn collate_each(
        &self,
        cx: &dyn Context,
        columns: &mut std::vec::IntoIter<Vec<P::Transformed>>,
        into: &mut Vec<P::Collated>,
    ) -> Result<()> {
        let column = columns.next().ok_or_else(|| too_few(self.name))?;
        let (batch, rest) = cx.join(
            || self.pipeline.collate_in(cx, column),
            || {
                let mut rest = Vec::new();
                self.next
                    .collate_each(cx, columns, &mut rest)
                    .map(|()| rest)
            },
        );
        into.push(batch.map_err(|e| in_branch(e, &format!("[{:?}]", self.name), self.name))?);
        into.extend(rest?);
        Ok(())
    }

    fn batch_each(
        &self,
        cx: &dyn Context,
        values: &mut std::vec::IntoIter<P::Collated>,
        into: &mut Vec<P::Processed>,
    ) -> Result<()> {
        let value = values.next().ok_or_else(|| too_few(self.name))?;
        let (batch, rest) = cx.join(
            || self.pipeline.batch_in(cx, value),
            || {
                let mut rest = Vec::new();
                self.next.batch_each(cx, values, &mut rest).map(|()| rest)
            },
        );
        into.push(batch.map_err(|e| label(e, self.name))?);
        into.extend(rest?);
        Ok(())
    }
}

/// Parallel composition by key over a [`Branch`] list: each key of a
/// [`Keyed`] sample (a [`Record`](crate::Record), a `HashMap` or
/// `BTreeMap` with `String` keys) goes through the branch of that name,
/// with its own collate. Keys without a branch are dropped; a branch whose
/// key the sample lacks is an error naming the key.
///
/// The branches may be pipelines of different types, but they give the
/// same types, since the stages give the same kind of container
/// ([`Keyed::Of`]).
///
/// ```
/// use std::collections::BTreeMap;
/// use adl::pipeline::{Branch, KeyedBranches, NoBranch};
/// use adl::pipeline::{Stages, run};
///
/// let p = KeyedBranches::new(Branch::new("a", Stages::new().with_sample(|x: i64| x * 2),
///     Branch::new("b", Stages::new().with_sample(|x: i64| x + 10), NoBranch)));
/// let raw = |a, b| BTreeMap::from([("a".to_string(), a), ("b".to_string(), b)]);
/// let out = run(&p, vec![raw(1, 2), raw(3, 4)])?;
/// assert_eq!(out["a"], vec![2, 6]);
/// assert_eq!(out["b"], vec![12, 14]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct KeyedBranches<L> {
    keys: Arc<[String]>,
    branches: L,
}

impl<P, Next: BranchNames> KeyedBranches<Branch<P, Next>> {
    /// One branch per key, in the order of the list.
    pub fn new(branches: Branch<P, Next>) -> Self {
        let mut keys = Vec::new();
        branches.names(&mut keys);
        KeyedBranches {
            keys: keys.into(),
            branches,
        }
    }
}

impl<L> KeyedBranches<L> {
    /// The keys, in order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The branches.
    pub fn branches(&self) -> &L {
        &self.branches
    }
}

impl<S, P, Next> Pipeline<S> for KeyedBranches<Branch<P, Next>>
where
    S: Keyed,
    Branch<P, Next>: SameBranches<S::Value, P::Transformed, P::Collated, P::Processed>,
    P: Pipeline<S::Value>,
    S::Of<P::Transformed>: Send,
{
    type Transformed = S::Of<P::Transformed>;
    type Collated = S::Of<P::Collated>;
    type Processed = S::Of<P::Processed>;

    fn sample(&self, raw: S) -> Result<Self::Transformed> {
        self.sample_in(&Sequential::new(), raw)
    }

    fn collate(&self, samples: Vec<Self::Transformed>) -> Result<Self::Collated> {
        <Self as Pipeline<S>>::collate_in(self, &Sequential::new(), samples)
    }

    fn batch(&self, collated: Self::Collated) -> Result<Self::Processed> {
        <Self as Pipeline<S>>::batch_in(self, &Sequential::new(), collated)
    }

    fn sample_in(&self, cx: &dyn Context, raw: S) -> Result<Self::Transformed> {
        let values = raw
            .take(&self.keys)
            .map_err(crate::transform::MissingKey::into_transform_error)?;
        let mut out = Vec::with_capacity(self.keys.len());
        self.branches
            .sample_each(cx, &mut values.into_iter(), &mut out)?;
        Ok(S::assemble(&self.keys, out))
    }

    fn collate_in(
        &self,
        cx: &dyn Context,
        samples: Vec<Self::Transformed>,
    ) -> Result<Self::Collated> {
        let columns = crate::transform::key_columns(&self.keys, samples)?;
        let mut out = Vec::with_capacity(self.keys.len());
        self.branches
            .collate_each(cx, &mut columns.into_iter(), &mut out)?;
        Ok(S::assemble(&self.keys, out))
    }

    fn batch_in(&self, cx: &dyn Context, collated: Self::Collated) -> Result<Self::Processed> {
        let values = collated
            .take(&self.keys)
            .map_err(crate::transform::MissingKey::into_transform_error)?;
        let mut out = Vec::with_capacity(self.keys.len());
        self.branches
            .batch_each(cx, &mut values.into_iter(), &mut out)?;
        Ok(S::assemble(&self.keys, out))
    }
}

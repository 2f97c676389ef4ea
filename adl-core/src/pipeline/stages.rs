use super::IdentityCollate;
use crate::transform::{Identity, Then};
use crate::{Collate, Pipeline, Result, Transform};
use adl_exec::Context;

/// A pipeline made of its three stages: a `sample` [`Transform`], one
/// [`Collate`], a `batch` transform (the reference's `abstract.Pipeline`).
///
/// Each stage defaults to the identity ([`Identity`], [`IdentityCollate`]:
/// the batch is the `Vec` of samples) and is set once with
/// [`with_sample`](Stages::with_sample), [`with_collate`](Stages::with_collate)
/// and [`with_batch`](Stages::with_batch). Transforms are added before the
/// sample stage with [`pre`](Stages::pre) and after the batch stage with
/// [`post`](Stages::post); several steps in one stage are a
/// [`then`](crate::transform::TransformExt::then) chain.
///
/// ```
/// use adl::{Pipeline, pipeline::{Stages, run}};
///
/// let p = Stages::new()
///     .with_sample(|x: i64| x + 1)
///     .with_batch(|v: Vec<i64>| v.into_iter().map(|x| x * 2).collect::<Vec<_>>())
///     .pre(|x: i64| x + 1)
///     .post(|v: Vec<i64>| v.iter().sum::<i64>());
/// assert_eq!(p.sample(1)?, 3);
/// assert_eq!(run(&p, vec![1, 2, 3])?, 2 * (3 + 4 + 5));
/// # Ok::<(), adl::Error>(())
/// ```
///
/// # Exactly one collate
///
/// A pipeline has exactly one collate, and nothing composes a second one
/// in sequence: [`with_collate`](Stages::with_collate) exists only while
/// the collate is still the default, `pre` and `post` take transforms, and
/// a [`Collate`] is not a transform.
///
/// ```compile_fail
/// use adl::{collate::DefaultCollate, pipeline::Stages};
///
/// // error: the collate stage is already set
/// let p = Stages::new().with_collate(DefaultCollate).with_collate(DefaultCollate);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stages<S = Identity, C = IdentityCollate, B = Identity> {
    sample: S,
    collate: C,
    batch: B,
}

impl Stages {
    /// The identity pipeline: samples unchanged, collated into a `Vec`,
    /// batch unchanged.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<S, C, B> Stages<S, C, B> {
    /// A pipeline of the three given stages.
    pub fn from_parts(sample: S, collate: C, batch: B) -> Self {
        Stages {
            sample,
            collate,
            batch,
        }
    }

    /// The three stages.
    pub fn into_parts(self) -> (S, C, B) {
        (self.sample, self.collate, self.batch)
    }

    /// The sample stage.
    pub fn sample_stage(&self) -> &S {
        &self.sample
    }

    /// The collate stage.
    pub fn collate_stage(&self) -> &C {
        &self.collate
    }

    /// The batch stage.
    pub fn batch_stage(&self) -> &B {
        &self.batch
    }

    /// Pre-composition: `transform`, then this pipeline's sample stage.
    pub fn pre<T>(self, transform: T) -> Stages<Then<T, S>, C, B> {
        Stages {
            sample: Then::new(transform, self.sample),
            collate: self.collate,
            batch: self.batch,
        }
    }

    /// Post-composition: this pipeline's batch stage, then `transform`.
    pub fn post<T>(self, transform: T) -> Stages<S, C, Then<B, T>> {
        Stages {
            sample: self.sample,
            collate: self.collate,
            batch: Then::new(self.batch, transform),
        }
    }
}

impl<C, B> Stages<Identity, C, B> {
    /// Set the sample stage (while it is the identity).
    pub fn with_sample<S>(self, sample: S) -> Stages<S, C, B> {
        Stages {
            sample,
            collate: self.collate,
            batch: self.batch,
        }
    }
}

impl<S, B> Stages<S, IdentityCollate, B> {
    /// Set the collate stage (while it is the default): a pipeline has
    /// exactly one collate.
    pub fn with_collate<C>(self, collate: C) -> Stages<S, C, B> {
        Stages {
            sample: self.sample,
            collate,
            batch: self.batch,
        }
    }
}

impl<S, C> Stages<S, C, Identity> {
    /// Set the batch stage (while it is the identity).
    pub fn with_batch<B>(self, batch: B) -> Stages<S, C, B> {
        Stages {
            sample: self.sample,
            collate: self.collate,
            batch,
        }
    }
}

impl<Raw, S, C, B> Pipeline<Raw> for Stages<S, C, B>
where
    S: Transform<Raw>,
    S::Output: Send,
    C: Collate<S::Output>,
    B: Transform<C::Batch>,
{
    type Transformed = S::Output;
    type Collated = C::Batch;
    type Processed = B::Output;

    fn sample(&self, raw: Raw) -> Result<S::Output> {
        self.sample.apply(raw)
    }

    fn collate(&self, samples: Vec<S::Output>) -> Result<C::Batch> {
        self.collate.collate(samples)
    }

    fn batch(&self, collated: C::Batch) -> Result<B::Output> {
        self.batch.apply(collated)
    }

    #[inline]
    fn sample_in(&self, cx: &dyn Context, raw: Raw) -> Result<S::Output> {
        self.sample.apply_in(cx, raw)
    }

    #[inline]
    fn sample_unchanged(&self, raws: Vec<Raw>) -> std::result::Result<Vec<S::Output>, Vec<Raw>> {
        self.sample.unchanged(raws)
    }

    #[inline]
    fn collate_in(&self, cx: &dyn Context, samples: Vec<S::Output>) -> Result<C::Batch> {
        self.collate.collate_in(cx, samples)
    }

    #[inline]
    fn batch_in(&self, cx: &dyn Context, collated: C::Batch) -> Result<B::Output> {
        self.batch.apply_in(cx, collated)
    }
}

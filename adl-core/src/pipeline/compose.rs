use crate::{Pipeline, Result, Transform};
use adl_exec::Context;

/// Pre-composition of any pipeline with a transform: `transform`, then the
/// pipeline's sample stage; collate and batch unchanged.
///
/// [`Stages`](super::Stages) has its own [`pre`](super::Stages::pre), which
/// folds the transform into its sample stage; `Pre` is for every other
/// pipeline (also through their `pre` methods).
///
/// ```
/// use adl::{Pipeline, pipeline::{Pre, SequencePipeline, Stages}};
///
/// let p = Pre::new(|n: usize| vec![1i64; n], SequencePipeline::new(Stages::new()));
/// assert_eq!(p.sample(3)?, vec![1, 1, 1]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pre<T, P> {
    transform: T,
    pipeline: P,
}

impl<T, P> Pre<T, P> {
    /// `transform`, then `pipeline`.
    pub fn new(transform: T, pipeline: P) -> Self {
        Pre {
            transform,
            pipeline,
        }
    }

    /// The transform and the pipeline.
    pub fn into_parts(self) -> (T, P) {
        (self.transform, self.pipeline)
    }
}

impl<Raw, T, P> Pipeline<Raw> for Pre<T, P>
where
    T: Transform<Raw>,
    P: Pipeline<T::Output>,
{
    type Transformed = P::Transformed;
    type Collated = P::Collated;
    type Processed = P::Processed;

    fn sample(&self, raw: Raw) -> Result<P::Transformed> {
        self.pipeline.sample(self.transform.apply(raw)?)
    }

    fn collate(&self, samples: Vec<P::Transformed>) -> Result<P::Collated> {
        self.pipeline.collate(samples)
    }

    fn batch(&self, collated: P::Collated) -> Result<P::Processed> {
        self.pipeline.batch(collated)
    }

    fn sample_in(&self, cx: &dyn Context, raw: Raw) -> Result<P::Transformed> {
        self.pipeline
            .sample_in(cx, self.transform.apply_in(cx, raw)?)
    }

    fn collate_in(&self, cx: &dyn Context, samples: Vec<P::Transformed>) -> Result<P::Collated> {
        self.pipeline.collate_in(cx, samples)
    }

    fn batch_in(&self, cx: &dyn Context, collated: P::Collated) -> Result<P::Processed> {
        self.pipeline.batch_in(cx, collated)
    }
}

/// Post-composition of any pipeline with a transform: the pipeline's batch
/// stage, then `transform`; sample and collate unchanged.
///
/// [`Stages`](super::Stages) has its own [`post`](super::Stages::post);
/// `Post` is for every other pipeline (also through their `post` methods).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Post<P, T> {
    pipeline: P,
    transform: T,
}

impl<P, T> Post<P, T> {
    /// `pipeline`, then `transform` on its processed batches.
    pub fn new(pipeline: P, transform: T) -> Self {
        Post {
            pipeline,
            transform,
        }
    }

    /// The pipeline and the transform.
    pub fn into_parts(self) -> (P, T) {
        (self.pipeline, self.transform)
    }
}

impl<Raw, P, T> Pipeline<Raw> for Post<P, T>
where
    P: Pipeline<Raw>,
    T: Transform<P::Processed>,
{
    type Transformed = P::Transformed;
    type Collated = P::Collated;
    type Processed = T::Output;

    fn sample(&self, raw: Raw) -> Result<P::Transformed> {
        self.pipeline.sample(raw)
    }

    fn collate(&self, samples: Vec<P::Transformed>) -> Result<P::Collated> {
        self.pipeline.collate(samples)
    }

    fn batch(&self, collated: P::Collated) -> Result<T::Output> {
        self.transform.apply(self.pipeline.batch(collated)?)
    }

    fn sample_in(&self, cx: &dyn Context, raw: Raw) -> Result<P::Transformed> {
        self.pipeline.sample_in(cx, raw)
    }

    fn collate_in(&self, cx: &dyn Context, samples: Vec<P::Transformed>) -> Result<P::Collated> {
        self.pipeline.collate_in(cx, samples)
    }

    fn batch_in(&self, cx: &dyn Context, collated: P::Collated) -> Result<T::Output> {
        self.transform
            .apply_in(cx, self.pipeline.batch_in(cx, collated)?)
    }
}

compose_methods!(Pre<A, P>);
compose_methods!(Post<P, A>);

use std::sync::Arc;

use crate::{Pipeline, Result};
use adl_exec::Context;

/// A pipeline behind a box, so that pipelines of different types fit in
/// one [`ParallelPipelines`](super::ParallelPipelines): `Raw` → `T`
/// (sample) → `C` (collate) → `Out` (batch).
///
/// `Box<P>`, `Arc<P>` and `&P` are pipelines whenever `P` is, `dyn
/// Pipeline` included.
pub type BoxedPipeline<Raw, T, C, Out> =
    Box<dyn Pipeline<Raw, Transformed = T, Collated = C, Processed = Out> + Send + Sync>;

macro_rules! forward_pipeline {
    ($($ptr:ty),+) => {$(
        impl<Raw, P: Pipeline<Raw> + ?Sized> Pipeline<Raw> for $ptr {
            type Transformed = P::Transformed;
            type Collated = P::Collated;
            type Processed = P::Processed;

            fn sample(&self, raw: Raw) -> Result<P::Transformed> {
                (**self).sample(raw)
            }

            fn collate(&self, samples: Vec<P::Transformed>) -> Result<P::Collated> {
                (**self).collate(samples)
            }

            fn batch(&self, collated: P::Collated) -> Result<P::Processed> {
                (**self).batch(collated)
            }

            fn description(&self) -> Option<&crate::description::Description> {
                (**self).description()
            }

            fn sample_in(&self, cx: &dyn Context, raw: Raw) -> Result<P::Transformed> {
                (**self).sample_in(cx, raw)
            }

            fn sample_unchanged(&self, raws: Vec<Raw>) -> std::result::Result<Vec<P::Transformed>, Vec<Raw>> {
                (**self).sample_unchanged(raws)
            }

            fn collate_in(&self, cx: &dyn Context, samples: Vec<P::Transformed>) -> Result<P::Collated> {
                (**self).collate_in(cx, samples)
            }

            fn batch_in(&self, cx: &dyn Context, collated: P::Collated) -> Result<P::Processed> {
                (**self).batch_in(cx, collated)
            }
        }
    )+};
}

forward_pipeline!(Box<P>, Arc<P>, &P);

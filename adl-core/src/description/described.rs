//! [`Described`]: what `pipeline!` returns, a typed pipeline together with
//! the description of its graph.

use super::Description;
use crate::{Pipeline, Result};
use adl_exec::Context;

/// A pipeline with the static description of its graph: what `pipeline!`
/// expands to.
///
/// It runs as the typed pipeline it wraps (every [`Pipeline`] method
/// delegates, with no graph machinery in between), and
/// [`graph`](Described::graph) gives the [`Description`] (nodes, stages,
/// branches, types) that the planner in `adl-graph` turns into a graph,
/// checks again and draws.
///
/// ```
/// use adl::description::{Body, Described, Description};
/// use adl::pipeline::{Stages, run};
///
/// let p = Described::new(Stages::new().with_sample(|x: i64| x + 1), Description::default());
/// assert_eq!(run(&p, [1, 2])?, vec![2, 3]);
/// assert!(matches!(p.graph().body, Body::Stages { .. }));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Described<P> {
    pipeline: P,
    description: Description,
}

impl<P> Described<P> {
    /// `pipeline`, described by `description`.
    pub fn new(pipeline: P, description: Description) -> Self {
        Described {
            pipeline,
            description,
        }
    }

    /// The description of the pipeline's graph.
    pub fn graph(&self) -> &Description {
        &self.description
    }

    /// The typed pipeline.
    pub fn pipeline(&self) -> &P {
        &self.pipeline
    }

    /// The typed pipeline, without its description.
    pub fn into_pipeline(self) -> P {
        self.pipeline
    }

    /// The typed pipeline and its description.
    pub fn into_parts(self) -> (P, Description) {
        (self.pipeline, self.description)
    }
}

impl<Raw, P: Pipeline<Raw>> Pipeline<Raw> for Described<P> {
    type Transformed = P::Transformed;
    type Collated = P::Collated;
    type Processed = P::Processed;

    #[inline]
    fn sample(&self, raw: Raw) -> Result<P::Transformed> {
        self.pipeline.sample(raw)
    }

    #[inline]
    fn collate(&self, samples: Vec<P::Transformed>) -> Result<P::Collated> {
        self.pipeline.collate(samples)
    }

    #[inline]
    fn batch(&self, collated: P::Collated) -> Result<P::Processed> {
        self.pipeline.batch(collated)
    }

    fn description(&self) -> Option<&Description> {
        Some(&self.description)
    }

    #[inline]
    fn sample_in(&self, cx: &dyn Context, raw: Raw) -> Result<P::Transformed> {
        self.pipeline.sample_in(cx, raw)
    }

    #[inline]
    fn sample_unchanged(
        &self,
        raws: Vec<Raw>,
    ) -> std::result::Result<Vec<P::Transformed>, Vec<Raw>> {
        self.pipeline.sample_unchanged(raws)
    }

    #[inline]
    fn collate_in(&self, cx: &dyn Context, samples: Vec<P::Transformed>) -> Result<P::Collated> {
        self.pipeline.collate_in(cx, samples)
    }

    #[inline]
    fn batch_in(&self, cx: &dyn Context, collated: P::Collated) -> Result<P::Processed> {
        self.pipeline.batch_in(cx, collated)
    }
}

use crate::Result;
use adl_exec::Context;

/// A data-processing pipeline: `Raw → Transformed → Collated → Processed`.
///
/// Three stages, as in the specification:
/// - [`sample`](Pipeline::sample): per sample, on the CPU; built from one or
///   more sequentially composed [`Transform`](super::Transform)s.
/// - [`collate`](Pipeline::collate): samples → batch, on the CPU; exactly one
///   [`Collate`](super::Collate).
/// - [`batch`](Pipeline::batch): batch → batch, nominally on an accelerator;
///   built from one or more transforms.
///
/// # Composition rules
///
/// A pipeline never composes sequentially with another pipeline (there would
/// be two collates). It can be pre-composed and post-composed with
/// transforms, and pipelines compose in parallel, one per field of a sample.
///
/// # Execution contexts
///
/// Each stage has a twin that runs in an execution context
/// ([`sample_in`](Pipeline::sample_in), [`collate_in`](Pipeline::collate_in),
/// [`batch_in`](Pipeline::batch_in)); the engine's loader calls those. A
/// pipeline written by hand needs only the three plain methods; the
/// composite pipelines of adl implement the twins, passing the context to
/// their parts and running parallel branches at once.
pub trait Pipeline<Raw> {
    /// A sample after the `sample` stage. It is `Send`: the loader splits a
    /// batch's samples between its workers and collates them on one, so
    /// transformed samples cross threads. Declared here, the bound is one
    /// that every `P: Pipeline<Raw>` implies, and a pipeline returned as
    /// `impl Pipeline<Raw, Processed = ...>` needs no `Transformed: Send`
    /// spelled out to run in a loader.
    type Transformed: Send;
    /// A batch after `collate`.
    type Collated;
    /// A batch after the `batch` stage.
    type Processed;

    /// Transform one sample.
    fn sample(&self, raw: Raw) -> Result<Self::Transformed>;

    /// Collate transformed samples into a batch.
    fn collate(&self, samples: Vec<Self::Transformed>) -> Result<Self::Collated>;

    /// Transform a collated batch.
    fn batch(&self, collated: Self::Collated) -> Result<Self::Processed>;

    /// [`sample`](Pipeline::sample) in an execution context (see
    /// [`exec`](adl_exec)): nodes are observed by `cx`, and random nodes
    /// draw from it. The default ignores the context.
    #[inline]
    fn sample_in(&self, cx: &dyn Context, raw: Raw) -> Result<Self::Transformed> {
        let _ = cx;
        self.sample(raw)
    }

    /// The sample stage of `raws` where it leaves every sample as it is
    /// (a pipeline with no sample stage): `Ok` with them, and a loader
    /// then calls nothing per sample for it. The default: `Err(raws)`,
    /// handed back untouched, and the loader runs
    /// [`sample_in`](Pipeline::sample_in) on each.
    #[inline]
    fn sample_unchanged(
        &self,
        raws: Vec<Raw>,
    ) -> std::result::Result<Vec<Self::Transformed>, Vec<Raw>> {
        Err(raws)
    }

    /// [`collate`](Pipeline::collate) in an execution context: parallel
    /// branches may run at once. The default ignores the context.
    #[inline]
    fn collate_in(
        &self,
        cx: &dyn Context,
        samples: Vec<Self::Transformed>,
    ) -> Result<Self::Collated> {
        let _ = cx;
        self.collate(samples)
    }

    /// The description of the pipeline's graph, where it has one (a
    /// `pipeline!`'s [`Described`](crate::description::Described) does): the
    /// engine names nodes in statistics and fingerprints the pipeline by it.
    fn description(&self) -> Option<&crate::description::Description> {
        None
    }

    /// [`batch`](Pipeline::batch) in an execution context: parallel
    /// branches may run at once. The default ignores the context.
    #[inline]
    fn batch_in(&self, cx: &dyn Context, collated: Self::Collated) -> Result<Self::Processed> {
        let _ = cx;
        self.batch(collated)
    }
}

use crate::Result;

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
pub trait Pipeline<Raw> {
    /// A sample after the `sample` stage.
    type Transformed;
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
}

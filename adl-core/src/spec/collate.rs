use crate::Result;
use adl_exec::Context;

/// Aggregates a sequence of samples into one batch: the specification's
/// `Collate`, like the `collate_fn` of a PyTorch DataLoader.
///
/// # Composition rules
///
/// A collate **never composes sequentially**: samples are aggregated into a
/// batch exactly once on every path through a pipeline. It composes only in
/// parallel, by routing parts of a sample (fields, keys) to their own
/// collates. This trait has no `then`, and nothing in adl chains one collate
/// after another.
pub trait Collate<T> {
    /// The batch type.
    type Batch;

    /// Aggregate `samples` into one batch.
    fn collate(&self, samples: Vec<T>) -> Result<Self::Batch>;

    /// Aggregate `samples` in an execution context (see
    /// [`exec`](adl_exec)); the default calls
    /// [`collate`](Collate::collate).
    #[inline]
    fn collate_in(&self, cx: &dyn Context, samples: Vec<T>) -> Result<Self::Batch> {
        let _ = cx;
        self.collate(samples)
    }
}

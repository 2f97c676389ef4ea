use super::in_branch;
use crate::transform::label;
use crate::{Error, Pipeline, Result};
use adl_exec::{Context, Sequential};

/// A pipeline over sequences of samples (the reference's
/// `generic.SequencePipeline`): the inner pipeline applied at every step of
/// a sequence, with the batch transposed to time-major.
///
/// - `sample(seq)` = `[p.sample(x) for x in seq]`;
/// - `collate(batch)` transposes a batch of `n` sequences of length `L` into
///   `L` steps, each `p.collate` of the `n` samples at that step;
/// - `batch(steps)` = `[p.batch(c) for c in steps]`.
///
/// **Ragged sequences are an error**, not silently truncated to the
/// shortest as in the reference: a sequence whose length differs from the
/// first one's is an [`Error::Collate`] naming the sample and both lengths.
/// An empty batch collates to no steps. Errors at step `t` are named `[t]`.
///
/// ```
/// use adl::pipeline::{SequencePipeline, Stages, run};
///
/// let p = SequencePipeline::new(
///     Stages::new()
///         .with_sample(|x: i64| x * 2)
///         .with_batch(|v: Vec<i64>| v.into_iter().map(|x| x * 5).collect::<Vec<_>>()),
/// );
/// let out = run(&p, vec![vec![1, 4], vec![2, 5], vec![3, 6]])?;
/// assert_eq!(out, vec![vec![10, 20, 30], vec![40, 50, 60]]);
///
/// let err = run(&p, vec![vec![1, 2, 3], vec![4, 5]]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "collate: the value of sample 1: a sequence of length 2, but sample 0 has length 3; \
///      the sequences of a batch must all have the same length"
/// );
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SequencePipeline<P> {
    inner: P,
}

impl<P> SequencePipeline<P> {
    /// `inner` at every step of a sequence.
    pub fn new(inner: P) -> Self {
        SequencePipeline { inner }
    }

    /// The pipeline applied at each step.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// The pipeline applied at each step.
    pub fn into_inner(self) -> P {
        self.inner
    }
}

impl<Raw, P: Pipeline<Raw>> Pipeline<Vec<Raw>> for SequencePipeline<P> {
    type Transformed = Vec<P::Transformed>;
    type Collated = Vec<P::Collated>;
    type Processed = Vec<P::Processed>;

    fn sample(&self, raw: Vec<Raw>) -> Result<Self::Transformed> {
        self.sample_in(&Sequential::new(), raw)
    }

    fn collate(&self, samples: Vec<Self::Transformed>) -> Result<Self::Collated> {
        self.collate_in(&Sequential::new(), samples)
    }

    fn batch(&self, collated: Self::Collated) -> Result<Self::Processed> {
        self.batch_in(&Sequential::new(), collated)
    }

    fn sample_in(&self, cx: &dyn Context, raw: Vec<Raw>) -> Result<Self::Transformed> {
        raw.into_iter()
            .enumerate()
            .map(|(t, x)| {
                self.inner
                    .sample_in(cx, x)
                    .map_err(|e| label(e, &format!("[{t}]")))
            })
            .collect()
    }

    fn collate_in(
        &self,
        cx: &dyn Context,
        samples: Vec<Self::Transformed>,
    ) -> Result<Self::Collated> {
        let Some(steps) = samples.first().map(Vec::len) else {
            return Ok(Vec::new());
        };
        if let Some((position, s)) = samples.iter().enumerate().find(|(_, s)| s.len() != steps) {
            return Err(Error::collate(
                position,
                format!(
                    "a sequence of length {}, but sample 0 has length {steps}; \
                     the sequences of a batch must all have the same length",
                    s.len()
                ),
            ));
        }
        let mut columns: Vec<Vec<P::Transformed>> = (0..steps)
            .map(|_| Vec::with_capacity(samples.len()))
            .collect();
        for sample in samples {
            for (column, x) in columns.iter_mut().zip(sample) {
                column.push(x);
            }
        }
        columns
            .into_iter()
            .enumerate()
            .map(|(t, c)| {
                self.inner.collate_in(cx, c).map_err(|e| {
                    let at = format!("[{t}]");
                    in_branch(e, &at, &at)
                })
            })
            .collect()
    }

    fn batch_in(&self, cx: &dyn Context, collated: Self::Collated) -> Result<Self::Processed> {
        collated
            .into_iter()
            .enumerate()
            .map(|(t, c)| {
                self.inner
                    .batch_in(cx, c)
                    .map_err(|e| label(e, &format!("[{t}]")))
            })
            .collect()
    }
}

compose_methods!(SequencePipeline<P>);

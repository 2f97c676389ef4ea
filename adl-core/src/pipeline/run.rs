use crate::{Pipeline, Result};

/// Run `pipeline` on one batch of raw samples, as the specification's
/// tutorial does: `sample` on each, `collate` once, `batch` once.
///
/// Errors are those of the stages, unchanged.
///
/// ```
/// use adl_core::pipeline::{Stages, run};
///
/// let p = Stages::new().with_sample(|x: i64| x + 1);
/// assert_eq!(run(&p, [1, 2, 3])?, vec![2, 3, 4]);
/// # Ok::<(), adl_core::Error>(())
/// ```
pub fn run<Raw, P>(pipeline: &P, raws: impl IntoIterator<Item = Raw>) -> Result<P::Processed>
where
    P: Pipeline<Raw> + ?Sized,
{
    let samples = raws
        .into_iter()
        .map(|raw| pipeline.sample(raw))
        .collect::<Result<Vec<_>>>()?;
    pipeline.batch(pipeline.collate(samples)?)
}

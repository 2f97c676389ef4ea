use crate::{Pipeline, Result};
use adl_exec::Sequential;

/// Run `pipeline` on one batch of raw samples, as the specification's
/// tutorial does: `sample` on each, `collate` once, `batch` once.
///
/// Each sample runs in [`Sequential::new().at(i)`](Sequential::at), `i`
/// its position in `raws`, so random nodes draw a different generator per
/// sample. Errors are those of the stages, unchanged.
///
/// ```
/// use adl::pipeline::{Stages, run};
///
/// let p = Stages::new().with_sample(|x: i64| x + 1);
/// assert_eq!(run(&p, [1, 2, 3])?, vec![2, 3, 4]);
/// # Ok::<(), adl::Error>(())
/// ```
pub fn run<Raw, P>(pipeline: &P, raws: impl IntoIterator<Item = Raw>) -> Result<P::Processed>
where
    P: Pipeline<Raw> + ?Sized,
{
    let samples = raws
        .into_iter()
        .enumerate()
        .map(|(i, raw)| pipeline.sample_in(&Sequential::new().at(i), raw))
        .collect::<Result<Vec<_>>>()?;
    let cx = Sequential::new();
    pipeline.batch_in(&cx, pipeline.collate_in(&cx, samples)?)
}

use crate::{Result, Transform};

/// The transform that returns its input unchanged: the empty sequential
/// composition, and the default `sample` and `batch` stages of a
/// [`Stages`](crate::pipeline::Stages) pipeline.
///
/// ```
/// use adl::{Transform, transform::Identity};
///
/// assert_eq!(Identity.apply(vec![1, 2])?, vec![1, 2]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Identity;

impl<T> Transform<T> for Identity {
    type Output = T;

    fn apply(&self, input: T) -> Result<T> {
        Ok(input)
    }

    #[inline]
    fn unchanged(&self, inputs: Vec<T>) -> std::result::Result<Vec<T>, Vec<T>> {
        Ok(inputs)
    }
}

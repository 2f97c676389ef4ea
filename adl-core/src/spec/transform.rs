use crate::Result;
use adl_exec::Context;

/// A data transformation from `In` to [`Output`](Transform::Output): the
/// specification's `Transform`, for single samples or for batches.
///
/// # Composition rules
///
/// Transforms compose **sequentially** when the output type of one is the
/// input type of the next, and the result is again a transform. They also
/// compose in parallel, one transform per field of a sample. A transform may
/// fail; the error says which sample and which step.
///
/// Every `Fn(In) -> Out` closure or function is a transform.
///
/// ```
/// use adl::Transform;
///
/// let double = |x: i32| x * 2;
/// assert_eq!(double.apply(21)?, 42);
/// # Ok::<(), adl::Error>(())
/// ```
pub trait Transform<In> {
    /// What the transform produces.
    type Output;

    /// Apply the transform to one input.
    fn apply(&self, input: In) -> Result<Self::Output>;

    /// Apply the transform in an execution context (see
    /// [`exec`](adl_exec)): composite transforms pass `cx` to their
    /// parts, [`Tagged`](crate::pipeline::Tagged) nodes report to it. The
    /// default ignores the context and calls [`apply`](Transform::apply).
    #[inline]
    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<Self::Output> {
        let _ = cx;
        self.apply(input)
    }

    /// `inputs` as they are, where this transform leaves every input as
    /// it is ([`Identity`](crate::transform::Identity)): `Ok` with them,
    /// and a loader then calls nothing per sample for it. The default,
    /// for every transform that does work: `Err(inputs)`, handed back
    /// untouched.
    ///
    /// ```
    /// use adl::{Transform, transform::Identity};
    ///
    /// assert_eq!(Identity.unchanged(vec![1, 2]), Ok(vec![1, 2]));
    /// assert_eq!((|x: i32| x + 1).unchanged(vec![1, 2]), Err(vec![1, 2]));
    /// ```
    #[inline]
    fn unchanged(&self, inputs: Vec<In>) -> std::result::Result<Vec<Self::Output>, Vec<In>> {
        Err(inputs)
    }
}

impl<In, Out, F: Fn(In) -> Out> Transform<In> for F {
    type Output = Out;
    fn apply(&self, input: In) -> Result<Out> {
        Ok(self(input))
    }
}

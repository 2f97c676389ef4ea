use crate::Result;

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
/// use adl_core::Transform;
///
/// let double = |x: i32| x * 2;
/// assert_eq!(double.apply(21)?, 42);
/// # Ok::<(), adl_core::Error>(())
/// ```
pub trait Transform<In> {
    /// What the transform produces.
    type Output;

    /// Apply the transform to one input.
    fn apply(&self, input: In) -> Result<Self::Output>;
}

impl<In, Out, F: Fn(In) -> Out> Transform<In> for F {
    type Output = Out;
    fn apply(&self, input: In) -> Result<Out> {
        Ok(self(input))
    }
}

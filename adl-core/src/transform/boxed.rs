use std::fmt;

use crate::{Result, Transform};
use adl_exec::Context;

/// A transform from `In` to `Out` behind a box: steps of different types
/// (closures, chains) in one collection, or a chain built at run time.
///
/// (A `Box<dyn Transform>` cannot itself be a transform: every `Fn` is
/// one already, and a box of a closure is an `Fn`.)
///
/// ```
/// use adl::{Transform, transform::{BoxedTransform, Identity, TransformExt}};
///
/// let steps = [2, 3, 4];
/// let chain = steps.iter().fold(BoxedTransform::<i64, i64>::new(Identity), |acc, &k| {
///     acc.then(move |x: i64| x * k).boxed()
/// });
/// assert_eq!(chain.apply(1)?, 24);
/// # Ok::<(), adl::Error>(())
/// ```
pub struct BoxedTransform<In, Out>(Box<dyn Transform<In, Output = Out> + Send + Sync>);

impl<In, Out> BoxedTransform<In, Out> {
    /// Box `transform`.
    pub fn new<T>(transform: T) -> Self
    where
        T: Transform<In, Output = Out> + Send + Sync + 'static,
    {
        BoxedTransform(Box::new(transform))
    }
}

impl<In, Out> Transform<In> for BoxedTransform<In, Out> {
    type Output = Out;

    fn apply(&self, input: In) -> Result<Out> {
        self.0.apply(input)
    }

    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<Out> {
        self.0.apply_in(cx, input)
    }

    fn unchanged(&self, inputs: Vec<In>) -> std::result::Result<Vec<Out>, Vec<In>> {
        self.0.unchanged(inputs)
    }
}

impl<In, Out> fmt::Debug for BoxedTransform<In, Out> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BoxedTransform")
    }
}

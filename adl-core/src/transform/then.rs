use super::{BoxedTransform, Named};
use crate::{Result, Transform};
use adl_exec::Context;

/// Sequential composition: `first`, then `second` on its output.
///
/// Built with [`TransformExt::then`] or [`Then::new`]. The result is again a
/// [`Transform`], so chains nest: `a.then(b).then(c)`. An error of either
/// step is returned as is; give steps a name with
/// [`named`](super::named) to see which one failed.
///
/// There is no `Then` of two [`Collate`](crate::Collate)s: `Then` is a
/// transform only when both steps are transforms, and a collate is not one
/// (it takes a `Vec` of samples, and is never composed sequentially).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Then<A, B> {
    first: A,
    second: B,
}

impl<A, B> Then<A, B> {
    /// `first`, then `second`. The same as `first.then(second)`; use this
    /// form where `first`'s input type cannot be inferred (e.g.
    /// [`Identity`](super::Identity), which takes any input).
    pub fn new(first: A, second: B) -> Self {
        Then { first, second }
    }

    /// The two steps, in order.
    pub fn into_parts(self) -> (A, B) {
        (self.first, self.second)
    }
}

impl<In, A, B> Transform<In> for Then<A, B>
where
    A: Transform<In>,
    B: Transform<A::Output>,
{
    type Output = B::Output;

    fn apply(&self, input: In) -> Result<B::Output> {
        self.second.apply(self.first.apply(input)?)
    }

    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<B::Output> {
        self.second.apply_in(cx, self.first.apply_in(cx, input)?)
    }
}

/// Methods on every [`Transform`]: sequential composition, a name for
/// errors, type erasure.
///
/// ```
/// use adl::{Transform, transform::TransformExt};
///
/// let t = (|x: i64| x + 1).then(|x: i64| x * 3).then(|x: i64| x - 2);
/// assert_eq!(t.apply(5)?, 16);
/// # Ok::<(), adl::Error>(())
/// ```
///
/// The trait is generic over the input type, so a transform that accepts
/// several input types (such as [`Identity`](super::Identity) or
/// [`ParallelTransforms`](super::ParallelTransforms)) needs its input named:
/// write [`Then::new(a, b)`](Then::new) or `TransformExt::<In>::then(a, b)`.
pub trait TransformExt<In>: Transform<In> + Sized {
    /// `self`, then `next` on its output.
    fn then<B>(self, next: B) -> Then<Self, B>
    where
        B: Transform<Self::Output>,
    {
        Then::new(self, next)
    }

    /// This step, named `name` in its errors (see [`named`](super::named)).
    fn named(self, name: impl Into<String>) -> Named<Self> {
        super::named(name, self)
    }

    /// This step behind a box, so that steps of different types fit in one
    /// collection (see [`BoxedTransform`]).
    fn boxed(self) -> BoxedTransform<In, Self::Output>
    where
        Self: Send + Sync + 'static,
    {
        BoxedTransform::new(self)
    }
}

impl<In, T: Transform<In>> TransformExt<In> for T {}

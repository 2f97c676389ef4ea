//! Compile-time type witnesses and checks that `pipeline!` emits where a
//! value flows without a node: into a parallel branch (a field or key of
//! the sample) and out of the collate.

use std::fmt;
use std::marker::PhantomData;

use crate::description::{Node, NodeInfo, Stage};
use crate::transform::Keyed;
use crate::{Collate, Transform};

/// The type `T` flowing at some point of a pipeline, as a node that gives
/// it (and takes it), so that `pipeline!` can check the next node with
/// [`assert_feeds`](crate::description::assert::assert_feeds) where no node stands before it:
/// the field of a parallel branch, the output of a collate. Never run.
pub struct Witness<T: ?Sized>(PhantomData<fn() -> PhantomData<T>>);

impl<T: ?Sized> Witness<T> {
    /// The witness of `T`.
    pub fn new() -> Self {
        Witness(PhantomData)
    }

    /// The witness of a part of `S`: `Witness::field(|s: &Frame| &s.radar)`
    /// is the witness of the type of the field `radar`.
    pub fn field<S: ?Sized>(_project: impl Fn(&S) -> &T) -> Self {
        Witness::new()
    }
}

impl<T> Witness<T> {
    /// The witness of what `node` gives.
    pub fn output_of<N: Node<Output = T> + ?Sized>(_node: &N) -> Self {
        Witness::new()
    }

    /// The witness of the pair `(T, R)`, the shape of the samples that
    /// parallel branches take and give (`(a, (b, ()))`).
    pub fn pair<R>(self, _rest: Witness<R>) -> Witness<(T, R)> {
        Witness::new()
    }

    /// The witness of what `transform` gives for a `T`.
    pub fn through<M: Transform<T>>(self, _transform: &M) -> Witness<M::Output> {
        Witness::new()
    }
}

impl<S: Keyed> Witness<S> {
    /// The witness of a keyed sample of the same kind as `S` holding
    /// values of type `U` (what keyed branches giving `U` give).
    pub fn keyed<U>(self, _value: Witness<U>) -> Witness<S::Of<U>> {
        Witness::new()
    }
}

impl<T: ?Sized> Default for Witness<T> {
    fn default() -> Self {
        Witness::new()
    }
}

impl<T: ?Sized> Clone for Witness<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Witness<T> {}

impl<T: ?Sized> fmt::Debug for Witness<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Witness<{}>", std::any::type_name::<T>())
    }
}

impl<T> Node for Witness<T> {
    type Input = T;
    type Output = T;

    fn info(&self) -> NodeInfo {
        NodeInfo::new(std::any::type_name::<T>(), Stage::Sample)
    }
}

/// The collate `collate` after the node `before`: its [`NodeInfo`]
/// (named `name`, typed from `before`'s output to the batch), and the
/// witness of the batch for the node after it. Fails to compile, at the
/// collate, where `collate` cannot collate what `before` gives.
pub fn collate_node<A, C>(
    name: &'static str,
    _before: &A,
    _collate: &C,
) -> (NodeInfo, Witness<C::Batch>)
where
    A: Node + ?Sized,
    A::Output: 'static,
    C: Collate<A::Output> + ?Sized,
    C::Batch: 'static,
{
    (
        NodeInfo::new(name, Stage::Collate).typed::<A::Output, C::Batch>(),
        Witness::new(),
    )
}

/// `before` gives what `next` takes, where `next` is a function (the split
/// of a parallel form into its branches, or `|_: Frame| ()` naming the
/// sample type): a mismatch is rustc's closure type mismatch at `next`,
/// naming both types.
pub fn assert_gives<A, F, O>(_before: &A, _next: &F)
where
    A: Node + ?Sized,
    F: Fn(A::Output) -> O,
{
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collate::DefaultCollate;

    #[test]
    fn witnesses_type_the_collate() {
        let w = Witness::field(|s: &(i64, String)| &s.0);
        let (info, _batch): (NodeInfo, Witness<ndarray::Array1<i64>>) =
            collate_node("default", &w, &DefaultCollate);
        assert_eq!(info.stage, Stage::Collate);
        assert_eq!(info.input.map(|t| t.short_name()), Some("i64".to_owned()));
        assert_gives(&w, &|x: i64| x + 1);
        assert_eq!(format!("{w:?}"), "Witness<i64>");
    }
}

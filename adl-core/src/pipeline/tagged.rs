use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};

use adl_rules::Device;

use crate::{Collate, Error, Result, Transform};
use adl_exec::{Context, NodeId, panic_message};

/// A node with its [`NodeId`] and name: what `pipeline!` wraps every node
/// in (transforms and collates alike), so that the context can observe it.
///
/// In a context ([`apply_in`](Transform::apply_in),
/// [`collate_in`](Collate::collate_in)) a tagged node
/// - is timed: [`Context::enter`] before, [`Context::leave`] after;
/// - turns a panic of the node into [`Error::Panic`] naming the node and the
///   sample index (the panic is caught, nothing is left half-done: the node's
///   input is gone, and the error says so);
/// - names an unnamed [`Error::Transform`] (a closure made
///   [`fallible`](crate::transform::fallible)) after itself.
///
/// Its plain [`apply`](Transform::apply) is the node's own, unchanged.
///
/// ```
/// use adl::{Error, Transform, exec::{NodeId, Sequential, Tagged}};
///
/// let node = Tagged::new(NodeId(0), "halve", |x: i64| {
///     assert!(x % 2 == 0, "odd input {x}");
///     x / 2
/// });
/// assert_eq!(node.apply_in(&Sequential::new(), 4)?, 2);
/// let err = node.apply_in(&Sequential::new().at(9), 3).unwrap_err();
/// assert!(matches!(&err, Error::Panic { node, index: Some(9), .. } if node == "halve"));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Tagged<T> {
    pub(crate) id: NodeId,
    pub(crate) name: Cow<'static, str>,
    pub(crate) inner: T,
}

impl<T> Tagged<T> {
    /// `inner` as node `id`, called `name`.
    pub fn new(id: NodeId, name: impl Into<Cow<'static, str>>, inner: T) -> Self {
        Tagged {
            id,
            name: name.into(),
            inner,
        }
    }

    /// The node's id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The node's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The node's name as a kernel launch carries it (a clone that costs
    /// nothing when the name is a literal, as `pipeline!` writes it).
    pub fn label(&self) -> Cow<'static, str> {
        self.name.clone()
    }

    /// The node itself.
    pub fn inner(&self) -> &T {
        &self.inner
    }

    /// Run `f` as this node in `cx`: timed, its panic caught, an unnamed
    /// transform error named.
    fn run<R>(&self, cx: &dyn Context, f: impl FnOnce() -> Result<R>) -> Result<R> {
        let entered = cx.enter(self.id);
        let out = catch_unwind(AssertUnwindSafe(f));
        cx.leave(self.id, entered);
        match out {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(Error::Transform { node, cause })) if node.is_empty() => Err(Error::Transform {
                node: self.name.to_string(),
                cause,
            }),
            Ok(Err(e)) => Err(e),
            Err(payload) => Err(Error::Panic {
                node: self.name.to_string(),
                index: cx.sample_index(),
                message: panic_message(payload.as_ref()),
            }),
        }
    }
}

/// The context of a tagged node's inside: `cx`, but every generator drawn
/// there is the node's own.
struct AtNode<'a> {
    cx: &'a dyn Context,
    node: NodeId,
}

impl Context for AtNode<'_> {
    fn join_dyn(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        self.cx.join_dyn(a, b)
    }
    fn enter(&self, node: NodeId) -> Option<std::time::Instant> {
        self.cx.enter(node)
    }
    fn leave(&self, node: NodeId, entered: Option<std::time::Instant>) {
        self.cx.leave(node, entered)
    }
    fn rng(&self, _node: NodeId) -> adl_exec::SampleRng {
        self.cx.rng(self.node)
    }
    fn node(&self) -> Option<NodeId> {
        Some(self.node)
    }
    fn sample_index(&self) -> Option<usize> {
        self.cx.sample_index()
    }
    fn services(&self) -> adl_exec::Services<'_> {
        self.cx.services()
    }
    fn fusion(&self) -> bool {
        self.cx.fusion()
    }
    fn ran(&self, group: &[NodeId], device: Device) {
        self.cx.ran(group, device)
    }
}

impl<In, T: Transform<In>> Transform<In> for Tagged<T> {
    type Output = T::Output;

    #[inline]
    fn apply(&self, input: In) -> Result<T::Output> {
        self.inner.apply(input)
    }

    #[inline]
    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<T::Output> {
        self.run(cx, || {
            let at = AtNode { cx, node: self.id };
            self.inner.apply_in(&at, input)
        })
    }
}

impl<S, C: Collate<S>> Collate<S> for Tagged<C> {
    type Batch = C::Batch;

    #[inline]
    fn collate(&self, samples: Vec<S>) -> Result<C::Batch> {
        self.inner.collate(samples)
    }

    fn collate_in(&self, cx: &dyn Context, samples: Vec<S>) -> Result<C::Batch> {
        self.run(cx, || self.inner.collate_in(cx, samples))
    }
}

/// Tagged nodes run the same in the sequential context as plainly.
/// A tagged block kernel is still one (the CPU loops of `adl-exec` run it).
// SAFETY: every call goes to the inner kernel, under its own contract.
unsafe impl<T: adl_exec::BlockKernel> adl_exec::BlockKernel for Tagged<T> {
    fn input(&self) -> adl_exec::ElementType {
        self.inner.input()
    }

    fn output(&self) -> adl_exec::ElementType {
        self.inner.output()
    }

    fn steps(&self) -> usize {
        self.inner.steps()
    }

    fn run_block(
        &self,
        input: &[u8],
        output: &mut [std::mem::MaybeUninit<u8>],
        block: adl_exec::BlockInfo,
    ) -> adl_exec::Result<()> {
        self.inner.run_block(input, output, block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adl_exec::Sequential;

    #[test]
    fn names_an_unnamed_transform_error() {
        let node = Tagged::new(
            NodeId(3),
            "parse",
            crate::transform::fallible(|s: &str| s.parse::<i32>()),
        );
        let err = node.apply_in(&Sequential::new(), "x").unwrap_err();
        assert!(matches!(&err, Error::Transform { node, .. } if node == "parse"));
        assert_eq!(node.apply("12").unwrap(), 12);
    }
}

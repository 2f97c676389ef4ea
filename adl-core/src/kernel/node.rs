//! [`KernelNode`]: a batch node with a kernel; [`run`], how it runs in a
//! context; [`Fused`], consecutive kernel nodes run as one device program.

use std::marker::PhantomData;

use super::blocked::{BlockKernel, run_blocked};
use super::data::{KernelInput, KernelOutput};
use super::element::Element;
use super::lanes::{FusedLanes, Lanewise};
use super::launch::Launch;
use crate::exec::Context;
use crate::transform::Then;
use crate::{Error, Result, Transform};

/// A batch node that runs as a kernel where its context has an
/// [`Accelerator`](super::Accelerator), and as its Rust body elsewhere. The
/// two must give the same bits.
///
/// `#[transform(batch, opencl = "...")]` implements it; so do the
/// [built-in kernels](super#built-in-kernels) and [`Fused`].
pub trait KernelNode {
    /// The element type it reads.
    type In: Element;
    /// The element type it writes.
    type Out: Element;

    /// Its kernels, in order.
    fn launches(&self) -> Vec<Launch>;

    /// Whether it can run on a batch of `shape` (say, as many channels as
    /// it has means): checked before the device runs it, with the error its
    /// Rust body would give.
    fn check(&self, shape: &[usize]) -> Result<()> {
        let _ = shape;
        Ok(())
    }

    /// Its work as [`BlockKernel`]s, for fused chains on the CPU: pushes
    /// them onto `into` and returns true, or returns false when it has no
    /// block form (the default; its Rust body then runs on the whole
    /// batch).
    fn block_kernels<'a>(&'a self, into: &mut Vec<&'a dyn BlockKernel>) -> bool {
        let _ = into;
        false
    }
}

/// Run kernel node `node` on `input` in `cx`: on the context's accelerator
/// when it has one (and it can run these launches), else `fallback` (the
/// node's Rust body). Kernel nodes call this from their
/// [`apply_in`](Transform::apply_in).
///
/// On the device, the time of the whole run is recorded on the first
/// launch's node; the others count a call.
pub fn run<N, In, Out>(
    node: &N,
    cx: &dyn Context,
    input: In,
    fallback: impl FnOnce(In) -> Result<Out>,
) -> Result<Out>
where
    N: KernelNode + ?Sized,
    In: KernelInput<Element = N::In>,
    Out: KernelOutput<Element = N::Out>,
{
    let shape = input.shape();
    let Some(accelerator) = cx.accelerator() else {
        return on_cpu(node, cx, input, &shape, fallback);
    };
    node.check(&shape)?;
    let launches = node.launches();
    let out = observed(cx, &launches, || {
        input
            .with_host(|host| Out::build(&shape, |output| accelerator.run(&launches, host, output)))
    });
    match out?? {
        Some(out) => {
            input.release();
            Ok(out)
        }
        None => on_cpu(node, cx, input, &shape, fallback),
    }
}

/// `node` on the CPU: a chain of kernels that all have a block form runs
/// fused, block by block (one read and one write of the batch); anything
/// else runs `fallback`, the Rust bodies.
fn on_cpu<N, In, Out>(
    node: &N,
    cx: &dyn Context,
    input: In,
    shape: &[usize],
    fallback: impl FnOnce(In) -> Result<Out>,
) -> Result<Out>
where
    N: KernelNode + ?Sized,
    In: KernelInput<Element = N::In>,
    Out: KernelOutput<Element = N::Out>,
{
    let mut kernels = Vec::new();
    // One node alone runs its Rust body (as fast, and often in place),
    // unless its input's rows still lie in their table.
    let blocked = node.block_kernels(&mut kernels);
    let steps: usize = kernels.iter().map(|k| k.steps()).sum();
    if !blocked || steps == 0 || (steps < 2 && !input.scattered()) {
        return fallback(input);
    }
    node.check(shape)?;
    let launches = node.launches();
    let out = observed(cx, &launches, || {
        input.with_host(|host| {
            Out::build(shape, |output| {
                run_blocked(&kernels, host, output)?;
                Ok(true)
            })
        })
    });
    match out?? {
        Some(out) => {
            input.release();
            Ok(out)
        }
        None => Err(Error::invalid("kernel", "the fused CPU run gave no batch")),
    }
}

/// Run `f`, a run of `launches`, as their nodes in `cx`: the time of the
/// whole run is recorded on the first launch's node, and the others count a
/// call.
fn observed<R>(cx: &dyn Context, launches: &[Launch], f: impl FnOnce() -> R) -> R {
    let first = launches.first().and_then(|l| l.id);
    let entered = first.and_then(|id| cx.enter(id));
    let out = f();
    if let Some(id) = first {
        cx.leave(id, entered);
    }
    for id in launches.iter().skip(1).filter_map(|l| l.id) {
        let _ = cx.enter(id);
        cx.leave(id, None);
    }
    out
}

/// Two kernel nodes run as one device program: on an accelerator, the
/// first's output never leaves the device (and where both are elementwise
/// they are fused into one kernel); on the CPU, the two Rust bodies in
/// order.
///
/// `pipeline!` links consecutive kernel nodes of a batch stage into
/// `Fused` (and other consecutive nodes into [`Then`]) by itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fused<A, B> {
    first: A,
    second: B,
}

impl<A, B> Fused<A, B> {
    /// `first`, then `second`, as one device program.
    pub fn new(first: A, second: B) -> Self {
        Fused { first, second }
    }

    /// The two nodes, in order.
    pub fn into_parts(self) -> (A, B) {
        (self.first, self.second)
    }

    /// The two nodes, by reference.
    pub(crate) fn parts(&self) -> (&A, &B) {
        (&self.first, &self.second)
    }
}

impl<A, B> KernelNode for Fused<A, B>
where
    A: KernelNode,
    B: KernelNode<In = A::Out>,
{
    type In = A::In;
    type Out = B::Out;

    fn launches(&self) -> Vec<Launch> {
        let mut launches = self.first.launches();
        launches.extend(self.second.launches());
        launches
    }

    fn check(&self, shape: &[usize]) -> Result<()> {
        self.first.check(shape)?;
        self.second.check(shape)
    }

    fn block_kernels<'a>(&'a self, into: &mut Vec<&'a dyn BlockKernel>) -> bool {
        self.first.block_kernels(into) && self.second.block_kernels(into)
    }
}

impl<In, A, B> Transform<In> for Fused<A, B>
where
    A: Transform<In> + KernelNode,
    B: Transform<A::Output> + KernelNode<In = A::Out>,
    In: KernelInput<Element = A::In>,
    B::Output: KernelOutput<Element = B::Out>,
{
    type Output = B::Output;

    fn apply(&self, input: In) -> Result<B::Output> {
        self.second.apply(self.first.apply(input)?)
    }

    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<B::Output> {
        run(self, cx, input, |input| {
            self.second.apply_in(cx, self.first.apply_in(cx, input)?)
        })
    }
}

/// Picks how `pipeline!` links two consecutive batch nodes: [`Fused`] when
/// both are kernel nodes whose element types meet, else [`Then`]. The
/// choice is made where the node types are known, by method resolution
/// (see [`LinkKernels`] and [`LinkOther`]).
#[doc(hidden)]
pub struct Link<A, B>(PhantomData<fn() -> (A, B)>);

impl<A, B> Link<A, B> {
    /// The link of `first` and `second` (only their types matter).
    #[doc(hidden)]
    pub fn of(_first: &A, _second: &B) -> Self {
        Link(PhantomData)
    }
}

// The three kinds of link are tried in this order by method resolution
// on `&&Link`: an impl for `&Link` is found first (by value), then one for
// `&&Link` (by reference), then one for `Link` (after a dereference).

/// Chosen for two [`Lanewise`] kernel nodes.
#[doc(hidden)]
pub trait LinkLanes {
    /// [`FuseLanes`].
    fn kind(&self) -> FuseLanes {
        FuseLanes
    }
}

impl<A: Lanewise, B: Lanewise<In = A::Out>> LinkLanes for &Link<A, B> {}

/// Chosen for two kernel nodes.
#[doc(hidden)]
pub trait LinkKernels {
    /// [`FuseThem`].
    fn kind(&self) -> FuseThem {
        FuseThem
    }
}

impl<A: KernelNode, B: KernelNode<In = A::Out>> LinkKernels for &&Link<A, B> {}

/// Chosen for any other pair.
#[doc(hidden)]
pub trait LinkOther {
    /// [`ChainThem`].
    fn kind(&self) -> ChainThem {
        ChainThem
    }
}

impl<A, B> LinkOther for Link<A, B> {}

/// Link as [`FusedLanes`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct FuseLanes;

impl FuseLanes {
    /// `FusedLanes::new(first, second)`.
    #[doc(hidden)]
    pub fn link<A, B>(self, first: A, second: B) -> FusedLanes<A, B> {
        FusedLanes::new(first, second)
    }
}

/// Link as [`Fused`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct FuseThem;

impl FuseThem {
    /// `Fused::new(first, second)`.
    #[doc(hidden)]
    pub fn link<A, B>(self, first: A, second: B) -> Fused<A, B> {
        Fused::new(first, second)
    }
}

/// Link as [`Then`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct ChainThem;

impl ChainThem {
    /// `Then::new(first, second)`.
    #[doc(hidden)]
    pub fn link<A, B>(self, first: A, second: B) -> Then<A, B> {
        Then::new(first, second)
    }
}

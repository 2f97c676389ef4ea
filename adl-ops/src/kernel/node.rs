//! [`KernelNode`]: a batch node with a kernel; [`run`], how it runs in a
//! context; [`Fused`], consecutive kernel nodes run as one device program.

use adl_exec::{BlockKernel, Element, run_blocked};
use adl_rules::fusion::{Fusion, Target, groups_into};
use std::cell::Cell;
use std::ops::Range;

use super::Launch;
use super::data::{KernelInput, KernelOutput};
use super::spare::Spare;
use adl_core::description::Device;
use adl_core::{Error, Result, Transform};
use adl_exec::{Context, NodeId};

/// One kernel node of a chain, as fusion sees it: its id in its pipeline
/// (where `pipeline!` tagged it) and how it combines with its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// The node's id, for the statistics of what ran.
    pub id: Option<NodeId>,
    /// How its kernel combines with its neighbours'.
    pub fusion: Fusion,
}

thread_local! {
    /// [`run`]'s spare lists, kept by each thread between batches.
    static MEMBERS: Cell<Vec<Member>> = const { Cell::new(Vec::new()) };
    static CLASSES: Cell<Vec<Fusion>> = const { Cell::new(Vec::new()) };
    static GROUPS: Cell<Vec<Range<usize>>> = const { Cell::new(Vec::new()) };
    static IDS: Cell<Vec<NodeId>> = const { Cell::new(Vec::new()) };
}

/// A batch node that runs as a kernel where its context has an
/// [`Accelerator`](super::Accelerator), and as its Rust body elsewhere. The
/// two must give the same bits.
///
/// `#[transform(batch, unsafe(opencl = "..."))]` implements it; so do the
/// [built-in kernels](super#built-in-kernels) and [`Fused`].
pub trait KernelNode {
    /// The element type it reads.
    type In: Element;
    /// The element type it writes.
    type Out: Element;

    /// Its kernels, in order.
    fn launches(&self) -> Vec<Launch>;

    /// Its nodes in order, as fusion sees them (one per launch): what the
    /// executor groups by [`groups`](adl_rules::fusion::groups) on every
    /// batch, so the default builds them from [`launches`](Self::launches)
    /// and the built-in kernels say it without building their sources.
    fn members(&self, into: &mut Vec<Member>) {
        into.extend(self.launches().iter().map(|l| Member {
            id: l.id,
            fusion: l.fusion(),
        }));
    }

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

/// Run kernel node `node` (one node, or a chain of them) on `input` in
/// `cx`: on the context's accelerator when it has one (and it can run
/// these launches), else on the CPU; kernel nodes call this from their
/// [`apply_in`](Transform::apply_in). Which of the chain's nodes run as one
/// is [`groups`](adl_rules::fusion::groups)'s to say, with the context's
/// [`fusion`](Context::fusion) setting; each group is reported to the
/// context ([`Context::ran`]) as it runs.
///
/// On the device, the time of the whole run is recorded on the first
/// node; the others count a call.
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
    let mut members = Spare::take(&MEMBERS);
    node.members(&mut members);
    let mut classes = Spare::take(&CLASSES);
    classes.extend(members.iter().map(|m| m.fusion));
    let services = cx.services();
    let Some(accelerator) = services.accelerator() else {
        return on_cpu(node, cx, input, &shape, &members, &classes, fallback);
    };
    let buffers = services.buffers();
    node.check(&shape)?;
    let launches = node.launches();
    let mut groups = Spare::take(&GROUPS);
    groups_into(&classes, Target::Device, cx.fusion(), &mut groups);
    let out = observed(cx, &members, || {
        input.with_host(|host| {
            Out::build(&shape, buffers, |output| {
                Ok(accelerator.run(&launches, &groups, host, output)?)
            })
        })
    });
    match out?? {
        Some(out) => {
            input.release(buffers);
            report(cx, &members, &groups, Device::OpenCl);
            Ok(out)
        }
        None => on_cpu(node, cx, input, &shape, &members, &classes, fallback),
    }
}

/// `node` on the CPU. A chain that [`groups`](adl_rules::fusion::groups) runs as one group of two or
/// more runs fused, block by block (one read and one write of the batch);
/// so does one node whose input's rows still lie in their table. Anything
/// else runs `fallback`, the Rust bodies: a lone node's own, or a chain's
/// nodes one after the other (each of which comes back here, so the
/// chain's tail group runs fused). The batch's memory comes from the
/// context's pool.
fn on_cpu<N, In, Out>(
    node: &N,
    cx: &dyn Context,
    input: In,
    shape: &[usize],
    members: &[Member],
    classes: &[Fusion],
    fallback: impl FnOnce(In) -> Result<Out>,
) -> Result<Out>
where
    N: KernelNode + ?Sized,
    In: KernelInput<Element = N::In>,
    Out: KernelOutput<Element = N::Out>,
{
    let mut groups = Spare::take(&GROUPS);
    groups_into(classes, Target::Cpu, cx.fusion(), &mut groups);
    let mut kernels = Vec::new();
    // One group for the whole chain, every node of it with a block form.
    let blocked = groups.len() == 1 && node.block_kernels(&mut kernels);
    let steps: usize = kernels.iter().map(|k| k.steps()).sum();
    // One node alone runs its Rust body (as fast, and often in place),
    // unless its input's rows still lie in their table.
    if !blocked || steps == 0 || (steps < 2 && !input.scattered()) {
        if let [one] = members {
            report(cx, std::slice::from_ref(one), &groups, Device::Cpu);
        }
        return fallback(input);
    }
    node.check(shape)?;
    let buffers = cx.buffers();
    let out = observed(cx, members, || {
        input.with_host(|host| {
            Out::build(shape, buffers, |output| {
                run_blocked(&kernels, host, output)?;
                Ok(true)
            })
        })
    });
    match out?? {
        Some(out) => {
            input.release(buffers);
            report(cx, members, &groups, Device::Cpu);
            Ok(out)
        }
        None => Err(Error::internal(
            "kernel::run",
            "the fused CPU run of a chain gave no batch",
        )),
    }
}

/// Tell `cx` that `members` ran on `device`, in `groups`. A lone node
/// without an id (a kernel node inside a [`Tagged`](adl_core::pipeline::Tagged)
/// one) is the node the context runs.
fn report(cx: &dyn Context, members: &[Member], groups: &[Range<usize>], device: Device) {
    let mut ids = Spare::take(&IDS);
    for group in groups {
        ids.clear();
        match &members[group.clone()] {
            [Member { id: None, .. }] => ids.extend(cx.node()),
            group => ids.extend(group.iter().filter_map(|m| m.id)),
        }
        if !ids.is_empty() {
            cx.ran(&ids, device);
        }
    }
}

/// Run `f`, a run of `members`, as their nodes in `cx`: the time of the
/// whole run is recorded on the first node, and the others count a call.
fn observed<R>(cx: &dyn Context, members: &[Member], f: impl FnOnce() -> R) -> R {
    let first = members.first().and_then(|m| m.id);
    let entered = first.and_then(|id| cx.enter(id));
    let out = f();
    if let Some(id) = first {
        cx.leave(id, entered);
    }
    for id in members.iter().skip(1).filter_map(|m| m.id) {
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
/// `Fused` (and other consecutive nodes into [`Then`](adl_core::transform::Then)) by itself.
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

    fn members(&self, into: &mut Vec<Member>) {
        self.first.members(into);
        self.second.members(into);
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

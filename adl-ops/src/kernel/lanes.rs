//! [`Lanewise`] kernels and [`FusedLanes`]: consecutive elementwise kernel
//! nodes compiled into one loop on the CPU, each element going through
//! every step in registers, as a C programmer would write it by hand.

use std::mem::MaybeUninit;

use adl_exec::{
    BlockInfo, BlockKernel, Element, ElementType, Lane, LanePair, ScatteredBlocks, lane_rows,
    not_whole_rows, rows_one_by_one, run_lane, same_len, typed, typed_mut,
};

use super::Launch;
use super::data::{KernelInput, KernelOutput};
use super::node::{Fused, KernelNode, Member, run};
use adl_core::{Result, Transform};
use adl_exec::Context;

/// A kernel node that is elementwise on the CPU: each output element comes
/// from the input element at the same place, through a [`Lane`] chosen
/// per block. Consecutive `Lanewise` nodes of a batch stage are linked into
/// [`FusedLanes`] (`pipeline!` does it by itself), one loop over the
/// block where three nodes would make three passes through the cache.
///
/// The built-in [`U8ToF32`](super::U8ToF32),
/// [`Normalize`](super::Normalize), [`Affine`](super::Affine) and
/// [`Clamp`](super::Clamp) are `Lanewise`.
pub trait Lanewise: KernelNode + BlockKernel {
    /// The per-element work with the block's constants.
    type Lane: Lane<In = Self::In, Out = Self::Out>;

    /// The lane for `block`, or `None` where this block is not done one
    /// element at a time with the same constants (a per-feature
    /// normalisation of `[batch, features]` rows, say): its
    /// [`run_block`](BlockKernel::run_block) then does it.
    fn lane(&self, block: BlockInfo) -> Option<Self::Lane>;

    /// Whether, in `block`, each row (the last axis, `block.last`
    /// elements) comes out reversed: `out[.., w]` is the lane of `in[..,
    /// last - 1 - w]` (a horizontal flip, say). The default is false.
    fn reverses(&self, block: BlockInfo) -> bool {
        let _ = block;
        false
    }
}

/// [`BlockKernel::run_rows`] for a [`Lanewise`] kernel: its lane looked up
/// once for the run and run over each block as it lies in its table (the
/// one ahead prefetched first), all in one loop compiled for the widest
/// vectors; without a lane, block by block.
///
/// On `Ok`, every byte of `output` is written: the lane's loop checks the
/// room and the rows (see [`lane_rows`]); without a lane,
/// `rows_one_by_one` keeps the kernel's own `run_block` contract.
pub(crate) fn lanewise_rows<K: Lanewise + ?Sized>(
    kernel: &K,
    blocks: ScatteredBlocks<'_>,
    output: &mut [MaybeUninit<u8>],
    block: BlockInfo,
) -> adl_exec::Result<()> {
    let Some(lane) = kernel.lane(block) else {
        return rows_one_by_one(kernel, blocks, output, block);
    };
    lane_rows(
        lane,
        blocks,
        output,
        kernel.reverses(block).then_some(block.last),
    )
}

/// Two [`Lanewise`] kernel nodes run as one: on an accelerator, as one
/// kernel; on the CPU, one loop in which
/// each element goes through both nodes' work in registers, where
/// `Fused` would write the first's output to memory and read it back.
///
/// `pipeline!` links consecutive `Lanewise` nodes of a batch stage into
/// `FusedLanes` by itself.
///
/// ```
/// use adl::Transform;
/// use adl::kernel::{FusedLanes, Normalize, U8ToF32};
/// use ndarray::array;
///
/// let both = FusedLanes::new(U8ToF32::divide(255.0), Normalize::per_channel([0.5], [0.25]));
/// let out = both.apply(array![[[0u8, 255]]])?;
/// assert_eq!(out, array![[[-2.0f32, 2.0]]]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FusedLanes<A, B> {
    /// The two nodes: their launches, checks and Rust bodies are
    /// [`Fused`]'s; only the CPU's blocks differ.
    fused: Fused<A, B>,
}

impl<A, B> FusedLanes<A, B> {
    /// `first`, then `second`, as one loop.
    pub fn new(first: A, second: B) -> Self {
        FusedLanes {
            fused: Fused::new(first, second),
        }
    }

    /// The two nodes, in order.
    pub fn into_parts(self) -> (A, B) {
        self.fused.into_parts()
    }

    /// The two nodes, by reference.
    fn parts(&self) -> (&A, &B) {
        self.fused.parts()
    }
}

impl<A, B> KernelNode for FusedLanes<A, B>
where
    A: Lanewise,
    B: Lanewise<In = A::Out>,
{
    type In = A::In;
    type Out = B::Out;

    fn launches(&self) -> Vec<Launch> {
        self.fused.launches()
    }

    fn members(&self, into: &mut Vec<Member>) {
        self.fused.members(into);
    }

    fn check(&self, shape: &[usize]) -> Result<()> {
        self.fused.check(shape)
    }

    fn block_kernels<'a>(&'a self, into: &mut Vec<&'a dyn BlockKernel>) -> bool {
        into.push(self);
        true
    }
}

// SAFETY: with a lane for the block, `run_lane` writes every output
// element (`same_len` checked the lengths, and reversed rows are checked
// to be whole rows, so none is left out); without, the first node's
// `run_block` initializes the whole scratch block and the second's the
// whole output (their own `BlockKernel` contracts). `run_rows` is
// `lanewise_rows`, which writes every byte of its output (see there).
unsafe impl<A, B> BlockKernel for FusedLanes<A, B>
where
    A: Lanewise,
    B: Lanewise<In = A::Out>,
{
    fn input(&self) -> ElementType {
        A::In::TYPE
    }

    fn output(&self) -> ElementType {
        B::Out::TYPE
    }

    fn steps(&self) -> usize {
        let (first, second) = self.parts();
        first.steps() + second.steps()
    }

    fn run_block(
        &self,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
        block: BlockInfo,
    ) -> adl_exec::Result<()> {
        if let Some(lane) = self.lane(block) {
            let (values, out) = same_len(typed::<A::In>(input)?, typed_mut::<B::Out>(output)?)?;
            let reversed = self.reverses(block).then_some(block.last);
            if let Some(last) = reversed
                && last > 1
                && !values.len().is_multiple_of(last)
            {
                // Rows reversed one by one must be whole rows, or the
                // tail would be left unwritten.
                return Err(not_whole_rows(values.len(), last));
            }
            run_lane(lane, values, out, reversed);
            return Ok(());
        }
        // One node after the other, through a scratch block.
        let size = A::Out::TYPE.size();
        let elements = input.len() / A::In::TYPE.size().max(1);
        // 8-byte words, aligned for any element type.
        let mut scratch = vec![0u64; (elements * size).div_ceil(8)];
        let (first, second) = self.parts();
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut scratch);
        first.run_block_into(input, &mut bytes[..elements * size], block)?;
        let between: &[u8] = bytemuck::cast_slice(&scratch);
        second.run_block(&between[..elements * size], output, block)
    }

    fn run_rows(
        &self,
        blocks: ScatteredBlocks<'_>,
        output: &mut [MaybeUninit<u8>],
        block: BlockInfo,
    ) -> adl_exec::Result<()> {
        lanewise_rows(self, blocks, output, block)
    }
}

impl<A, B> Lanewise for FusedLanes<A, B>
where
    A: Lanewise,
    B: Lanewise<In = A::Out>,
{
    type Lane = LanePair<A::Lane, B::Lane>;

    fn lane(&self, block: BlockInfo) -> Option<Self::Lane> {
        let (first, second) = self.parts();
        Some(LanePair::new(first.lane(block)?, second.lane(block)?))
    }

    /// Elementwise work and moves commute: the rows come out reversed
    /// when one of the two reverses them, not both.
    fn reverses(&self, block: BlockInfo) -> bool {
        let (first, second) = self.parts();
        first.reverses(block) != second.reverses(block)
    }
}

impl<In, A, B> Transform<In> for FusedLanes<A, B>
where
    A: Transform<In> + Lanewise,
    B: Transform<A::Output> + Lanewise<In = <A as KernelNode>::Out>,
    In: KernelInput<Element = <A as KernelNode>::In>,
    B::Output: KernelOutput<Element = <B as KernelNode>::Out>,
{
    type Output = B::Output;

    fn apply(&self, input: In) -> Result<B::Output> {
        self.fused.apply(input)
    }

    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<B::Output> {
        run(self, cx, input, |input| self.fused.apply_in(cx, input))
    }
}

//! [`BlockKernel`]: one kernel node's work on one block of a batch on the
//! CPU (one channel plane of one sample, or one sample's row), the unit
//! that fused chains compose.

use std::mem::MaybeUninit;

use super::element::ElementType;
use super::scattered::ScatteredBlocks;
use crate::Result;

/// Where a block lies in its batch, for a [`BlockKernel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    /// The channel (index along axis 1) of every element of the block,
    /// unless `channel_per_element`.
    pub channel: usize,
    /// Whether the block is one sample of a `[batch, features]` batch,
    /// whose element `k` is in channel `k`.
    pub channel_per_element: bool,
    /// The length of the rows of the last axis; the block is a whole
    /// number of them.
    pub last: usize,
    /// The flag of the block's sample (false where the batch has none).
    pub flag: bool,
}

/// One elementwise (or row-permuting) kernel node's work on one block of
/// the batch on the CPU: the same bits as its Rust body gives for those
/// elements.
///
/// # Safety
///
/// [`run_block`](BlockKernel::run_block) and
/// [`run_rows`](BlockKernel::run_rows) return `Ok` only after initializing
/// every byte of `output` with a value (never storing
/// `MaybeUninit::uninit()`): the fused run appends it to the batch without
/// zeroing the memory first, and the next step reads it.
pub unsafe trait BlockKernel: Sync {
    /// The element type read.
    fn input(&self) -> ElementType;
    /// The element type written.
    fn output(&self) -> ElementType;
    /// How many nodes' work it does (more than one for a
    /// `adl::kernel::FusedLanes`).
    fn steps(&self) -> usize {
        1
    }
    /// Write every one of the block's output elements (`output`, as
    /// uninitialized bytes) from its input elements (`input`, as bytes; as
    /// many elements).
    fn run_block(
        &self,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
        block: BlockInfo,
    ) -> Result<()>;

    /// Write the output blocks of `blocks`, one after another, into
    /// `output` (as uninitialized bytes, one output block per input block),
    /// every block with the same `block` info: a run of samples whose rows
    /// still lie in their table, one block each.
    ///
    /// The default calls [`run_block`](BlockKernel::run_block) on each,
    /// after asking for the one [`ScatteredBlocks::prefetch_ahead`] further
    /// on. An elementwise kernel does better by looking its constants up
    /// once for the run (`adl::kernel::Lanewise` kernels do): W1's
    /// 256-byte rows cost little more to transform than to read.
    fn run_rows(
        &self,
        blocks: ScatteredBlocks<'_>,
        output: &mut [MaybeUninit<u8>],
        block: BlockInfo,
    ) -> Result<()> {
        rows_one_by_one(self, blocks, output, block)
    }
}

/// [`BlockKernel::run_rows`]'s default: `kernel`'s
/// [`run_block`](BlockKernel::run_block) on each block of `blocks`, the
/// one ahead prefetched first. Every byte of `output` is written on `Ok`.
pub(crate) fn rows_one_by_one<K: BlockKernel + ?Sized>(
    kernel: &K,
    blocks: ScatteredBlocks<'_>,
    output: &mut [MaybeUninit<u8>],
    block: BlockInfo,
) -> Result<()> {
    let out_bytes = blocks.elements() * kernel.output().size();
    let outs = blocks.outputs(output, out_bytes)?;
    for (i, out) in outs.enumerate() {
        blocks.prefetch_ahead(i);
        kernel.run_block(blocks.block(i)?, out, block)?;
    }
    Ok(())
}

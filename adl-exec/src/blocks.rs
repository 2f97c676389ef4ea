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
/// [`run_rows`](BlockKernel::run_rows) write only values into `output`
/// (never `MaybeUninit::uninit()`, whatever they return), and return `Ok`
/// only after initializing every byte of it: the fused run appends it to
/// the batch without zeroing the memory first, and the next step reads it;
/// [`run_block_into`](BlockKernel::run_block_into) lends them initialized
/// bytes.
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

    /// [`run_block`](BlockKernel::run_block) into bytes already
    /// initialized (scratch memory, say; a slice of `Pod` values seen as
    /// bytes with `bytemuck::cast_slice_mut`): safe, since `run_block` only
    /// ever writes values. Not meant to be overridden.
    #[inline]
    fn run_block_into(&self, input: &[u8], output: &mut [u8], block: BlockInfo) -> Result<()> {
        let len = output.len();
        // SAFETY: `MaybeUninit<u8>` has the layout of `u8`. The view is
        // only lent to `run_block`, which writes values alone into it (the
        // trait's contract), so every byte is still initialized when the
        // borrow of `output` ends.
        let room = unsafe {
            std::slice::from_raw_parts_mut(output.as_mut_ptr().cast::<MaybeUninit<u8>>(), len)
        };
        self.run_block(input, room, block)
    }

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
pub fn rows_one_by_one<K: BlockKernel + ?Sized>(
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

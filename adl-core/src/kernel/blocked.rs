//! Fused kernels on the CPU: a chain of elementwise kernel nodes run block
//! by block (one channel plane of one sample at a time), so that the batch
//! is read once and written once, as the fused OpenCL kernel does, with the
//! steps in between in cache.

use super::data::HostBatch;
use super::element::{Element, ElementType};
use crate::{Error, Result};

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
pub trait BlockKernel: Sync {
    /// The element type read.
    fn input(&self) -> ElementType;
    /// The element type written.
    fn output(&self) -> ElementType;
    /// Write the block's output elements (`output`, as bytes) from its
    /// input elements (`input`, as bytes; as many elements).
    fn run_block(&self, input: &[u8], output: &mut [u8], block: BlockInfo) -> Result<()>;
}

/// How many elements of `T` `bytes` hold, if it can be viewed as them:
/// aligned, and a whole number of them.
fn check_view<T: Element>(bytes: &[u8]) -> Result<usize> {
    let size = std::mem::size_of::<T>();
    if bytes.as_ptr().align_offset(std::mem::align_of::<T>()) != 0
        || !bytes.len().is_multiple_of(size)
    {
        return Err(Error::invalid(
            "kernel block",
            format!(
                "{} bytes at a misaligned address for {}",
                bytes.len(),
                T::TYPE
            ),
        ));
    }
    Ok(bytes.len() / size)
}

/// `bytes` as elements of `T`, if they are aligned for it.
pub(crate) fn typed<T: Element>(bytes: &[u8]) -> Result<&[T]> {
    let len = check_view::<T>(bytes)?;
    // SAFETY: aligned and a whole number of elements (checked), and every
    // bit pattern is a value of an `Element` type.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len) })
}

/// `bytes` as writable elements of `T`, if they are aligned for it.
pub(crate) fn typed_mut<T: Element>(bytes: &mut [u8]) -> Result<&mut [T]> {
    let len = check_view::<T>(bytes)?;
    // SAFETY: as in `typed`; the slice is borrowed mutably once.
    Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), len) })
}

/// Run `kernels` in order over `input`, block by block, into `output`.
pub(crate) fn run_blocked(
    kernels: &[&dyn BlockKernel],
    input: HostBatch<'_>,
    output: &mut [u8],
) -> Result<()> {
    let shape = input.shape;
    let n: usize = shape.iter().product();
    if n == 0 || kernels.is_empty() {
        return Ok(());
    }
    let batch = shape.first().copied().unwrap_or(1).max(1);
    let (channels, block, per_element) = match shape.len() {
        0 | 1 => (1, n, false),
        2 => (1, shape[1], true),
        _ => (shape[1], shape[2..].iter().product::<usize>(), false),
    };
    let last = if shape.len() >= 2 {
        shape[shape.len() - 1]
    } else {
        1
    };
    let widest = kernels.iter().map(|k| k.output().size()).max().unwrap_or(1);
    // Two scratch blocks, 8-byte aligned for any element type.
    let words = (block * widest).div_ceil(8);
    let mut scratch = [vec![0u64; words], vec![0u64; words]];
    let in_size = kernels[0].input().size();
    let out_size = kernels[kernels.len() - 1].output().size();
    let blocks = n / block;
    for b in 0..blocks {
        let sample = if shape.len() <= 1 { 0 } else { b / channels };
        let info = BlockInfo {
            channel: if per_element { 0 } else { b % channels },
            channel_per_element: per_element,
            last,
            flag: input
                .flags
                .and_then(|f| f.get(sample.min(batch - 1)))
                .is_some_and(|&f| f != 0),
        };
        let source = &input.data[b * block * in_size..(b + 1) * block * in_size];
        let target = &mut output[b * block * out_size..(b + 1) * block * out_size];
        // Which scratch block holds the last step's output (and its bytes);
        // none before the first step, which reads the batch.
        let mut held: Option<(usize, usize)> = None;
        for (k, kernel) in kernels.iter().enumerate() {
            let (a, b) = scratch.split_at_mut(1);
            let (a, b) = (&mut a[0], &mut b[0]);
            let (from, spare, spare_index): (&[u8], &mut Vec<u64>, usize) = match held {
                None => (source, a, 0),
                Some((0, len)) => (&bytemuck_bytes_ref(a)[..len], b, 1),
                Some((_, len)) => (&bytemuck_bytes_ref(b)[..len], a, 0),
            };
            if k + 1 == kernels.len() {
                kernel.run_block(from, target, info)?;
            } else {
                let bytes = block * kernel.output().size();
                kernel.run_block(from, &mut bytemuck_bytes(spare)[..bytes], info)?;
                held = Some((spare_index, bytes));
            }
        }
    }
    Ok(())
}

fn bytemuck_bytes(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: u64 has no padding; any byte pattern is valid for it.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8) }
}

fn bytemuck_bytes_ref(words: &[u64]) -> &[u8] {
    // SAFETY: as above, read only.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) }
}

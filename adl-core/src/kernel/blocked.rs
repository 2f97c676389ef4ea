//! Fused kernels on the CPU: a chain of elementwise kernel nodes run block
//! by block (one channel plane of one sample at a time), so that the batch
//! is read once and written once, as the fused OpenCL kernel does, with the
//! steps in between in cache.

use std::mem::MaybeUninit;

use super::data::{HostBatch, HostData, Output};
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
    /// [`FusedLanes`](super::FusedLanes)).
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
    /// once for the run ([`Lanewise`](super::Lanewise) kernels do): W1's
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

/// A run of blocks that lie apart in their table, one per sample: the
/// samples' rows of a [`Rows`](crate::collate::Rows) batch, read where they
/// lie by [`BlockKernel::run_rows`].
///
/// ```
/// use adl::kernel::ScatteredBlocks;
///
/// // A table of three rows of two bytes; the batch reads rows 2, 0, 2.
/// let table = [10u8, 11, 20, 21, 30, 31];
/// let keys = [2, 0, 2];
/// let run = ScatteredBlocks::new(&table, &keys, 1..3, 2, 2)?;
/// assert_eq!(run.len(), 2);
/// assert_eq!(run.block(0)?, &[10, 11]);
/// assert_eq!(run.block(1)?, &[30, 31]);
/// assert!(run.block(2).is_err());
/// // A run past the batch's keys, a key past the table: errors.
/// assert!(ScatteredBlocks::new(&table, &keys, 2..4, 2, 2).is_err());
/// assert!(ScatteredBlocks::new(&table, &[3], 0..1, 2, 2)?.block(0).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct ScatteredBlocks<'a> {
    /// The table's bytes, row-major.
    table: &'a [u8],
    /// The rows of the whole batch, in batch order (the run and the rows
    /// after it, to prefetch).
    keys: &'a [usize],
    /// The run: its first position in `keys`.
    start: usize,
    /// Its blocks.
    len: usize,
    /// Bytes per block (per row of the table).
    bytes: usize,
    /// Elements per block.
    elements: usize,
    /// How many blocks ahead to prefetch.
    ahead: usize,
}

impl std::fmt::Debug for ScatteredBlocks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScatteredBlocks")
            .field("table_bytes", &self.table.len())
            .field("run", &(self.start..self.start + self.len))
            .field("of_keys", &self.keys.len())
            .field("bytes", &self.bytes)
            .field("elements", &self.elements)
            .field("ahead", &self.ahead)
            .finish()
    }
}

impl<'a> ScatteredBlocks<'a> {
    /// The rows `keys[run]` of `table` (row `k` is the bytes `k * bytes ..
    /// (k + 1) * bytes`), each one block of `elements` elements; nothing
    /// prefetched (see [`prefetching`](ScatteredBlocks::prefetching)). An
    /// error if `run` is not a range of `keys`' positions; a key outside
    /// the table is an error when its block is read.
    pub fn new(
        table: &'a [u8],
        keys: &'a [usize],
        run: std::ops::Range<usize>,
        bytes: usize,
        elements: usize,
    ) -> Result<Self> {
        if run.start > run.end || run.end > keys.len() {
            return Err(Error::invalid(
                "kernel block",
                format!(
                    "a run {}..{} of a batch of {} rows",
                    run.start,
                    run.end,
                    keys.len()
                ),
            ));
        }
        Ok(ScatteredBlocks {
            table,
            keys,
            start: run.start,
            len: run.len(),
            bytes,
            elements,
            ahead: 0,
        })
    }

    /// The same run, the block `ahead` blocks on (within the batch, past
    /// the run too) prefetched before each is read (0: none).
    pub fn prefetching(self, ahead: usize) -> Self {
        ScatteredBlocks { ahead, ..self }
    }

    /// How many blocks the run has.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the run has no blocks.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Elements per block.
    pub fn elements(&self) -> usize {
        self.elements
    }

    /// The bytes of a block by its row key, if it lies in the table.
    #[inline]
    fn find(&self, key: usize) -> Option<&'a [u8]> {
        let start = key.checked_mul(self.bytes)?;
        self.table.get(start..start.checked_add(self.bytes)?)
    }

    /// The bytes of block `i` of the run.
    #[inline]
    pub fn block(&self, i: usize) -> Result<&'a [u8]> {
        // `i` checked first, so that `start + i` lies within the keys.
        let key = match (i < self.len).then(|| self.keys.get(self.start + i)) {
            Some(Some(&key)) => key,
            _ => return Err(Error::out_of_range("kernel block", i, self.len())),
        };
        self.find(key).ok_or_else(|| {
            Error::out_of_range(
                "kernel input row",
                key,
                self.table.len().checked_div(self.bytes).unwrap_or(0),
            )
        })
    }

    /// `output` cut into one output block of `out_bytes` bytes per block
    /// of the run (an error unless it is exactly that long).
    pub(crate) fn outputs<'o, T>(
        &self,
        output: &'o mut [T],
        out_bytes: usize,
    ) -> Result<std::slice::ChunksExactMut<'o, T>> {
        if output.len() != self.len() * out_bytes || out_bytes == 0 && !self.is_empty() {
            return Err(Error::internal(
                "kernel::blocked",
                format!(
                    "kernel block: {} bytes of room for {} blocks of {out_bytes} bytes",
                    output.len(),
                    self.len()
                ),
            ));
        }
        Ok(output.chunks_exact_mut(out_bytes.max(1)))
    }

    /// Ask the CPU to start fetching the block some way after block `i`
    /// (past the run too, within the batch): call it before reading block
    /// `i`. The rows lie apart, so the CPU cannot guess the next ones.
    #[inline]
    pub fn prefetch_ahead(&self, i: usize) {
        if self.ahead == 0 {
            return;
        }
        if let Some(bytes) = self
            .start
            .checked_add(i)
            .and_then(|at| at.checked_add(self.ahead))
            .and_then(|at| self.keys.get(at))
            .and_then(|&key| self.find(key))
        {
            crate::exec::prefetch(bytes);
        }
    }
}

/// How many elements of `T` the `len` bytes at `ptr` hold, if they can
/// be viewed as them: aligned, and a whole number of them.
fn elements<T: Element>(ptr: *const u8, len: usize) -> Result<usize> {
    let size = std::mem::size_of::<T>();
    if ptr.align_offset(std::mem::align_of::<T>()) != 0 || !len.is_multiple_of(size) {
        return Err(Error::internal(
            "kernel::blocked",
            format!(
                "kernel block: {len} bytes at a misaligned address for {}",
                T::TYPE
            ),
        ));
    }
    Ok(len / size)
}

/// `bytes` as elements of `T`, if they are aligned for it.
pub(crate) fn typed<T: Element>(bytes: &[u8]) -> Result<&[T]> {
    let len = elements::<T>(bytes.as_ptr(), bytes.len())?;
    // SAFETY: aligned and a whole number of elements (checked), and every
    // bit pattern is a value of an `Element` type.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len) })
}

/// `bytes` as room for elements of `T`, if they are aligned for it.
pub(crate) fn typed_mut<T: Element>(
    bytes: &mut [MaybeUninit<u8>],
) -> Result<&mut [MaybeUninit<T>]> {
    let len = elements::<T>(bytes.as_ptr().cast(), bytes.len())?;
    // SAFETY: aligned and a whole number of elements (checked); the slice
    // is borrowed mutably once, and nothing is read from it.
    Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<MaybeUninit<T>>(), len) })
}

/// `input` and `output`, if they have as many elements (a block kernel
/// writes one output element per input element).
pub(crate) fn same_len<'i, 'o, A, B>(
    input: &'i [A],
    output: &'o mut [MaybeUninit<B>],
) -> Result<(&'i [A], &'o mut [MaybeUninit<B>])> {
    if input.len() == output.len() {
        Ok((input, output))
    } else {
        Err(Error::internal(
            "kernel::blocked",
            format!(
                "kernel block: {} input elements for {} output elements",
                input.len(),
                output.len()
            ),
        ))
    }
}

/// Run `kernels` in order over `input`, block by block, into `output`.
pub(crate) fn run_blocked(
    kernels: &[&dyn BlockKernel],
    input: HostBatch<'_>,
    output: &mut Output<'_>,
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
    // A block lies inside one sample where the batch has two axes or more;
    // a batch of scalars in rows of a table is put in one piece first.
    let whole;
    let data = match input.data {
        HostData::Rows { .. } if shape.len() < 2 => {
            let mut bytes = vec![0u8; input.data.len()];
            input.data.copy_to(&mut bytes)?;
            whole = bytes;
            HostData::Contiguous(&whole)
        }
        data => data,
    };
    let widest = kernels.iter().map(|k| k.output().size()).max().unwrap_or(1);
    // Two scratch blocks, 8-byte aligned for any element type.
    let words = (block * widest).div_ceil(8);
    let mut scratch = [vec![0u64; words], vec![0u64; words]];
    let in_size = kernels[0].input().size();
    let blocks = n / block;
    let block_bytes = block * in_size;
    // Block `b` of the input: in its sample's row where the rows still lie
    // in their table (a block lies inside one sample, see above).
    let per_row = (blocks / batch).max(1);
    let per_sample = per_row * block_bytes;
    let block_of = |b: usize| -> Option<&[u8]> {
        let (row, start) = match data {
            HostData::Contiguous(bytes) => (bytes, b * block_bytes),
            HostData::Rows { .. } => (
                data.find(b / per_row, per_sample)?,
                (b % per_row) * block_bytes,
            ),
        };
        row.get(start..start + block_bytes)
    };
    // Small rows are asked for further ahead, to hide the memory's latency:
    // some 2 KiB ahead (8 of W1's rows; 16 measured a little slower).
    let ahead = (2048 / block_bytes.max(1)).clamp(1, 16);
    if let (HostData::Rows { table, keys, row }, [kernel]) = (data, kernels)
        && blocks == batch
        && row == block_bytes
    {
        // One block per sample, read where it lies: runs of samples with
        // the same block info (the same flag) go to the kernel together,
        // so that its per-block work is done once a run.
        let flag_of = |s: usize| input.flags.and_then(|f| f.get(s)).is_some_and(|&f| f != 0);
        let out_bytes = block * kernel.output().size();
        let mut start = 0;
        while start < keys.len() {
            let flag = flag_of(start);
            let end = (start + 1..keys.len())
                .find(|&s| flag_of(s) != flag)
                .unwrap_or(keys.len());
            let info = BlockInfo {
                channel: 0,
                channel_per_element: per_element,
                last,
                flag,
            };
            let run = ScatteredBlocks::new(table, keys, start..end, block_bytes, block)?
                .prefetching(ahead);
            // SAFETY: `run_rows` writes every byte of its output before
            // returning `Ok` (the `BlockKernel` contract).
            unsafe {
                output.append_in_place((end - start) * out_bytes, |room| {
                    kernel.run_rows(run, room, info)
                })?;
            }
            start = end;
        }
        return Ok(());
    }
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
        let source = block_of(b).ok_or_else(|| Error::out_of_range("kernel block", b, blocks))?;
        if let HostData::Rows { .. } = data
            && let Some(next) = block_of(b + ahead)
        {
            // The rows lie apart, so the CPU cannot guess the next ones:
            // the block some 2 KiB on is asked for meanwhile.
            crate::exec::prefetch(next);
        }
        // Which scratch block holds the last step's output (and its bytes);
        // none before the first step, which reads the batch. The last
        // step's output is appended to the batch: each byte of it is
        // written once.
        let mut held: Option<(usize, usize)> = None;
        let steps = kernels.len();
        for (k, kernel) in kernels.iter().enumerate() {
            let (a, b) = scratch.split_at_mut(1);
            let (a, b) = (&mut a[0], &mut b[0]);
            let (from, spare, spare_index): (&[u8], &mut Vec<u64>, usize) = match held {
                None => (source, a, 0),
                Some((0, len)) => (&bytemuck_bytes_ref(a)[..len], b, 1),
                Some((_, len)) => (&bytemuck_bytes_ref(b)[..len], a, 0),
            };
            let bytes = block * kernel.output().size();
            if k + 1 == steps {
                // The last step writes straight into the batch, each byte
                // once.
                // SAFETY: `run_block` writes every byte of its output
                // before returning `Ok` (the `BlockKernel` contract).
                unsafe {
                    output.append_in_place(bytes, |room| kernel.run_block(from, room, info))?;
                }
            } else {
                // SAFETY: `run_block` initializes every byte it is given
                // (the `BlockKernel` contract), and the next step reads
                // only those `bytes`.
                let room = unsafe { uninit(bytemuck_bytes(spare)) };
                kernel.run_block(from, &mut room[..bytes], info)?;
                held = Some((spare_index, bytes));
            }
        }
    }
    Ok(())
}

/// Initialized bytes, as room to write.
///
/// # Safety
///
/// Whoever writes through the result stores values only (never
/// `MaybeUninit::uninit()`), since the bytes are read as `u8` afterwards.
unsafe fn uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the caller keeps
    // the bytes initialized.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), bytes.len()) }
}

fn bytemuck_bytes(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: u64 has no padding; any byte pattern is valid for it.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8) }
}

fn bytemuck_bytes_ref(words: &[u64]) -> &[u8] {
    // SAFETY: as above, read only.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) }
}

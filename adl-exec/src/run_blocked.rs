//! [`run_blocked`]: a chain of block kernels run over a whole batch, block
//! by block (one channel plane of one sample at a time), so that the batch
//! is read once and written once, as the fused OpenCL kernel does, with the
//! steps in between in cache.

use super::blocks::{BlockInfo, BlockKernel};
use super::host::{HostBatch, HostData};
use super::output::Output;
use super::scattered::ScatteredBlocks;
use crate::{KernelError, Result};

/// How much of a block ahead is prefetched: its first eight cache lines.
const HEAD: usize = 512;

/// Run `kernels` in order over `input`, block by block, into `output`.
pub fn run_blocked(
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
    let widest = kernels.iter().map(|k| k.output().size()).max().unwrap_or(1);
    // Two scratch blocks, 8-byte aligned for any element type (made past
    // the rows' path above, which needs none).
    let words = (block * widest).div_ceil(8);
    let mut scratch = [vec![0u64; words], vec![0u64; words]];
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
        let source =
            block_of(b).ok_or_else(|| KernelError::out_of_range("kernel block", b, blocks))?;
        if let HostData::Rows { .. } = data
            && let Some(next) = block_of(b + ahead)
        {
            // The rows lie apart, so the CPU cannot guess the next ones:
            // the block `ahead` on (some 2 KiB, or the next) is asked for
            // meanwhile, its first `HEAD` bytes: the hardware's own
            // prefetcher follows a block that goes on in order. Asking
            // for all of a 4 KiB block (W2's channel planes) filled the
            // CPU's line fill buffers and stalled on the prefetches: 546 k
            // samples/s against 621 k with its head alone (7 alternating
            // runs, 2 workers).
            super::prefetch_head(next, HEAD);
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
                Some((0, len)) => (&bytemuck::cast_slice(a)[..len], b, 1),
                Some((_, len)) => (&bytemuck::cast_slice(b)[..len], a, 0),
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
                // The next step reads only those `bytes`, which this one
                // wrote.
                let room: &mut [u8] = bytemuck::cast_slice_mut(spare);
                kernel.run_block_into(from, &mut room[..bytes], info)?;
                held = Some((spare_index, bytes));
            }
        }
    }
    Ok(())
}

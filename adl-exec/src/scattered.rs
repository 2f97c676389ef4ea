//! [`ScatteredBlocks`]: a run of blocks that lie apart in their table.

use crate::{KernelError, Result};

/// A run of blocks that lie apart in their table, one per sample: the
/// samples' rows of a batch gathered in place (`adl::collate::Rows`), read
/// where they lie by [`BlockKernel::run_rows`](super::BlockKernel::run_rows).
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
            return Err(KernelError::invalid(
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
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the run has no blocks.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Elements per block.
    #[inline]
    pub fn elements(&self) -> usize {
        self.elements
    }

    /// The table's bytes, the row keys of the run, the keys from the
    /// run's first to the batch's end (those ahead to prefetch), and how
    /// many blocks ahead it prefetches: for a loop over the run that
    /// checks its keys once.
    #[inline]
    pub(crate) fn parts(&self) -> (&'a [u8], &'a [usize], &'a [usize], usize) {
        let from = self.keys.get(self.start..).unwrap_or(&[]);
        (
            self.table,
            &from[..self.len.min(from.len())],
            from,
            self.ahead,
        )
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
            _ => return Err(KernelError::out_of_range("kernel block", i, self.len())),
        };
        self.find(key).ok_or_else(|| {
            KernelError::out_of_range(
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
            return Err(KernelError::internal(
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
            // Its first line: the CPU's own prefetcher brings the lines
            // after it. Asking for every line of W1's 256-byte rows filled
            // the line fill buffers and stalled on the prefetches (one
            // line: 1.09x on one thread, 1.07x on two; 7 alternating runs).
            super::prefetch_head(bytes, super::CACHE_LINE);
        }
    }
}

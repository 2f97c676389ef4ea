//! [`HostBatch`]: a batch as a kernel reads it, as bytes in host memory.

use super::element::ElementType;
use crate::{KernelError, Result};

/// A batch as a kernel reads it: row-major bytes (in one piece, or one
/// piece per sample), its shape (batch axis first), and per-sample flags
/// where the batch carries them.
#[derive(Debug, Clone, Copy)]
pub struct HostBatch<'a> {
    /// The elements, row-major, as bytes.
    pub data: HostData<'a>,
    /// Their type.
    pub element: ElementType,
    /// The shape, batch axis first.
    pub shape: &'a [usize],
    /// One byte per sample (0 or 1), where the batch has flags.
    pub flags: Option<&'a [u8]>,
}

/// Where a [`HostBatch`]'s bytes are.
#[derive(Debug, Clone, Copy)]
pub enum HostData<'a> {
    /// The whole batch, row-major, in one piece.
    Contiguous(&'a [u8]),
    /// One piece per sample, each still in the table it was gathered from
    /// (a batch of rows gathered in place, `adl::collate::Rows`): sample `s` is the bytes
    /// `keys[s] * row .. (keys[s] + 1) * row` of `table`.
    Rows {
        /// The table's bytes, row-major.
        table: &'a [u8],
        /// Bytes per row (per sample).
        row: usize,
        /// The samples' rows, in batch order.
        keys: &'a [usize],
    },
}

impl<'a> HostData<'a> {
    /// The number of bytes in the batch.
    #[inline]
    pub fn len(&self) -> usize {
        match *self {
            HostData::Contiguous(bytes) => bytes.len(),
            HostData::Rows { row, keys, .. } => row * keys.len(),
        }
    }

    /// Whether the batch has no bytes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of one row, `row` bytes of it: `index` counts rows of
    /// the batch, a sample's row for [`HostData::Rows`].
    pub fn row(&self, index: usize, row: usize) -> Result<&'a [u8]> {
        if let HostData::Rows { row: per_key, .. } = *self
            && per_key != row
        {
            return Err(KernelError::internal(
                "kernel::data",
                format!(
                    "kernel input: rows of {row} bytes asked of a batch whose samples are {per_key} bytes"
                ),
            ));
        }
        self.find(index, row).ok_or_else(|| {
            KernelError::out_of_range("kernel input row", index, self.len() / row.max(1))
        })
    }

    /// [`row`](HostData::row), or `None` (no error built: for hints and
    /// lookups past the end, on hot paths).
    #[inline]
    pub(crate) fn find(&self, index: usize, row: usize) -> Option<&'a [u8]> {
        let (bytes, start) = match *self {
            HostData::Contiguous(bytes) => (bytes, index.checked_mul(row)?),
            HostData::Rows {
                table,
                row: per_key,
                keys,
            } if per_key == row => (table, keys.get(index)?.checked_mul(row)?),
            HostData::Rows { .. } => return None,
        };
        bytes.get(start..start.checked_add(row)?)
    }

    /// Ask the CPU to start fetching row `index` (a hint; nothing happens
    /// for a row out of range).
    #[inline]
    pub fn prefetch_row(&self, index: usize, row: usize) {
        if let Some(bytes) = self.find(index, row) {
            super::prefetch(bytes);
        }
    }

    /// Copy the batch, row-major, into `out` (of exactly
    /// [`len`](HostData::len) bytes): at memcpy speed, each sample's row
    /// prefetched a few rows ahead.
    pub fn copy_to(&self, out: &mut [u8]) -> Result<()> {
        if out.len() != self.len() {
            return Err(KernelError::internal(
                "kernel::data",
                format!(
                    "kernel input: a batch of {} bytes copied into {} bytes",
                    self.len(),
                    out.len()
                ),
            ));
        }
        match *self {
            HostData::Contiguous(bytes) => out.copy_from_slice(bytes),
            HostData::Rows { row, keys, .. } => {
                const AHEAD: usize = 4;
                for (s, into) in out
                    .chunks_exact_mut(row.max(1))
                    .enumerate()
                    .take(keys.len())
                {
                    self.prefetch_row(s + AHEAD, row);
                    into.copy_from_slice(self.row(s, row)?);
                }
            }
        }
        Ok(())
    }
}

impl HostBatch<'_> {
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether it has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

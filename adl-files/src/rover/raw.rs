//! roverd's `raw` channels: the frames one after another, uncompressed.

use adl_core::Result;

use crate::location::Location;
use crate::ranged::RangedFile;

/// A `raw` channel: frame `i` is the bytes `i * frame .. (i + 1) * frame`
/// of its file (mapped, or read with a ranged request from a store).
pub(crate) struct RawChannel {
    file: RangedFile,
    frame_bytes: usize,
}

impl RawChannel {
    /// The channel file at `location`, frames of `frame_bytes` bytes.
    pub(crate) fn open(location: &Location, frame_bytes: usize) -> Result<RawChannel> {
        Ok(RawChannel {
            file: RangedFile::open(location)?,
            frame_bytes,
        })
    }

    /// The number of whole frames in the file.
    pub(crate) fn frames(&self) -> usize {
        (self.file.len() as usize)
            .checked_div(self.frame_bytes)
            .unwrap_or(0)
    }

    /// The bytes after the last whole frame (those of a frame cut short).
    pub(crate) fn partial_bytes(&self) -> usize {
        (self.file.len() as usize)
            .checked_rem(self.frame_bytes)
            .unwrap_or(0)
    }

    /// Frame `index`'s bytes, into `out`.
    pub(crate) fn read_into(&self, index: usize, out: &mut [u8]) -> Result<()> {
        let start = (index * self.frame_bytes) as u64;
        let bytes = self.file.read(
            start..start + self.frame_bytes as u64,
            &format!("frame {index}"),
        )?;
        out.copy_from_slice(&bytes);
        Ok(())
    }
}

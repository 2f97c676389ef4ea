//! roverd's `lzmaf` channels: each frame compressed on its own, found by
//! the `<name>_i` file of offsets beside the channel's file.

use adl_core::Result;

use super::lzma::decompress_into;
use crate::location::Location;
use crate::ranged::RangedFile;

/// A `lzmaf` channel: the compressed frames one after another in the
/// channel's file, and in `<name>_i` the little-endian `uint64` offset
/// where each starts, then the end of the last (`n + 1` offsets for `n`
/// frames, the first 0). A frame's read decompresses its bytes alone.
pub(crate) struct LzmaFrameChannel {
    data: RangedFile,
    offsets_location: Location,
    offsets: Vec<u64>,
}

impl LzmaFrameChannel {
    /// The channel at `location`, with its offsets beside it, checked
    /// against each other: whole offsets, none decreasing, the last within
    /// the data file. A disagreement is refused naming the offsets file,
    /// the frame and the bytes.
    pub(crate) fn open(location: &Location, name: &str) -> Result<LzmaFrameChannel> {
        let offsets_location = location.parent().join(&format!("{name}_i"));
        let index = RangedFile::open(&offsets_location)?;
        let raw = index.read_all("the offsets")?;
        if raw.len() % 8 != 0 {
            return Err(offsets_location.error(format!(
                "holds {} bytes, not a whole number of 8-byte offsets: truncated",
                raw.len()
            )));
        }
        let offsets: Vec<u64> = raw
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
            .collect();
        drop(raw);
        if offsets.is_empty() {
            return Err(offsets_location.error(
                "is empty: it holds the start of every frame and the end of the last (at least a 0)",
            ));
        }
        let data = RangedFile::open(location)?;
        for (frame, pair) in offsets.windows(2).enumerate() {
            if pair[1] < pair[0] {
                return Err(offsets_location.error(format!(
                    "frame {frame} ends at byte {} before it starts at byte {}: the offsets decrease",
                    pair[1], pair[0]
                )));
            }
        }
        let last = offsets[offsets.len() - 1];
        if last > data.len() {
            return Err(offsets_location.error(format!(
                "the frames end at byte {last} of {}, which holds {} bytes: the data file is truncated, or the offsets are not its",
                location,
                data.len()
            )));
        }
        Ok(LzmaFrameChannel {
            data,
            offsets_location,
            offsets,
        })
    }

    /// The number of frames the offsets give.
    pub(crate) fn frames(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The file of offsets.
    pub(crate) fn offsets_location(&self) -> &Location {
        &self.offsets_location
    }

    /// Frame `index`, decompressed into `out` (which it must fill
    /// exactly). A frame that does not decompress, or not to its size,
    /// names the file, the frame and its bytes.
    pub(crate) fn read_into(&self, index: usize, out: &mut [u8]) -> Result<()> {
        let (Some(&start), Some(&end)) = (self.offsets.get(index), self.offsets.get(index + 1))
        else {
            return Err(self.data.location().error(format!(
                "frame {index}: past the channel's {} frames",
                self.frames()
            )));
        };
        let what = format!("frame {index}");
        let compressed = self.data.read(start..end, &what)?;
        decompress_into(&compressed, out).map_err(|reason| {
            self.data
                .location()
                .error(format!("frame {index} (bytes {start}..{end}): {reason}"))
        })
    }
}

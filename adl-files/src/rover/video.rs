//! roverd's `mjpg` channels: MJPEG video in an AVI file (as OpenCV's
//! writer makes it), a frame's JPEG found by the file's index and decoded
//! by adl's JPEG path.

use std::ops::Range;

use adl_core::Result;

use super::avi;
use super::jpeg::JpegFrames;
use crate::location::Location;
use crate::ranged::RangedFile;

/// An `mjpg` channel: the AVI file, where each frame's JPEG is in it, and
/// how frames are decoded.
pub(crate) struct VideoChannel {
    file: RangedFile,
    frames: Vec<Range<u64>>,
    jpeg: JpegFrames,
    first: String,
}

impl VideoChannel {
    /// The AVI file at `location`, its index read and its first frame's
    /// header checked against the declared `shape` (`[H, W, 3]`), frames
    /// shrunk by `factor`.
    pub(crate) fn open(location: &Location, shape: &[usize], factor: usize) -> Result<Self> {
        let file = RangedFile::open(location)?;
        let frames = avi::frames(&file).map_err(|reason| location.error(reason))?;
        let Some(first) = frames.first() else {
            return Err(location.error("holds no video frame"));
        };
        let bytes = file.read(first.clone(), "frame 0")?;
        let jpeg = JpegFrames::new(&bytes, shape, factor)
            .map_err(|reason| location.error(format!("frame 0: {reason}")))?;
        Ok(VideoChannel {
            first: format!("{location} frame 0"),
            file,
            frames,
            jpeg,
        })
    }

    /// The number of frames in the index.
    pub(crate) fn frames(&self) -> usize {
        self.frames.len()
    }

    /// The shape of a decoded frame.
    pub(crate) fn shape(&self) -> [usize; 3] {
        self.jpeg.shape()
    }

    /// Frame `index`, decoded: RGB `[H, W, 3]` values, downscaled.
    pub(crate) fn read(&self, index: usize) -> Result<Vec<u8>> {
        let location = self.file.location();
        let range = self.frames.get(index).ok_or_else(|| {
            location.error(format!(
                "frame {index}: past the video's {} frames",
                self.frames.len()
            ))
        })?;
        let what = format!("frame {index}");
        let bytes = self.file.read(range.clone(), &what)?;
        self.jpeg.decode(&bytes, &self.first).map_err(|reason| {
            location.error(format!(
                "{what} (bytes {}..{}): {reason}",
                range.start, range.end
            ))
        })
    }
}

//! [`VideoFile`]: an MP4 file opened: its video track's sample table read
//! once, its pictures read later by byte range.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use adl_core::{Error, Result};

use crate::location::Location;
use crate::ranged::{Piece, RangedFile};

use super::mp4::{Failure, Sample, Track};

/// An MP4 file whose video track adl decodes: where it is, its bytes, and
/// its sample table.
pub(crate) struct VideoFile {
    /// A number no other file opened in this process has: the key of the
    /// decoders each thread keeps for it.
    id: u64,
    bytes: RangedFile,
    track: Track,
    /// Each frame's presentation time, in seconds, in presentation order.
    times: Vec<f64>,
}

impl std::fmt::Debug for VideoFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VideoFile")
            .field("location", &self.location().to_string())
            .field("codec", &self.track.codec.name())
            .field("frames", &self.times.len())
            .finish()
    }
}

impl VideoFile {
    /// The file at `location` opened and its sample table read (an
    /// object's index with a few ranged reads, not the whole object). A
    /// file that is not there, not an MP4, cut short before its index, or
    /// without a video track adl decodes is refused, naming it.
    pub(crate) fn open(location: &Location) -> Result<Arc<VideoFile>> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        // Read a range at a time, not mapped: a dataset keeps thousands of
        // videos open, and the pages a mapping reads stay in the process's
        // resident memory.
        let bytes = RangedFile::open_unmapped(location)?;
        let track = Track::read(bytes.len(), |range| {
            bytes.read(range, "its index").map(|piece| piece.to_vec())
        })
        .map_err(|failure| match failure {
            Failure::Read(e) => e,
            Failure::Format(reason) => location.error(reason),
        })?;
        if track.frames.is_empty() {
            return Err(location.error("its video track has no frames"));
        }
        let times = (0..track.frames.len())
            .map(|frame| track.frame_time(frame))
            .collect();
        Ok(Arc::new(VideoFile {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            bytes,
            track,
            times,
        }))
    }

    /// The file's number in this process.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Where the file is.
    pub(crate) fn location(&self) -> &Location {
        self.bytes.location()
    }

    /// Its video track's sample table.
    pub(crate) fn track(&self) -> &Track {
        &self.track
    }

    /// Each frame's presentation time, in seconds.
    pub(crate) fn times(&self) -> &[f64] {
        &self.times
    }

    /// The bytes of samples `samples` (in decode order), read with one
    /// read of the span they cover, and the offset in the file of the
    /// span's first byte.
    pub(crate) fn read_samples(&self, samples: Range<usize>) -> Result<(Piece<'_>, u64)> {
        let span = byte_span(&self.track.samples[samples.clone()]);
        let what = match samples.len() {
            1 => format!("sample {}", samples.start),
            _ => format!("samples {}..{}", samples.start, samples.end),
        };
        let start = span.start;
        Ok((self.bytes.read(span, &what)?, start))
    }

    /// An error naming the file, for `reason`.
    pub(crate) fn error(&self, reason: impl std::fmt::Display) -> Error {
        self.location().error(reason)
    }
}

/// The bytes of the file that `samples` span: from the first byte of the
/// first to the last of the last, wherever they lie.
pub(crate) fn byte_span(samples: &[Sample]) -> Range<u64> {
    let start = samples.iter().map(|s| s.offset).min().unwrap_or(0);
    let end = samples
        .iter()
        .map(|s| s.offset.saturating_add(u64::from(s.size)))
        .max()
        .unwrap_or(start);
    start..end
}

//! [`Channel`]: one channel of a roverd sensor, of whatever format, read a
//! window of frames at a time into a [`ChannelArray`].

use adl_core::{Error, Result};

use super::array::ChannelArray;
use super::blobs::{JpegBlobChannel, NpzBlobChannel};
use super::element::Element;
use super::lzma::LzmaChannel;
use super::lzma_frames::LzmaFrameChannel;
use super::meta::{ChannelFormat, ChannelMeta};
use super::raw::RawChannel;
use super::video::VideoChannel;
use crate::location::Location;

/// One channel of a roverd sensor, opened: its entry in `meta.json` and
/// its reader. Frames are read into arrays of the declared element type,
/// `[window, *shape]` (an image channel's shape after its downscale).
pub struct Channel {
    meta: ChannelMeta,
    location: Location,
    reader: Reader,
    /// A decoded frame's shape (the declared one, but for images
    /// downscaled).
    shape: Vec<usize>,
}

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Channel")
            .field("name", &self.meta.name)
            .field("format", &self.meta.format.name())
            .field("element", &self.meta.element)
            .field("shape", &self.shape)
            .field("location", &self.location)
            .finish()
    }
}

/// A channel's reader, by format.
enum Reader {
    Raw(RawChannel),
    Lzma(LzmaChannel),
    LzmaFrames(LzmaFrameChannel),
    Video(VideoChannel),
    JpegBlobs(JpegBlobChannel),
    NpzBlobs(NpzBlobChannel),
}

impl Channel {
    /// The channel `meta` of the sensor folder `folder`, opened; image
    /// frames (`mjpg`, `jpg`) shrunk by `downscale` (1, 2, 4 or 8); an
    /// `lzma` channel decompressed as far as the `needed` frames. The
    /// file's frames are not yet counted against the timestamps
    /// ([`frames`](Channel::frames) says how many it holds, where that is
    /// known without reading them).
    pub(crate) fn open(
        folder: &Location,
        meta: ChannelMeta,
        downscale: usize,
        needed: usize,
    ) -> Result<Channel> {
        let location = folder.join(&meta.name);
        let image = matches!(meta.format, ChannelFormat::Mjpeg | ChannelFormat::JpegBlobs);
        if image && meta.element != Element::U8 {
            return Err(location.error(format!(
                "a {} channel holds uint8 RGB frames; meta.json declares the type {}",
                meta.format.name(),
                meta.element
            )));
        }
        let (reader, shape) = match meta.format {
            ChannelFormat::Raw => (
                Reader::Raw(RawChannel::open(&location, meta.frame_bytes())?),
                meta.shape.clone(),
            ),
            ChannelFormat::Lzma => (
                Reader::Lzma(LzmaChannel::open(&location, meta.frame_bytes(), needed)?),
                meta.shape.clone(),
            ),
            ChannelFormat::LzmaFrames => (
                Reader::LzmaFrames(LzmaFrameChannel::open(&location, &meta.name)?),
                meta.shape.clone(),
            ),
            ChannelFormat::Mjpeg => {
                let video = VideoChannel::open(&location, &meta.shape, downscale)?;
                let shape = video.shape().to_vec();
                (Reader::Video(video), shape)
            }
            ChannelFormat::JpegBlobs => {
                let blobs = JpegBlobChannel::open(&location, &meta.shape, downscale)?;
                let shape = blobs.shape().to_vec();
                (Reader::JpegBlobs(blobs), shape)
            }
            ChannelFormat::NpzBlobs => (
                Reader::NpzBlobs(NpzBlobChannel::open(&location, meta.element, &meta.shape)),
                meta.shape.clone(),
            ),
        };
        Ok(Channel {
            meta,
            location,
            reader,
            shape,
        })
    }

    /// The channel's name.
    pub fn name(&self) -> &str {
        &self.meta.name
    }

    /// Its entry in `meta.json`.
    pub fn meta(&self) -> &ChannelMeta {
        &self.meta
    }

    /// Its file (or, for blobs, folder).
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The shape of one decoded frame: the declared shape, an image
    /// channel's shrunk by its downscale.
    pub fn frame_shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of frames the channel holds, where that is known without
    /// reading each (not for blob folders, which are not listed: a missing
    /// frame's file is told when it is read).
    pub fn frames(&self) -> Option<usize> {
        match &self.reader {
            Reader::Raw(raw) => Some(raw.frames()),
            Reader::Lzma(lzma) => Some(lzma.frames()),
            Reader::LzmaFrames(frames) => Some(frames.frames()),
            Reader::Video(video) => Some(video.frames()),
            Reader::JpegBlobs(_) | Reader::NpzBlobs(_) => None,
        }
    }

    /// Checked at opening: at least `needed` frames (one per timestamp).
    /// Fewer are refused naming the file and both counts (for a `raw`
    /// file, the bytes of a frame cut short too).
    pub(crate) fn check_frames(&self, needed: usize) -> Result<()> {
        let Some(held) = self.frames() else {
            return Ok(());
        };
        if held >= needed {
            return Ok(());
        }
        let place = match &self.reader {
            Reader::LzmaFrames(frames) => frames.offsets_location().clone(),
            _ => self.location.clone(),
        };
        let partial = match &self.reader {
            Reader::Raw(raw) if raw.partial_bytes() > 0 => format!(
                " and {} bytes of another (a frame is {} bytes)",
                raw.partial_bytes(),
                self.meta.frame_bytes()
            ),
            _ => String::new(),
        };
        Err(place.error(format!(
            "holds {held} frames{partial} for {needed} timestamps: truncated"
        )))
    }

    /// The file frame `index` is read from (a blob's own file).
    pub fn frame_location(&self, index: usize) -> Location {
        match &self.reader {
            Reader::JpegBlobs(blobs) => blobs.file(index),
            Reader::NpzBlobs(blobs) => blobs.file(index),
            _ => self.location.clone(),
        }
    }

    /// Frames `first .. first + count`, in an array `[count, *frame_shape]`
    /// of the channel's element type, each frame read or decoded into its
    /// place in the array's buffer (an image frame is decoded into a
    /// buffer of its own, which is the array's where `count` is 1).
    pub fn read(&self, first: usize, count: usize) -> Result<ChannelArray> {
        let mut shape = Vec::with_capacity(self.shape.len() + 1);
        shape.push(count);
        shape.extend_from_slice(&self.shape);
        let frame_len = self.shape.iter().product::<usize>() * self.meta.element.size();
        let decoded = |index: usize| -> Result<Vec<u8>> {
            match &self.reader {
                Reader::Video(video) => video.read(index),
                Reader::JpegBlobs(blobs) => blobs.read(index),
                _ => Err(Error::internal("Channel::read", "not an image channel")),
            }
        };
        if count == 1 && matches!(self.reader, Reader::Video(_) | Reader::JpegBlobs(_)) {
            let values = decoded(first)?;
            return ndarray::ArrayD::from_shape_vec(shape, values)
                .map(ChannelArray::U8)
                .map_err(|e| Error::internal("Channel::read", e));
        }
        ChannelArray::filled(self.meta.element, &shape, |bytes| {
            for (k, out) in bytes.chunks_exact_mut(frame_len.max(1)).enumerate() {
                let index = first + k;
                match &self.reader {
                    Reader::Raw(raw) => raw.read_into(index, out)?,
                    Reader::Lzma(lzma) => lzma.read_into(index, out)?,
                    Reader::LzmaFrames(frames) => frames.read_into(index, out)?,
                    Reader::NpzBlobs(blobs) => blobs.read_into(index, out)?,
                    Reader::Video(_) | Reader::JpegBlobs(_) => {
                        out.copy_from_slice(&decoded(index)?);
                    }
                }
            }
            Ok(())
        })
    }
}

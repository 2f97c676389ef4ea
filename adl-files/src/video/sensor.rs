//! [`Video`]: a sensor over the frames of an MP4 file.

use std::sync::Arc;

use adl_core::storage::Storage;
use adl_core::transform::ImageLayout;
use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};
use ndarray::{Array3, Array4};

use crate::location::Location;

use super::convert::{Output, convert};
use super::decoder::decode;
use super::file::VideoFile;
use super::mp4::MOST_PIXELS;

/// A camera recorded as video: a sensor whose samples are frames of an
/// MP4 file (H.264, HEVC, AV1 or VP9), decoded by FFmpeg's libavcodec into
/// RGB `Array3<u8>`, `[H, W, 3]` (the default) or `[3, H, W]`
/// ([`layout`](Video::layout)).
///
/// **Frames and times.** [`open`](Video::open) reads the file's index
/// (its `moov` box: a local file's, or an object's with a few ranged
/// reads) and nothing else: sample `i` is the `i`-th frame in presentation
/// order, at the time the file gives it (its presentation time, the edit
/// list applied: the time FFmpeg, PyAV and torchcodec report). A sensor of
/// some of the frames: [`at_times`](Video::at_times), the frame nearest
/// each of a list of times, each checked within a tolerance as it is
/// made (a LeRobot episode's camera, at its table's timestamps), or
/// [`frames`](Video::frames), frames by index.
///
/// **Decoding.** Each thread decodes with decoders of its own (no decoder
/// is shared between threads, nor used again in a process forked from the
/// one that made it), a few files' worth kept open, bounded in bytes. A
/// frame is decoded from the key frame before it: [`read`](Video::read)
/// of many frames decodes each group of pictures once for all the frames
/// wanted from it, and a thread whose decoder already stands in a group
/// goes on from there. The pictures of a group are read with one read of
/// the bytes they span (a ranged read, from an object store).
///
/// **Pixels.** YUV to RGB by libswscale, with the matrix and range that
/// the stream gives (BT.601, BT.709, BT.2020; limited or full range), or
/// its file's `colr` box, or else BT.601 limited (FFmpeg's default), the
/// chroma upsampled bilinearly, as PyAV's `to_ndarray(format="rgb24")`
/// and torchcodec convert. [`resize`](Video::resize) scales in the same
/// pass (libswscale's area filter when smaller, as PyAV's `interpolation=
/// "AREA"`: near the mean of each output pixel's area).
///
/// **Errors.** A missing file, one that is not an MP4 with a video track
/// adl decodes, one cut short before its index, is refused at
/// [`open`](Video::open) naming it; a picture whose bytes are past the
/// file's end (cut short after its index) or that does not decode is the
/// error of the frames that needed it, naming the file, the sensor and the
/// sample. Nothing panics.
///
/// ```
/// use adl::Sensor;
/// use adl::files::Video;
///
/// # let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/video");
/// // av1.mp4: 16 frames of 64 x 48 at 10 frames/s
/// let video = Video::open(data.join("av1.mp4"))?;
/// assert_eq!(video.name(), "av1");
/// assert_eq!(video.len(), 16);
/// assert_eq!(video.codec(), "AV1");
/// assert_eq!(video.metadata().as_slice()[3], 0.3);
/// assert_eq!(video.get(3)?.shape(), &[48, 64, 3]);
///
/// // Frames 4 and 5 (one group of pictures: one decode) in one array.
/// let both = video.read(&[4, 5])?;
/// assert_eq!(both.shape(), &[2, 48, 64, 3]);
///
/// // The frames nearest given times, each within 1 ms.
/// let times = adl::Timestamps::new("front", vec![0.0, 0.5, 1.0])?;
/// let front = video.at_times("front", times, 0.0, 1e-3)?;
/// assert_eq!(front.file_frames(), [0, 5, 10]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Video {
    name: String,
    file: Arc<VideoFile>,
    /// The file's frame each sample is.
    frames: Arc<[usize]>,
    timestamps: Timestamps,
    output: Output,
}

impl std::fmt::Debug for Video {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Video")
            .field("name", &self.name)
            .field("file", &self.file)
            .field("samples", &self.frames.len())
            .field("sample_shape", &self.sample_shape())
            .finish()
    }
}

impl Video {
    /// The video at `path` (a path, or an object in a store), named as its
    /// file without the extension: every frame, in presentation order, at
    /// its time in the file.
    pub fn open(path: impl Into<Location>) -> Result<Video> {
        let location = path.into();
        let name = location
            .file_name()
            .map(|name| name.rsplit_once('.').map_or(name, |(stem, _)| stem))
            .unwrap_or("video")
            .to_string();
        Video::named(&name, location)
    }

    /// The video at `path`, as sensor `name`: every frame, in presentation
    /// order, at its time in the file.
    pub fn named(name: &str, path: impl Into<Location>) -> Result<Video> {
        let location = path.into().opened()?;
        let file = VideoFile::open(&location).map_err(|e| e.in_sensor(name, None))?;
        let timestamps = Timestamps::new(name, file.times().to_vec()).map_err(|e| {
            file.error(format!("its frames' times: {e}"))
                .in_sensor(name, None)
        })?;
        let track = file.track();
        let output = Output {
            height: track.height as usize,
            width: track.width as usize,
            layout: ImageLayout::Hwc,
        };
        Ok(Video {
            name: name.to_string(),
            frames: (0..file.times().len()).collect(),
            file,
            timestamps,
            output,
        })
    }

    /// Sensor `name` over the file's frames nearest each of `timestamps`
    /// shifted by `offset` (a time in the file: `timestamps[i] + offset`),
    /// each frame within `tolerance` seconds of its time; the sensor's
    /// timestamps are `timestamps`. A time with no frame that near is an
    /// error naming the file, the sensor, the sample, the time and the
    /// nearest frame's.
    pub fn at_times(
        &self,
        name: &str,
        timestamps: Timestamps,
        offset: f64,
        tolerance: f64,
    ) -> Result<Video> {
        if !(tolerance >= 0.0 && tolerance.is_finite() && offset.is_finite()) {
            return Err(Error::invalid(
                format_args!("tolerance and offset of sensor `{name}`"),
                format!("{tolerance} s and {offset} s; both must be finite, the tolerance >= 0"),
            ));
        }
        let frames = timestamps
            .as_slice()
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                self.nearest_frame(t + offset, tolerance)
                    .map_err(|reason| self.file.error(reason).in_sensor(name, Some(i)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Video {
            name: name.to_string(),
            frames: frames.into(),
            timestamps,
            ..self.clone()
        })
    }

    /// Sensor `name` over the file's frames `frames` (indices in the
    /// file's presentation order, in time order), at their times in the
    /// file.
    pub fn frames(&self, name: &str, frames: Vec<usize>) -> Result<Video> {
        let count = self.file.times().len();
        if let Some(&bad) = frames.iter().find(|&&f| f >= count) {
            return Err(Error::out_of_range(
                format_args!("frames of {}", self.file.location()),
                bad,
                count,
            ));
        }
        let times = frames.iter().map(|&f| self.file.times()[f]).collect();
        Ok(Video {
            name: name.to_string(),
            frames: frames.into(),
            timestamps: Timestamps::new(name, times)?,
            ..self.clone()
        })
    }

    /// The index (in the file) of the frame nearest `time` seconds, or
    /// why none is within `tolerance`.
    fn nearest_frame(&self, time: f64, tolerance: f64) -> std::result::Result<usize, String> {
        let times = self.file.times();
        let after = times.partition_point(|&t| t < time);
        let nearest = [after.checked_sub(1), (after < times.len()).then_some(after)]
            .into_iter()
            .flatten()
            .min_by(|&a, &b| (times[a] - time).abs().total_cmp(&(times[b] - time).abs()))
            .ok_or("the video has no frames")?;
        let distance = (times[nearest] - time).abs();
        if distance > tolerance {
            return Err(format!(
                "no frame within {tolerance} s of {time} s: the nearest, frame {nearest}, is at \
                 {} s, {distance:.6} s away (its frames span {} s to {} s)",
                times[nearest],
                times[0],
                times[times.len() - 1]
            ));
        }
        Ok(nearest)
    }

    /// The index (in the file) of the frame nearest `time` seconds,
    /// within `tolerance`; an [`Error::Source`] naming the file where none
    /// is.
    pub fn frame_at(&self, time: f64, tolerance: f64) -> Result<usize> {
        self.nearest_frame(time, tolerance)
            .map_err(|reason| self.file.error(reason).in_sensor(&self.name, None))
    }

    /// Samples in `layout`: `[H, W, 3]` ([`ImageLayout::Hwc`], the default)
    /// or `[3, H, W]` ([`ImageLayout::Chw`]).
    pub fn layout(self, layout: ImageLayout) -> Self {
        Video {
            output: Output {
                layout,
                ..self.output
            },
            ..self
        }
    }

    /// Samples of `height` x `width` pixels, scaled from the decoded
    /// pictures as they are converted to RGB (libswscale's area filter
    /// where smaller, bilinear where larger). A side of 0, or more than
    /// 2^26 pixels (8192 x 8192), is an [`Error::InvalidParameter`].
    pub fn resize(self, height: usize, width: usize) -> Result<Self> {
        if height == 0 || width == 0 || height.saturating_mul(width) > MOST_PIXELS {
            return Err(Error::invalid(
                format_args!("size of sensor `{}`", self.name),
                format!(
                    "{height} x {width}; each side at least 1, and at most {MOST_PIXELS} pixels in all"
                ),
            ));
        }
        Ok(Video {
            output: Output {
                height,
                width,
                ..self.output
            },
            ..self
        })
    }

    /// The coding format: "H.264", "HEVC", "AV1" or "VP9".
    pub fn codec(&self) -> &'static str {
        self.file.track().codec.name()
    }

    /// Where the file is.
    pub fn location(&self) -> &Location {
        self.file.location()
    }

    /// The size of the file's pictures, (height, width).
    pub fn frame_size(&self) -> (usize, usize) {
        let track = self.file.track();
        (track.height as usize, track.width as usize)
    }

    /// The shape of a sample: `[H, W, 3]` or `[3, H, W]`, after the resize.
    pub fn sample_shape(&self) -> [usize; 3] {
        self.output.shape()
    }

    /// The file's frame that each sample is (indices in the file's
    /// presentation order).
    pub fn file_frames(&self) -> &[usize] {
        &self.frames
    }

    /// The times of every frame of the file, in seconds, in presentation
    /// order (a sample's time is its sensor's timestamp).
    pub fn file_times(&self) -> &[f64] {
        self.file.times()
    }

    /// Samples `indices` (in any order, repeats allowed) as one array,
    /// `[N, H, W, 3]` or `[N, 3, H, W]`, each group of pictures decoded
    /// once for all the frames wanted from it.
    pub fn read(&self, indices: &[usize]) -> Result<Array4<u8>> {
        let shape = self.sample_shape();
        let mut values = vec![0u8; indices.len() * self.output.len()];
        self.read_into(indices, &mut values)?;
        Array4::from_shape_vec((indices.len(), shape[0], shape[1], shape[2]), values)
            .map_err(|e| Error::internal("Video::read", e))
    }

    /// Samples `indices` written into `out`, one after another (exactly
    /// `indices.len()` samples' bytes), each group of pictures decoded once
    /// for all the frames wanted from it: a batch's frames straight into
    /// the batch.
    pub fn read_into(&self, indices: &[usize], out: &mut [u8]) -> Result<()> {
        let len = self.output.len();
        if out.len() != indices.len() * len {
            return Err(Error::invalid(
                format_args!("output of sensor `{}`", self.name),
                format!(
                    "{} bytes for {} frames of {len} bytes",
                    out.len(),
                    indices.len()
                ),
            ));
        }
        let frames = self.file_frames_of(indices)?;
        let slots: Vec<usize> = (0..indices.len()).collect();
        let first = (indices.len() == 1).then(|| indices[0]);
        decode_into(&self.file, self.output, &frames, &slots, out)
            .map_err(|e| e.in_sensor(&self.name, first))
    }

    /// The file's frames of samples `indices`; an index out of range is
    /// an error.
    pub(crate) fn file_frames_of(&self, indices: &[usize]) -> Result<Vec<usize>> {
        indices
            .iter()
            .map(|&i| {
                self.frames.get(i).copied().ok_or_else(|| {
                    Error::out_of_range(
                        format_args!("sensor `{}`", self.name),
                        i,
                        self.frames.len(),
                    )
                })
            })
            .collect()
    }

    /// The file, and what a sample becomes: for decoding a batch's frames
    /// of many sensors, grouped by file.
    pub(crate) fn decoding(&self) -> (&Arc<VideoFile>, Output) {
        (&self.file, self.output)
    }
}

/// Decode `frames` of `file` (indices in its presentation order) as
/// `output` says into `out`, frame `k` into slot `slots[k]` (the slots
/// of `output.len()` bytes each, one after another), each group of
/// pictures decoded once for all the frames wanted from it, a frame
/// wanted twice converted once.
pub(crate) fn decode_into(
    file: &VideoFile,
    output: Output,
    frames: &[usize],
    slots: &[usize],
    out: &mut [u8],
) -> Result<()> {
    let len = output.len();
    if slots.len() != frames.len() || slots.iter().any(|&slot| (slot + 1) * len > out.len()) {
        return Err(Error::internal(
            "video::decode_into",
            "slots that do not fit the output",
        ));
    }
    let fallback = file.track().colour;
    decode(file, frames, &mut |positions, frame| {
        let (&head, rest) = positions.split_first().ok_or_else(|| {
            Error::internal("video::decode_into", "a frame decoded for no position")
        })?;
        let first = slots[head];
        convert(
            frame,
            fallback,
            output,
            &mut out[first * len..(first + 1) * len],
        )
        .map_err(|reason| file.error(reason))?;
        for &p in rest {
            out.copy_within(first * len..(first + 1) * len, slots[p] * len);
        }
        Ok(())
    })
}

impl Sensor for Video {
    type Sample = Array3<u8>;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> Result<Array3<u8>> {
        let mut values = vec![0u8; self.output.len()];
        self.read_into(&[index], &mut values)?;
        Array3::from_shape_vec(self.sample_shape(), values)
            .map_err(|e| Error::internal("Video::get", e))
    }

    /// Its samples' origin: the file, and the frame as the row.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }
}

/// Where a sample is: the file, its frame the row. Nothing is read ahead:
/// a local file is mapped, and an object's pictures are read a group at a
/// time as they are decoded.
impl Storage for Video {
    type Origin = SensorOrigin;

    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        let frame = *self.frames.get(index)?;
        Some(
            SensorOrigin::new(&self.name, index)
                .in_file(self.file.location().to_string(), Some(frame)),
        )
    }
}

//! [`Frames`]: frames of a video in a sample, decoded when the batch is
//! collated: the batch's frames grouped by file and group of pictures,
//! each group decoded once, each frame converted straight into the batch.

use std::collections::BTreeMap;

use adl_core::collate::{BatchBuilder, Collatable};
use adl_core::{Error, Result, Sensor};
use adl_exec::Buffers;
use ndarray::{ArrayD, IxDyn};

use super::convert::Output;
use super::sensor::{Video, decode_into};

/// Frames of a [`Video`] not yet decoded: one frame (a sample `[H, W,
/// 3]`) or a window of them (`[T, H, W, 3]`; with the video's
/// [`layout`](Video::layout), `[3, H, W]` and `[T, 3, H, W]`).
///
/// It is what a sample holds where its frames are decoded by the
/// collate: [`DefaultCollate`](adl_core::collate::DefaultCollate) makes of
/// a batch of them one array, `[B, H, W, 3]` or `[B, T, H, W, 3]`, its
/// memory from the loader's pool, the frames of the whole batch grouped by
/// file and by group of pictures, each group decoded once for all the
/// frames wanted from it (the window of a sample and its neighbours' in
/// one decode), each frame converted into its place in the batch.
/// [`decode`](Frames::decode) decodes one sample's alone.
///
/// ```
/// use adl::Collate;
/// use adl::collate::DefaultCollate;
/// use adl::files::Video;
/// use adl::files::video::Frames;
///
/// # let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/video");
/// let video = Video::open(data.join("h264.mp4"))?;
/// // Two samples, each a window of the frame before and the frame.
/// let samples = vec![Frames::window(&video, &[3, 4])?, Frames::window(&video, &[9, 10])?];
/// let batch = DefaultCollate.collate(samples)?;
/// assert_eq!(batch.shape(), &[2, 2, 48, 64, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Frames {
    video: Video,
    /// The file's frames.
    frames: Vec<usize>,
    /// Whether the sample is one frame (no window axis).
    single: bool,
}

impl Frames {
    /// Sample `index` of `video`, one frame.
    pub fn one(video: &Video, index: usize) -> Result<Frames> {
        Ok(Frames {
            frames: video.file_frames_of(&[index])?,
            video: video.clone(),
            single: true,
        })
    }

    /// Samples `indices` of `video` (repeats allowed), a window of frames.
    pub fn window(video: &Video, indices: &[usize]) -> Result<Frames> {
        Ok(Frames {
            frames: video.file_frames_of(indices)?,
            video: video.clone(),
            single: false,
        })
    }

    /// The shape of the decoded sample.
    pub fn shape(&self) -> Vec<usize> {
        let frame = self.video.sample_shape();
        match self.single {
            true => frame.to_vec(),
            false => std::iter::once(self.frames.len()).chain(frame).collect(),
        }
    }

    /// The frames decoded: `[H, W, 3]` or `[T, H, W, 3]`.
    pub fn decode(&self) -> Result<ArrayD<u8>> {
        let (file, output) = self.video.decoding();
        let mut out = vec![0u8; self.frames.len() * output.len()];
        let slots: Vec<usize> = (0..self.frames.len()).collect();
        decode_into(file, output, &self.frames, &slots, &mut out)
            .map_err(|e| e.in_sensor(self.video.name(), None))?;
        ArrayD::from_shape_vec(IxDyn(&self.shape()), out)
            .map_err(|e| Error::internal("Frames::decode", e))
    }
}

/// Builds a batch of [`Frames`]: the frames noted as samples are pushed,
/// decoded at [`finish`](BatchBuilder::finish).
pub struct FramesBuilder {
    /// The batch's shape.
    shape: Vec<usize>,
    output: Output,
    single: bool,
    /// Frames per sample.
    per_sample: usize,
    /// Every frame wanted, by file: the file's sensor (any of those read),
    /// then each frame and its slot in the batch.
    by_file: BTreeMap<u64, (Video, Vec<usize>, Vec<usize>)>,
    values: Vec<u8>,
}

impl Collatable for Frames {
    type Batch = ArrayD<u8>;
    type Builder = FramesBuilder;

    fn builder(first: &Self, len: usize) -> FramesBuilder {
        Frames::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> FramesBuilder {
        let (_, output) = first.video.decoding();
        let shape: Vec<usize> = std::iter::once(len).chain(first.shape()).collect();
        let total = shape.iter().product();
        let mut values: Vec<u8> = buffers.take(total);
        values.resize(total, 0);
        FramesBuilder {
            shape,
            output,
            single: first.single,
            per_sample: first.frames.len(),
            by_file: BTreeMap::new(),
            values,
        }
    }
}

impl BatchBuilder<Frames> for FramesBuilder {
    type Batch = ArrayD<u8>;

    fn push(&mut self, item: Frames, position: usize) -> Result<()> {
        let (file, output) = item.video.decoding();
        if output != self.output
            || item.single != self.single
            || item.frames.len() != self.per_sample
        {
            return Err(Error::collate(
                position,
                format!(
                    "frames of shape {:?} (sensor `{}`), but sample 0's are {:?}",
                    item.shape(),
                    item.video.name(),
                    &self.shape[1..]
                ),
            ));
        }
        let first_slot = position * self.per_sample;
        let (_, frames, slots) = self
            .by_file
            .entry(file.id())
            .or_insert_with(|| (item.video.clone(), Vec::new(), Vec::new()));
        frames.extend_from_slice(&item.frames);
        slots.extend(first_slot..first_slot + self.per_sample);
        Ok(())
    }

    fn finish(mut self) -> Result<ArrayD<u8>> {
        for (video, frames, slots) in self.by_file.values() {
            let (file, output) = video.decoding();
            decode_into(file, output, frames, slots, &mut self.values)
                .map_err(|e| e.in_sensor(video.name(), None))?;
        }
        ArrayD::from_shape_vec(IxDyn(&self.shape), self.values)
            .map_err(|e| Error::internal("FramesBuilder::finish", e))
    }
}

//! W4 "on-disk-multimodal" (`bench/W4.md`): a recording on disk, read
//! and decoded by adl's file-backed sensors, synchronized to the camera.
//!
//! Each trace folder of the dataset is a [`Recording`] of four sensors,
//! each the file-backed sensor of its folder: the camera's JPEGs
//! ([`Images`], decoded in [`W4_LAYOUT`]), the radar array ([`Npy`],
//! memory-mapped), the IMU table ([`Table`]) seen through a cropped
//! [`Window`] of 20 rows, and the lidar scans ([`NpyFiles`], a `.npy` file
//! per scan), synchronized by [`Nearest`] to the camera within 50 ms. The
//! traces are concatenated in name order by [`Concat::open`]; [`W4Data`]
//! adds to each synchronized sample the spec's `t` and `idx` (which
//! sensor reading each field is). [`W4Transform`] is the per-sample
//! transform, [`W4Sample`] what it gives and [`W4SampleBatch`] a batch.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use adl::exec::SampleRng;
use adl::files::{
    CropDecoder, EncodedImage, EncodedImages, Images, Latency, Location, Npy, NpyFiles, Table,
};
use adl::ndarray::{Array1, Array2, Array3, Ix2};
use adl::prelude::*;
use adl::sync::Nearest;
use adl::transform::{ImageLayout, RandomResizedCrop, Region};
use adl::{Concat, Metadata, Origin, Window};

use super::{W2_MEAN, W2_STD};

/// W4's samples per batch.
pub const W4_BATCH: usize = 32;
/// The IMU rows of a sample's window (the last is the synchronized one).
pub const W4_IMU_WINDOW: usize = 20;
/// The side of a sample's image.
pub const W4_CROP: usize = 224;
/// The synchronization's tolerance, in seconds (strict).
pub const W4_TOLERANCE: f64 = 0.05;
/// The radar frame's shape.
pub const W4_RADAR: [usize; 2] = [64, 256];
/// The layout the camera decodes its frames into and the crop works in
/// (the sample's image is `[3, 224, 224]` whatever it is).
pub const W4_LAYOUT: ImageLayout = ImageLayout::Hwc;

/// How each sensor of a trace is read: from the disk as it is
/// ([`Local`]), or behind a delay per read ([`Remote`]).
pub trait Reads: Clone + Send + Sync + 'static {
    /// A sensor `S` read this way.
    type Of<S: Sensor + Send + Sync + 'static>: Sensor<Sample = S::Sample> + Send + Sync + 'static;

    /// `sensor`, read this way.
    fn wrap<S: Sensor + Send + Sync + 'static>(&self, sensor: S) -> Self::Of<S>;
}

/// Every read from the local disk, as it is.
#[derive(Debug, Clone, Copy)]
pub struct Local;

impl Reads for Local {
    type Of<S: Sensor + Send + Sync + 'static> = S;

    fn wrap<S: Sensor + Send + Sync + 'static>(&self, sensor: S) -> S {
        sensor
    }
}

/// Every read of every sensor waiting first, as behind a remote store
/// ([`Latency`]): a sample's read waits once per sensor.
#[derive(Debug, Clone, Copy)]
pub struct Remote(pub Duration);

impl Reads for Remote {
    type Of<S: Sensor + Send + Sync + 'static> = Latency<S>;

    fn wrap<S: Sensor + Send + Sync + 'static>(&self, sensor: S) -> Latency<S> {
        Latency::new(sensor, self.0)
    }
}

/// The four sensors of a W4 trace.
#[derive(SensorSet)]
#[sensor_set(sample = W4Frame)]
pub struct W4Rig<C, R, I, L> {
    /// The camera: its JPEG files, decoded by the transform (only the
    /// crop, [`CropDecoder`]) into RGB `u8` in [`W4_LAYOUT`].
    pub camera: C,
    /// The radar: `f32 [64, 256]` frames.
    pub radar: R,
    /// The IMU, a window of its last 20 rows: 20 rows of 6 values.
    pub imu: I,
    /// The lidar: `f32 [n, 4]` scans.
    pub lidar: L,
}

/// The sensors of a trace read as `R` says.
pub type W4Sensors<R> = W4Rig<
    <R as Reads>::Of<EncodedImages>,
    <R as Reads>::Of<Npy<f32, Ix2>>,
    <R as Reads>::Of<Window<Table>>,
    <R as Reads>::Of<NpyFiles<f32, Ix2>>,
>;

/// A W4 trace: its sensors, synchronized.
pub type W4Trace<R> = Recording<W4Sensors<R>>;

/// A synchronized sample as read, before the transform.
#[derive(Debug, Clone)]
pub struct W4Raw {
    /// The camera frame's file, read, not decoded.
    pub camera: EncodedImage,
    /// The radar frame, `f32 [64, 256]`.
    pub radar: Array2<f32>,
    /// The IMU window, 20 rows of 6 values, oldest first.
    pub imu: Vec<Array1<f64>>,
    /// The lidar scan, `f32 [n, 4]`.
    pub lidar: Array2<f32>,
    /// The camera timestamp, seconds.
    pub t: f64,
    /// (trace, camera frame, radar frame, last IMU row, lidar scan).
    pub idx: [i64; 5],
}

/// The trace folders of the dataset `root`: its sub-folders, in name
/// order.
pub fn trace_folders(root: &Path) -> adl::Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(root).map_err(|e| {
        adl::Error::file(
            root,
            format!("cannot list the dataset ({e}); write one with bench/peer/w4/generate.py DIR"),
        )
    })?;
    let mut folders = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| adl::Error::file(root, format!("cannot list: {e}")))?;
        if entry.path().is_dir() {
            folders.push(entry.path());
        }
    }
    folders.sort();
    if folders.is_empty() {
        return Err(adl::Error::file(root, "holds no trace folders"));
    }
    Ok(folders)
}

/// Every file of the dataset's traces (what a cold start takes out of the
/// page cache).
pub fn dataset_files(root: &Path) -> adl::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    for folder in trace_folders(root)? {
        walk(&folder, &mut files)
            .map_err(|e| adl::Error::file(&folder, format!("cannot list: {e}")))?;
    }
    files.sort();
    Ok(files)
}

/// The trace in `folder`, its sensors read as `reads` says.
pub fn open_trace<R: Reads>(folder: &Location, reads: &R) -> adl::Result<W4Trace<R>> {
    let name = folder.file_name().unwrap_or_default().to_owned();
    let camera = Images::in_folder(folder.join("camera"))?
        .layout(W4_LAYOUT)
        .encoded();
    let radar: Npy<f32, Ix2> = Npy::in_folder(folder.join("radar"))?;
    if radar.sample_shape() != W4_RADAR {
        return Err(adl::Error::file(
            folder.join("radar/data.npy").to_string(),
            format!(
                "radar frames are {:?}; W4's are {W4_RADAR:?}",
                radar.sample_shape()
            ),
        ));
    }
    let imu = Table::open("imu", folder.join("imu/data.csv"), "t")?;
    if imu.columns().len() != 6 {
        return Err(adl::Error::file(
            folder.join("imu/data.csv").to_string(),
            format!(
                "has the columns {:?} beside t; W4's IMU has six",
                imu.columns()
            ),
        ));
    }
    // The window of the 20 rows ending at each row, cropped: its
    // timestamps are the rows 19.. of the table.
    let imu = Window::new(imu, W4_IMU_WINDOW - 1, 0)?;
    let lidar: NpyFiles<f32, Ix2> = NpyFiles::in_folder(folder.join("lidar"))?;
    let sensors = W4Rig {
        camera: reads.wrap(camera),
        radar: reads.wrap(radar),
        imu: reads.wrap(imu),
        lidar: reads.wrap(lidar),
    };
    Recording::new(name, sensors, &Nearest::new("camera", W4_TOLERANCE)?)
}

/// W4 as a dataset: the traces' synchronized samples, concatenated in
/// trace order, each with its camera timestamp and the indices of its
/// sensor readings (`t`, `idx`).
pub struct W4Data<R: Reads> {
    traces: Concat<W4Trace<R>>,
    /// Per sample: (trace, camera frame, radar frame, last IMU row, lidar
    /// scan).
    rows: Arc<[[i64; 5]]>,
    /// Per sample: the camera timestamp.
    times: Arc<[f64]>,
}

impl<R: Reads> W4Data<R> {
    /// The dataset in the folder `root` (a sub-folder per trace), read at
    /// `at` (`root` itself, or the same dataset in object storage), its
    /// sensors read as `reads` says. A trace that cannot be opened fails
    /// the whole (an [`adl::Error::Trace`] naming it).
    pub fn open_at(root: &Path, at: &Location, reads: R) -> adl::Result<Self> {
        let folders = trace_folders(root)?;
        let keys: Vec<String> = folders
            .iter()
            .map(|f| {
                f.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let (traces, _) = Concat::open(keys, OnError::Fail, |key: &String| {
            open_trace(&at.join(key), &reads)
        })?;
        let mut rows = Vec::with_capacity(traces.len());
        let mut times = Vec::with_capacity(traces.len());
        for (number, trace) in traces.parts().iter().enumerate() {
            let indices = trace
                .indices()
                .ok_or_else(|| adl::Error::internal("W4Data::open_at", "a synchronized trace"))?;
            let column = |name: &str| {
                indices
                    .column(name)
                    .ok_or_else(|| adl::Error::internal("W4Data::open_at", "a column per sensor"))
            };
            let (c, a, w, l) = (
                column("camera")?,
                column("radar")?,
                column("imu")?,
                column("lidar")?,
            );
            let camera_times = trace.sensors().camera.metadata().timestamps();
            for k in 0..trace.len() {
                rows.push([
                    number as i64,
                    i64::from(c[k]),
                    i64::from(a[k]),
                    // The window's last row.
                    i64::from(w[k]) + (W4_IMU_WINDOW as i64 - 1),
                    i64::from(l[k]),
                ]);
                times.push(camera_times[c[k] as usize]);
            }
        }
        Ok(W4Data {
            traces,
            rows: rows.into(),
            times: times.into(),
        })
    }

    /// The traces.
    pub fn traces(&self) -> &Concat<W4Trace<R>> {
        &self.traces
    }

    /// Sample `i`'s (trace, camera frame, radar frame, last IMU row,
    /// lidar scan).
    pub fn row(&self, i: usize) -> [i64; 5] {
        self.rows[i]
    }
}

impl<R: Reads> Dataset for W4Data<R> {
    type Sample = W4Raw;

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn get(&self, index: usize) -> adl::Result<W4Raw> {
        self.get_fetched(index, adl::storage::Fetched::Nothing)
    }

    /// The traces' sample, with what the read stage read for it.
    fn get_fetched(&self, index: usize, fetched: adl::storage::Fetched) -> adl::Result<W4Raw> {
        let frame = self.traces.get_fetched(index, fetched)?;
        Ok(W4Raw {
            camera: frame.camera,
            radar: frame.radar,
            imu: frame.imu,
            lidar: frame.lidar,
            t: self.times[index],
            idx: self.rows[index],
        })
    }

    fn storage(&self) -> Option<&dyn adl::storage::Storage<Origin = Origin>> {
        self.traces.storage()
    }
}

/// A transformed W4 sample (`bench/W4.md` §2.2); its batch,
/// [`W4SampleBatch`], is §2.3's.
#[derive(Debug, Clone, adl::Collate)]
#[collate(derive(Debug))]
pub struct W4Sample {
    /// The image: its crop, normalised into `f32 [3, 224, 224]` in its
    /// row of the batch.
    #[collate(with = adl::collate::WrittenRows)]
    pub image: W4Image,
    /// In verify mode, the sum of the image's `u8` values before
    /// normalisation (0 otherwise).
    pub image_u8_sum: u64,
    /// ln(1 + |radar|), `f32 [64, 256]`.
    pub radar: Array2<f32>,
    /// The IMU window, `f32 [20, 6]`.
    pub imu: Array2<f32>,
    /// The lidar scan, `f32 [n, 4]`: padded to the batch's longest, with
    /// a mask.
    #[collate(pad)]
    pub points: Array2<f32>,
    /// The same scan, packed: the batch's scans one after the other, with
    /// their offsets.
    #[collate(packed)]
    pub points_packed: Array2<f32>,
    /// The camera timestamp, seconds.
    pub t: f64,
    /// (trace, camera frame, radar frame, last IMU row, lidar scan).
    pub idx: Array1<i64>,
}

/// The per-sample transform of W4 (`bench/W4.md` §2.2): the image
/// cropped (a random resized crop and flip, drawn from the sample's
/// generator, or in verify mode the central 448 x 448 box-averaged to 224)
/// and normalised; the radar's log-magnitude; the IMU window as `f32`; the
/// lidar scan as it is, twice (padded and packed).
#[derive(Debug, Clone, Copy)]
pub struct W4Transform {
    /// Verify mode (§3.1): the deterministic image transform.
    pub verify: bool,
}

/// `LUT[c][v]`: the normalised value of channel `c`'s `u8` value `v`,
/// `(f32(v) / 255 - MEAN[c]) / STD[c]` in `f32` (the same bits as
/// computing it each time).
pub fn normalise_table() -> &'static [[f32; 256]; 3] {
    static TABLE: std::sync::OnceLock<[[f32; 256]; 3]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [[0f32; 256]; 3];
        for (c, row) in table.iter_mut().enumerate() {
            for (v, out) in row.iter_mut().enumerate() {
                *out = (v as f32 / 255.0 - W2_MEAN[c]) / W2_STD[c];
            }
        }
        table
    })
}

/// The verify-mode image (§3.1) of an RGB frame in [`W4_LAYOUT`]: rows
/// 16..464 and columns 96..544 of a 480 x 640 frame (the central 448 x
/// 448), each 2x2 block averaged as `(a + b + c + d + 2) >> 2`: a 224 x
/// 224 image in the same layout.
pub fn center_u8(frame: &Array3<u8>) -> adl::Result<Array3<u8>> {
    let side = 2 * W4_CROP;
    let (h, w) = W4_LAYOUT.height_width(frame.shape()).unwrap_or((0, 0));
    if frame.shape()[W4_LAYOUT.channel_axis()] != 3 || h < side || w < side {
        return Err(adl::Error::invalid(
            "W4 verify image",
            format!(
                "a frame of shape {:?}; the central {side} x {side} of an RGB {} frame is taken",
                frame.shape(),
                W4_LAYOUT.describe()
            ),
        ));
    }
    let (top, left) = ((h - side) / 2, (w - side) / 2);
    let mean = |c: usize, y: usize, x: usize| {
        let at = |dy: usize, dx: usize| {
            let (y, x) = (top + 2 * y + dy, left + 2 * x + dx);
            u16::from(match W4_LAYOUT {
                ImageLayout::Hwc => frame[[y, x, c]],
                _ => frame[[c, y, x]],
            })
        };
        ((at(0, 0) + at(0, 1) + at(1, 0) + at(1, 1) + 2) >> 2) as u8
    };
    Ok(match W4_LAYOUT {
        ImageLayout::Hwc => Array3::from_shape_fn((W4_CROP, W4_CROP, 3), |(y, x, c)| mean(c, y, x)),
        _ => Array3::from_shape_fn((3, W4_CROP, W4_CROP), |(c, y, x)| mean(c, y, x)),
    })
}

/// The normalised `f32 [3, 224, 224]` values of a 224 x 224 RGB image in
/// [`W4_LAYOUT`] (`pixels`, in standard order), mirrored left to right
/// where `flip`, appended to `image` (a row of 224 values at a time, each
/// written once).
fn normalise_onto(pixels: &[u8], flip: bool, image: &mut Vec<f32>) {
    let table = normalise_table();
    let plane = W4_CROP * W4_CROP;
    let column = move |x: usize| if flip { W4_CROP - 1 - x } else { x };
    match W4_LAYOUT {
        ImageLayout::Hwc => {
            for (c, lut) in table.iter().enumerate() {
                for row in pixels.chunks_exact(3 * W4_CROP) {
                    image.extend((0..W4_CROP).map(|x| lut[usize::from(row[3 * column(x) + c])]));
                }
            }
        }
        _ => {
            for (channel, lut) in pixels.chunks_exact(plane).zip(table) {
                for row in channel.chunks_exact(W4_CROP) {
                    image.extend((0..W4_CROP).map(|x| lut[usize::from(row[column(x)])]));
                }
            }
        }
    }
}

/// A sample's image as the transform leaves it: the 224 x 224 crop in
/// `u8` ([`W4_LAYOUT`]) and whether to mirror it. Its last step, the
/// normalisation into `f32 [3, 224, 224]` (§2.2), is written by the
/// collate straight into the sample's row of the batch
/// ([`WrittenRows`](adl::collate::WrittenRows)): no array of its own, no
/// copy.
#[derive(Debug, Clone)]
pub struct W4Image {
    /// The crop's pixels.
    pub pixels: Array3<u8>,
    /// Whether it is mirrored left to right.
    pub flip: bool,
}

impl adl::collate::WriteRow for W4Image {
    type Elem = f32;
    type Dim = adl::ndarray::Ix3;

    fn row_shape(&self) -> adl::ndarray::Ix3 {
        adl::ndarray::Ix3(3, W4_CROP, W4_CROP)
    }

    fn write_row(&self, batch: &mut Vec<f32>) -> adl::Result<()> {
        let shape = match W4_LAYOUT {
            ImageLayout::Hwc => [W4_CROP, W4_CROP, 3],
            _ => [3, W4_CROP, W4_CROP],
        };
        let pixels = (self.pixels.as_slice())
            .filter(|_| self.pixels.shape() == shape)
            .ok_or_else(|| {
                adl::Error::invalid(
                    "W4 image",
                    format!(
                        "a crop of shape {:?}, not {shape:?} in standard layout",
                        self.pixels.shape()
                    ),
                )
            })?;
        normalise_onto(pixels, self.flip, batch);
        Ok(())
    }
}

impl W4Transform {
    /// The 224 x 224 image of `frame` (in [`W4_LAYOUT`]), and whether to
    /// flip it: decoded in part ([`CropDecoder`]), the crop only. Verify
    /// mode decodes the central 448 x 448 exactly (the same pixels as the
    /// whole frame's), then averages its 2x2 blocks.
    fn image_u8(
        &self,
        frame: &EncodedImage,
        rng: &mut SampleRng,
    ) -> adl::Result<(Array3<u8>, bool)> {
        let (h, w) = frame.size();
        if self.verify {
            // A frame smaller than that: the decoder refuses the crop,
            // naming the file.
            let side = 2 * W4_CROP;
            let center = Region {
                top: h.saturating_sub(side) / 2,
                left: w.saturating_sub(side) / 2,
                height: side,
                width: side,
            };
            let whole = RandomResizedCrop::new(side).layout(W4_LAYOUT);
            let pixels = CropDecoder::new(whole).exact().decode(frame, center)?;
            return Ok((center_u8(&pixels)?, false));
        }
        let crop = RandomResizedCrop::new(W4_CROP).layout(W4_LAYOUT);
        let region = crop.draw(h, w, rng);
        let image = CropDecoder::new(crop).decode(frame, region)?;
        Ok((image, rng.chance(0.5)))
    }

    /// The sample `raw`, transformed.
    pub fn transform(&self, raw: W4Raw, rng: &mut SampleRng) -> adl::Result<W4Sample> {
        let (pixels, flip) = self.image_u8(&raw.camera, rng)?;
        let image_u8_sum = if self.verify {
            pixels.iter().map(|&v| u64::from(v)).sum()
        } else {
            0
        };
        let image = W4Image { pixels, flip };
        // ln(1 + |x|) in f64, rounded to f32 (exact for W4's integer
        // radar: see W4.md).
        let radar = raw.radar.mapv(|x| (1.0 + f64::from(x).abs()).ln() as f32);
        let mut imu = Vec::with_capacity(raw.imu.len() * 6);
        for row in &raw.imu {
            imu.extend(row.iter().map(|&v| v as f32));
        }
        let imu = Array2::from_shape_vec((raw.imu.len(), imu.len() / raw.imu.len().max(1)), imu)
            .map_err(|e| adl::Error::internal("W4Transform", e))?;
        Ok(W4Sample {
            image,
            image_u8_sum,
            radar,
            imu,
            points_packed: raw.lidar.clone(),
            points: raw.lidar,
            t: raw.t,
            idx: Array1::from(raw.idx.to_vec()),
        })
    }
}

#[adl::transform(name = "w4_transform")]
impl W4Transform {
    fn apply(&self, raw: W4Raw, rng: &mut SampleRng) -> adl::Result<W4Sample> {
        self.transform(raw, rng)
    }
}

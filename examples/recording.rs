//! A recording on disk — a folder per drive, a camera of JPEG frames, a
//! radar `.npy` array and an IMU table — opened with adl's file-backed
//! sensors, synchronized to the camera, and loaded in batches: the frames
//! decoded, cropped and flipped on the workers while a read stage reads
//! the files ahead.
//!
//! ```text
//! cargo run --example recording -- [FOLDER]
//! ```
//!
//! FOLDER defaults to `examples/data/recording`, three drives written by
//! `examples/data/make_recording.py`; the third has a radar clock that goes
//! back, and is left out with the reason said.

use std::path::{Path, PathBuf};

use adl::files::{Images, Npy, Table};
use adl::ndarray::{Array1, Array2, Array3, Array4, Axis, Ix2};
use adl::prelude::*;
use adl::sync::Nearest;
use adl::transform::{RandomFlip, RandomResizedCrop};
use adl::{Concat, Origin, Window};

/// The sensors of one drive.
#[derive(SensorSet)]
#[sensor_set(sample = Frame, derive(Debug, Clone))]
struct Rig<C, R, I> {
    camera: C,
    radar: R,
    imu: I,
}

/// The IMU's last 5 readings up to each one (its columns but time),
/// stacked.
type ImuWindows = adl::TryMapped<Window<Table>, fn(Vec<Array1<f64>>) -> adl::Result<Array2<f64>>>;

type Drive = Recording<Rig<Images, Npy<f32, Ix2>, ImuWindows>>;

fn stack(rows: Vec<Array1<f64>>) -> adl::Result<Array2<f64>> {
    let views: Vec<_> = rows.iter().map(|r| r.view()).collect();
    Ok(adl::ndarray::stack(Axis(0), &views).map_err(adl::BoxError::from)?)
}

/// One drive's folder, opened: every file checked, the sensors
/// synchronized to the camera (nearest reading within 30 ms).
fn open(folder: &Path) -> adl::Result<Drive> {
    let camera = Images::in_folder(folder.join("camera"))?;
    let radar = Npy::in_folder(folder.join("radar"))?;
    let imu = Table::open("imu", folder.join("imu.csv"), "t")?;
    let imu = Window::new(imu, 4, 0)?.try_map(stack as fn(_) -> _);
    let name = folder.file_name().map_or_else(
        || folder.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Recording::new(
        name,
        Rig { camera, radar, imu },
        &Nearest::new("camera", 0.03)?,
    )
}

#[transform]
fn to_unit(frame: Array3<u8>) -> Array3<f32> {
    frame.mapv(|v| f32::from(v) / 255.0)
}

#[transform]
fn log_magnitude(radar: Array2<f32>) -> Array2<f32> {
    radar.mapv(|x| x.abs().ln_1p())
}

#[transform]
fn to_f32(window: Array2<f64>) -> Array2<f32> {
    window.mapv(|x| x as f32)
}

/// A batch: the crops, the radar frames, the IMU windows.
#[derive(Debug, adl::Recycle)]
struct DriveBatch {
    /// `f32[B, 32, 32, 3]` in `[0, 1]`.
    camera: Array4<f32>,
    /// `f32[B, 8, 16]`, `ln(1 + |x|)`.
    radar: Array3<f32>,
    /// `f32[B, 5, 3]`: the acceleration of the last 5 readings.
    imu: Array3<f32>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = match std::env::args().nth(1) {
        Some(folder) => PathBuf::from(folder),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/recording"),
    };
    // A drive per folder, by name.
    let mut drives: Vec<String> = std::fs::read_dir(&root)
        .map_err(|e| format!("{}: cannot list the recording: {e}", root.display()))?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    drives.sort();

    // Every drive that opens; the others left out, with the reason.
    let (dataset, report) = Concat::open(drives, OnError::Skip, |drive| open(&root.join(drive)))?;
    println!("{report}");
    println!("{} synchronized samples", dataset.len());
    let origin = Origin::of(&dataset, 0)?;
    println!("sample 0 comes from {origin}");

    let pipeline = pipeline! {
        Frame<Array3<u8>, Array2<f32>, Array2<f64>> {
            camera: {
                sample: RandomResizedCrop::new(32) -> RandomFlip::horizontal() -> to_unit,
                collate: default,
            },
            radar: { sample: log_magnitude, collate: default },
            imu: { sample: to_f32, collate: default },
        },
        post: |b| DriveBatch { camera: b.camera, radar: b.radar, imu: b.imu },
    };
    let loader = Loader::new(dataset, pipeline)
        .batch_size(4)
        .shuffle(7)
        .workers(2)
        .build()?;
    println!("the plan:\n{}", loader.plan().schedule());

    let mut samples = 0;
    for (k, batch) in loader.epoch(0).enumerate() {
        let batch = batch?;
        if k == 0 {
            println!(
                "batch 0: camera {:?}, radar {:?}, imu {:?}",
                batch.camera.shape(),
                batch.radar.shape(),
                batch.imu.shape()
            );
        }
        samples += batch.camera.len_of(Axis(0));
    }
    println!("{samples} samples loaded\n");
    println!("{}", loader.statistics());
    Ok(())
}

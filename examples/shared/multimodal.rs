//! The multimodal example's recording and pipeline: three synthetic
//! sensors of three sample types (a camera at 10 Hz, a radar at 20 Hz, an
//! IMU at 100 Hz, each with clock jitter), synchronized into one typed
//! sample, and a pipeline with one branch per sensor. Shared by
//! `examples/multimodal.rs` and `tests/suite/example_graphs.rs`.

use adl::Window;
use adl::exec::mix64;
use adl::prelude::*;
use ndarray::{Array1, Array2, Array3, Array4, Axis};

/// The rig: one field per sensor, any sensor types. `#[derive(SensorSet)]`
/// gives `Frame`, one field per sensor with that sensor's sample type.
#[derive(SensorSet)]
#[sensor_set(sample = Frame, derive(Debug, Clone))]
pub struct Rig<C, R, I> {
    /// RGB frames, `u8[3, 16, 16]`, 10 Hz.
    pub camera: C,
    /// Range-Doppler maps, `f32[8, 32]` (linear power), 20 Hz.
    pub radar: R,
    /// The last 10 IMU readings (`f32[10, 6]`: accel and gyro) up to each
    /// reading, 100 Hz.
    pub imu: I,
}

/// A synchronized sample, with its types written out.
pub type Sample = Frame<Array3<u8>, Array2<f32>, Array2<f32>>;

/// A number in `[0, 1)` from `(stream, i, j)`.
fn unit(stream: u64, i: usize, j: usize) -> f32 {
    (mix64((stream << 56) ^ ((i as u64) << 24) ^ j as u64) >> 40) as f32 / (1u64 << 24) as f32
}

/// `n` timestamps at `hz` with up to ±20% of a period of jitter.
fn jittered(name: &str, hz: f64, n: usize, stream: u64) -> adl::Result<Timestamps> {
    let period = 1.0 / hz;
    let times = (0..n)
        .map(|i| i as f64 * period + (f64::from(unit(stream, i, 0)) - 0.5) * 0.4 * period)
        .collect();
    Timestamps::new(name, times)
}

/// The rig over `seconds` of recording.
pub fn rig(
    seconds: usize,
) -> adl::Result<
    Rig<
        impl Sensor<Sample = Array3<u8>> + Send + Sync + 'static,
        impl Sensor<Sample = Array2<f32>> + Send + Sync + 'static,
        impl Sensor<Sample = Array2<f32>> + Send + Sync + 'static,
    >,
> {
    let camera = Series::new("camera", jittered("camera", 10.0, 10 * seconds, 1)?, |i| {
        Ok(Array3::from_shape_fn((3, 16, 16), |(c, h, w)| {
            (unit(2, i, c * 256 + h * 16 + w) * 256.0) as u8
        }))
    });
    let radar = Series::new("radar", jittered("radar", 20.0, 20 * seconds, 3)?, |i| {
        Ok(Array2::from_shape_fn((8, 32), |(r, d)| {
            unit(4, i, r * 32 + d) + 0.01
        }))
    });
    let imu = Series::new("imu", jittered("imu", 100.0, 100 * seconds, 5)?, |i| {
        Ok(Array1::from_shape_fn(6, |k| unit(6, i, k) * 2.0 - 1.0))
    });
    // The IMU as a sensor of windows: the last 10 readings, sliding inside
    // the recording at its start, stacked into one array.
    let imu = Window::new(imu, 9, 0)?.clamped().try_map(|readings| {
        let views: Vec<_> = readings.iter().map(|r| r.view()).collect();
        Ok(ndarray::stack(Axis(0), &views).map_err(adl::BoxError::from)?)
    });
    Ok(Rig { camera, radar, imu })
}

/// Camera frames to floats in `[0, 1]`.
#[transform]
pub fn to_unit(frame: Array3<u8>) -> Array3<f32> {
    frame.mapv(|v| f32::from(v) / 255.0)
}

/// Radar power to decibels.
#[transform]
pub fn to_db(power: Array2<f32>) -> Array2<f32> {
    power.mapv(|p| 10.0 * p.log10())
}

/// Subtract each IMU window's mean reading.
#[transform]
pub fn center(window: Array2<f32>) -> Array2<f32> {
    match window.mean_axis(Axis(0)) {
        Some(mean) => window - mean,
        None => window,
    }
}

/// A batch: one field per sensor, batch axis first (its memory recycled by
/// the loader).
#[derive(Debug, adl::Recycle)]
pub struct RigBatch {
    /// `f32[B, 3, 16, 16]` in `[0, 1]`.
    pub camera: Array4<f32>,
    /// `f32[B, 8, 32]`, dB.
    pub radar: Array3<f32>,
    /// `f32[B, 10, 6]`, each window centred.
    pub imu: Array3<f32>,
}

/// One branch per sensor, each with its own collate, merged into a
/// [`RigBatch`].
pub fn pipeline() -> adl::description::Described<impl Pipeline<Sample, Processed = RigBatch>> {
    pipeline! {
        Frame<Array3<u8>, Array2<f32>, Array2<f32>> {
            camera: { sample: to_unit, collate: default },
            radar: { sample: to_db, collate: default },
            imu: { sample: center, collate: default },
        },
        post: |b| RigBatch { camera: b.camera, radar: b.radar, imu: b.imu },
    }
}

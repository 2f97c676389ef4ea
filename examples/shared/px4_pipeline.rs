//! The PX4 example's pipeline, written with the DSL: shared by the example
//! (`examples/px4_trace.rs`) and by the snapshot test of its graph
//! (`tests/suite/example_graphs.rs`).
//!
//! A synchronized PX4 sample is a record of sensors, each a record of
//! fields. `to_flight` picks what a model would use; then one branch per
//! field of `Flight`, each with its own collate and batch nodes.

use adl::Record;
use adl::description::Described;
use adl::prelude::*;
use ndarray::{Array1, Axis};

/// A synchronized PX4 sample: sensor name → field name → values.
pub type PxSample = Record<Record<Array1<f64>>>;

/// Standard gravity, m/s².
const G: f32 = 9.806_65;

/// One synchronized flight sample, as a model sees it.
#[derive(Debug, Clone)]
pub struct Flight {
    /// Inertial measurements.
    pub imu: Imu,
    /// Where the vehicle is and how it is oriented.
    pub pose: Pose,
}

/// The IMU part of a [`Flight`].
#[derive(Debug, Clone, Collate)]
#[collate(derive(Debug))]
pub struct Imu {
    /// Angular rate, rad/s, `[x, y, z]`.
    pub gyro: Array1<f32>,
    /// Specific force, `[x, y, z]` (m/s² from the log, in g after `accel_in_g`).
    pub accel: Array1<f32>,
}

/// The pose part of a [`Flight`].
#[derive(Debug, Clone, Collate)]
#[collate(derive(Debug))]
pub struct Pose {
    /// Attitude quaternion `[w, x, y, z]`.
    pub attitude: Array1<f32>,
    /// Local position `[x, y, z]`, m (NED).
    pub position: Array1<f32>,
    /// GPS altitude, m; `None` where the trace has no GPS (a log without
    /// one: every sample of the trace is then `None`, and so is the batch's).
    pub altitude: Option<f32>,
}

/// A batch of [`Flight`]s: one batch per branch (its memory recycled by
/// the loader).
#[derive(Debug, adl::Recycle)]
pub struct FlightBatch {
    /// The IMU batch: `gyro` and `accel` of shape `[batch, 3]`.
    pub imu: ImuBatch,
    /// The pose batch.
    pub pose: PoseBatch,
}

fn field(sample: &PxSample, sensors: &[&str], name: &str) -> Result<Array1<f32>, String> {
    let sensor = sensors
        .iter()
        .find_map(|s| sample.get(s))
        .ok_or_else(|| format!("the sample has none of the sensors {sensors:?}"))?;
    let values = sensor
        .get(name)
        .ok_or_else(|| format!("sensor {sensors:?} has no field `{name}`"))?;
    Ok(values.mapv(|v| v as f32))
}

/// The GPS topics, by the names PX4 has used.
pub const GPS: [&str; 2] = ["vehicle_gps_position", "sensor_gps"];

/// Pick the IMU, attitude, local position and GPS altitude out of a
/// synchronized PX4 sample (a missing sensor or field is an error naming
/// it, except the GPS, which is optional).
#[transform]
pub fn to_flight(sample: PxSample) -> Result<Flight, String> {
    let altitude = if GPS.iter().any(|s| sample.get(s).is_some()) {
        let altitude_mm = field(&sample, &GPS, "alt")?;
        Some(altitude_mm.first().copied().unwrap_or(f32::NAN) / 1000.0)
    } else {
        None
    };
    Ok(Flight {
        imu: Imu {
            gyro: field(&sample, &["sensor_combined"], "gyro_rad")?,
            accel: field(&sample, &["sensor_combined"], "accelerometer_m_s2")?,
        },
        pose: Pose {
            attitude: field(&sample, &["vehicle_attitude"], "q")?,
            position: ndarray::concatenate![
                Axis(0),
                field(&sample, &["vehicle_local_position"], "x")?,
                field(&sample, &["vehicle_local_position"], "y")?,
                field(&sample, &["vehicle_local_position"], "z")?
            ],
            altitude,
        },
    })
}

/// Express the accelerometer in g.
#[transform]
pub fn accel_in_g(imu: Imu) -> Imu {
    Imu {
        accel: imu.accel / G,
        ..imu
    }
}

/// Remove the batch's mean angular rate (a cheap bias estimate).
#[transform(batch)]
pub fn center_gyro(batch: ImuBatch) -> ImuBatch {
    let mean = batch
        .gyro
        .mean_axis(Axis(0))
        .unwrap_or_else(|| Array1::zeros(3));
    ImuBatch {
        gyro: &batch.gyro - &mean,
        ..batch
    }
}

/// The example's pipeline: `to_flight`, then the IMU and the pose each
/// collated in their own branch.
pub fn flight_pipeline() -> Described<impl Pipeline<PxSample, Processed = FlightBatch>> {
    pipeline! {
        pre: to_flight,
        Flight {
            imu: { sample: accel_in_g, collate: default, batch: center_gyro },
            pose: { collate: default },
        },
        post: |b| FlightBatch { imu: b.imu, pose: b.pose },
    }
}

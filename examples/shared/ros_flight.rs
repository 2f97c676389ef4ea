//! The ROS bag example's sensors and pipeline: shared by the example
//! (`examples/ros_bag.rs`) and the tests that run its plan
//! (`tests/suite/plan_runs.rs`).

use adl::collate::{Masked, MaskedBatch, Padded};
use adl::description::Described;
use adl::files::ros::views::{Imu, ImuBatch, Pose, PoseBatch};
use adl::files::ros::{Bag, Viewed};
use adl::ndarray::{Array2, Array3, Array4};
use adl::prelude::*;
use adl::sync::Nearest;
use adl::{Interpolated, Metadata};

/// The bag's sensors, synchronized to the camera.
#[derive(SensorSet)]
#[sensor_set(sample = Frame, derive(Debug, Clone))]
pub struct Rig<C, I, P, L> {
    camera: C,
    imu: I,
    pose: P,
    lidar: L,
}

/// A synchronized sample: a frame, the IMU and the pose at its stamp,
/// the nearest lidar scan.
pub type FlightSample = Frame<Array3<u8>, Masked<Imu>, Masked<Pose>, Array2<f32>>;

/// The bag's topics, synchronized.
pub type Flight = Recording<
    Rig<
        Viewed<Array3<u8>>,
        Interpolated<Viewed<Imu>>,
        Interpolated<Viewed<Pose>>,
        Viewed<Array2<f32>>,
    >,
>;

/// The bag's topics as sensors: the IMU and the pose evaluated at the
/// camera's stamps (across gaps up to 50 ms and 0.5 s), the lidar's
/// nearest scan (it turns at 1.3 Hz) within 400 ms of each frame.
pub fn open(bag: &Bag) -> adl::Result<Flight> {
    let camera = bag.topic("/camera/image")?.view::<Array3<u8>>()?;
    let stamps = camera.metadata().timestamps().to_vec();
    let imu = Interpolated::new(bag.topic("/imu")?.view::<Imu>()?, &stamps, 0.05)?;
    let pose = Interpolated::new(bag.topic("/pose")?.view::<Pose>()?, &stamps, 0.5)?;
    let lidar = bag.topic("/lidar")?.view::<Array2<f32>>()?;
    let rig = Rig {
        camera,
        imu,
        pose,
        lidar,
    };
    Recording::new("flight", rig, &Nearest::new("/camera/image", 0.4)?)
}

#[transform]
fn to_unit(frame: Array3<u8>) -> Array3<f32> {
    frame.mapv(|v| f32::from(v) / 255.0)
}

/// A batch: the frames, the IMU and the pose at each, the lidar scans.
#[derive(Debug, adl::Recycle)]
pub struct FlightBatch {
    /// `f32[B, H, W, 3]` in `[0, 1]`.
    pub camera: Array4<f32>,
    /// The IMU at each frame, and whether it was there to interpolate.
    pub imu: MaskedBatch<ImuBatch>,
    /// The pose at each frame (`position: [B, 3]`, `orientation: [B, 4]`).
    pub pose: MaskedBatch<PoseBatch>,
    /// `f32[B, N, 4]` (x, y, z, intensity), padded to the longest scan.
    pub lidar: Padded<f32, adl::ndarray::Ix3>,
}

/// The pipeline: each frame to `[0, 1]`, the IMU and the pose collated
/// with their masks, the lidar scans padded to the longest.
pub fn flight_pipeline() -> Described<impl Pipeline<FlightSample, Processed = FlightBatch>> {
    pipeline! {
        Frame<Array3<u8>, Masked<Imu>, Masked<Pose>, Array2<f32>> {
            camera: { sample: to_unit, collate: default },
            imu: { collate: default },
            pose: { collate: default },
            lidar: { collate: pad },
        },
        post: |b| FlightBatch { camera: b.camera, imu: b.imu, pose: b.pose, lidar: b.lidar },
    }
}

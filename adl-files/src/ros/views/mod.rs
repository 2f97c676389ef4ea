//! Typed views of the common message types, ready for a pipeline: a
//! [`Topic`](super::Topic)'s [`view`](super::Topic::view) is a sensor of
//! one of these instead of [`Message`]s, its type checked when the view is
//! made.
//!
//! | view | message types | what |
//! |---|---|---|
//! | `Array3<u8>` | `sensor_msgs/Image` (8-bit: rgb8, bgr8, rgba8, bgra8, mono8, 8UC1..4), `sensor_msgs/CompressedImage` (JPEG, PNG) | `[H, W, C]`, BGR reordered to RGB |
//! | `Array3<u16>` | `sensor_msgs/Image` (mono16, 16UC1..4) | `[H, W, C]` |
//! | `Array3<f32>` | `sensor_msgs/Image` (32FC1..4: depth) | `[H, W, C]` |
//! | `Array2<f32>` | `sensor_msgs/PointCloud2` | `[N, C]`, a column per field (ragged: collate with `pad` or `packed`) |
//! | [`Imu`] | `sensor_msgs/Imu` | orientation, angular velocity, linear acceleration |
//! | [`Fix`] | `sensor_msgs/NavSatFix` | latitude, longitude, altitude, status |
//! | [`Scan`] | `sensor_msgs/LaserScan` | ranges, intensities, angles |
//! | [`Pose`] | `geometry_msgs/Pose`, `PoseStamped`, `PoseWithCovarianceStamped`, `TransformStamped`, `nav_msgs/Odometry`, `tf2_msgs/TFMessage` (of one transform) | position, orientation |
//!
//! [`Imu`], [`Fix`] and [`Pose`] interpolate
//! ([`Interpolate`](adl_core::interpolate::Interpolate): vectors linearly,
//! orientations by slerp), so that an [`Interpolated`](adl_core::Interpolated)
//! sensor can evaluate them at a camera's stamps.

mod image;
mod motion;
mod points;
mod viewed;

pub use motion::{Fix, FixBatch, Imu, ImuBatch, Pose, PoseBatch};
pub use points::{Scan, ScanBatch, point_columns};
pub use viewed::Viewed;

use adl_core::Result;

use super::Message;

/// A typed view of messages of some types.
pub trait View: Sized {
    /// The message types it reads, as `pkg/Type` (`sensor_msgs/Image`).
    const TYPES: &'static [&'static str];

    /// The view of `message` (of one of [`TYPES`](View::TYPES)). A message
    /// whose fields do not make one (an unknown image encoding, a point
    /// field of an unknown type) is an error naming the field.
    fn from_message(message: &Message) -> Result<Self>;
}

/// `[x, y, z]` of a `geometry_msgs/Vector3` or `Point`.
pub(crate) fn vector(message: &Message) -> Result<ndarray::Array1<f64>> {
    Ok(ndarray::Array1::from(vec![
        message.number("x")?,
        message.number("y")?,
        message.number("z")?,
    ]))
}

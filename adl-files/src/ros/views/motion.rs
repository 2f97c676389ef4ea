//! [`Imu`], [`Fix`] and [`Pose`]: motion messages as numbers, each
//! interpolated (vectors linearly, orientations by slerp).

use adl_core::interpolate::{Interpolate, Quaternion};
use adl_core::{Error, Result};
use ndarray::Array1;

use super::{View, vector};
use crate::ros::Message;

/// A `sensor_msgs/Imu` reading.
#[derive(Debug, Clone, PartialEq, adl_macros::Collate)]
#[collate(crate = "adl_core", derive(Debug, Clone))]
pub struct Imu {
    /// The orientation estimate.
    pub orientation: Quaternion,
    /// rad/s, `[x, y, z]` (a batch: `[B, 3]`).
    pub angular_velocity: Array1<f64>,
    /// m/s², `[x, y, z]` (a batch: `[B, 3]`).
    pub linear_acceleration: Array1<f64>,
}

/// A `geometry_msgs/Quaternion` as a [`Quaternion`]; an all-zero one (an
/// IMU without an orientation estimate) as no rotation.
fn quaternion(message: &Message) -> Result<Quaternion> {
    let [x, y, z, w] = ["x", "y", "z", "w"].map(|k| message.number(k));
    let (x, y, z, w) = (x?, y?, z?, w?);
    if [x, y, z, w] == [0.0; 4] {
        return Ok(Quaternion::IDENTITY);
    }
    Quaternion::new(x, y, z, w)
}

impl View for Imu {
    const TYPES: &'static [&'static str] = &["sensor_msgs/Imu"];

    fn from_message(message: &Message) -> Result<Imu> {
        Ok(Imu {
            orientation: quaternion(message.message("orientation")?)?,
            angular_velocity: vector(message.message("angular_velocity")?)?,
            linear_acceleration: vector(message.message("linear_acceleration")?)?,
        })
    }
}

impl Interpolate for Imu {
    fn interpolate(a: &Imu, b: &Imu, w: f64) -> Result<Imu> {
        Ok(Imu {
            orientation: Quaternion::interpolate(&a.orientation, &b.orientation, w)?,
            angular_velocity: Interpolate::interpolate(
                &a.angular_velocity,
                &b.angular_velocity,
                w,
            )?,
            linear_acceleration: Interpolate::interpolate(
                &a.linear_acceleration,
                &b.linear_acceleration,
                w,
            )?,
        })
    }
}

/// A `sensor_msgs/NavSatFix`: a GNSS position.
#[derive(Debug, Clone, PartialEq, adl_macros::Collate)]
#[collate(crate = "adl_core", derive(Debug, Clone))]
pub struct Fix {
    /// Degrees north.
    pub latitude: f64,
    /// Degrees east.
    pub longitude: f64,
    /// Metres above the WGS-84 ellipsoid.
    pub altitude: f64,
    /// The fix's status: -1 none, 0 fix, 1 SBAS, 2 GBAS.
    pub status: i8,
}

impl View for Fix {
    const TYPES: &'static [&'static str] = &["sensor_msgs/NavSatFix"];

    fn from_message(message: &Message) -> Result<Fix> {
        Ok(Fix {
            latitude: message.number("latitude")?,
            longitude: message.number("longitude")?,
            altitude: message.number("altitude")?,
            status: message.message("status")?.number("status")? as i8,
        })
    }
}

/// Position linearly; the status of the nearer fix.
impl Interpolate for Fix {
    fn interpolate(a: &Fix, b: &Fix, w: f64) -> Result<Fix> {
        Ok(Fix {
            latitude: f64::interpolate(&a.latitude, &b.latitude, w)?,
            longitude: f64::interpolate(&a.longitude, &b.longitude, w)?,
            altitude: f64::interpolate(&a.altitude, &b.altitude, w)?,
            status: if w <= 0.5 { a.status } else { b.status },
        })
    }
}

/// A pose: where a body is and how it is turned.
#[derive(Debug, Clone, PartialEq, adl_macros::Collate)]
#[collate(crate = "adl_core", derive(Debug, Clone))]
pub struct Pose {
    /// Metres, `[x, y, z]` (a batch: `[B, 3]`).
    pub position: Array1<f64>,
    /// The orientation.
    pub orientation: Quaternion,
}

impl Pose {
    /// A `geometry_msgs/Pose` (`position`, `orientation`).
    fn of_pose(pose: &Message) -> Result<Pose> {
        Ok(Pose {
            position: vector(pose.message("position")?)?,
            orientation: quaternion(pose.message("orientation")?)?,
        })
    }

    /// A `geometry_msgs/Transform` (`translation`, `rotation`).
    fn of_transform(transform: &Message) -> Result<Pose> {
        Ok(Pose {
            position: vector(transform.message("translation")?)?,
            orientation: quaternion(transform.message("rotation")?)?,
        })
    }
}

impl View for Pose {
    const TYPES: &'static [&'static str] = &[
        "geometry_msgs/Pose",
        "geometry_msgs/PoseStamped",
        "geometry_msgs/PoseWithCovarianceStamped",
        "geometry_msgs/TransformStamped",
        "nav_msgs/Odometry",
        "tf2_msgs/TFMessage",
    ];

    fn from_message(message: &Message) -> Result<Pose> {
        // A decoded message's type is `pkg/Type` (see `definition`).
        match message.type_name() {
            "geometry_msgs/Pose" => Pose::of_pose(message),
            "geometry_msgs/PoseStamped" => Pose::of_pose(message.message("pose")?),
            "geometry_msgs/PoseWithCovarianceStamped" | "nav_msgs/Odometry" => {
                Pose::of_pose(message.message("pose")?.message("pose")?)
            }
            "geometry_msgs/TransformStamped" => Pose::of_transform(message.message("transform")?),
            "tf2_msgs/TFMessage" => match message.list("transforms")? {
                [one] => {
                    let one = one.as_message().ok_or_else(|| {
                        Error::invalid("tf2_msgs/TFMessage", "its transform is not a message")
                    })?;
                    Pose::of_transform(one.message("transform")?)
                }
                many => Err(Error::invalid(
                    "tf2_msgs/TFMessage as a pose",
                    format!(
                        "it holds {} transforms; a pose is one (read the message's `transforms` instead)",
                        many.len()
                    ),
                )),
            },
            other => Err(Error::invalid(
                "pose",
                format!("a `{other}` is not one of {:?}", Pose::TYPES),
            )),
        }
    }
}

impl Interpolate for Pose {
    fn interpolate(a: &Pose, b: &Pose, w: f64) -> Result<Pose> {
        Ok(Pose {
            position: Interpolate::interpolate(&a.position, &b.position, w)?,
            orientation: Quaternion::interpolate(&a.orientation, &b.orientation, w)?,
        })
    }
}

//! PX4 flight logs ([ULog](https://docs.px4.io/main/en/dev_log/ulog_file_format.html))
//! as ADL sensors. Enabled by the `px4` feature (on in the `adl` facade by default).
//!
//! A ULog file is one recording: every logged uORB topic instance is a
//! synchronous time series with its own microsecond timestamps. Here
//!
//! - one file is a [`Px4Log`] (build a [`Recording`](adl_core::Recording) from
//!   its sensors to get an ADL trace);
//! - one `(topic, multi_id)` pair is a [`TopicSensor`], named after the
//!   topic (`sensor_combined`) for instance 0 and `topic/N`
//!   (`sensor_accel/1`) for instance `N > 0`;
//! - a sample is a [`Record`](adl_core::Record) of `Array1<f64>`: field name →
//!   that row's values, read from columns held in memory (no re-parsing).
//!
//! Topics whose timestamps cannot serve as a sensor's (empty, all zero,
//! constant, going backwards) do not fail the log: they are listed by
//! [`Px4Log::rejected`] with the [`Error`](adl_core::Error) that rejected them.
//!
//! ```no_run
//! use adl::{Recording, Sensor, files::px4::Px4Log, sync::Empty};
//!
//! let log = Px4Log::open("flight.ulg")?;
//! for sensor in log.sensors() {
//!     println!("{}: {} samples", sensor.name(), sensor.len());
//! }
//! for (topic, why) in log.rejected() {
//!     println!("skipped {topic}: {why}");
//! }
//! let imu = log.sensor("sensor_combined")?;
//! let sample = imu.get(0)?;
//! println!("gyro = {}", sample["gyro_rad"]);
//! let trace = Recording::new("flight", log.sensors().iter().collect::<Vec<_>>(), &Empty)?;
//! let _ = trace;
//! # Ok::<(), adl::Error>(())
//! ```

mod format;
mod log;
mod parse;
mod topic;

pub use log::{Completeness, Px4Log};
pub use topic::TopicSensor;

//! [`Px4Log`]: a whole ULog file, its sensors and the topics it rejected.

use std::path::{Path, PathBuf};

use super::TopicSensor;
use super::parse::{ParsedLog, parse, parse_named};
use crate::location::Location;
use adl_core::{Error, Result, Sensor};

/// How the data section of a log ended. Flight logs are often cut short
/// (power loss, a pulled SD card); what came before the break is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completeness {
    /// The file ended on a record boundary: nothing was lost.
    Complete,
    /// The file ended partway through a record: the rest of the flight is
    /// missing.
    Truncated,
    /// A record failed to parse (corruption); the rest of the file was not
    /// read. The parser's message.
    Malformed(String),
}

impl Completeness {
    /// Whether the whole file was read.
    pub fn is_complete(&self) -> bool {
        matches!(self, Completeness::Complete)
    }
}

/// A PX4 flight log (ULog file), read into memory: one [`TopicSensor`] per
/// `(topic, multi_id)` with usable timestamps, and the rejected rest.
///
/// Sensors are sorted by topic, then instance. A topic instance that cannot
/// be a sensor does not fail the log; it is listed by
/// [`rejected`](Px4Log::rejected) with the error that rejected it:
/// [`Error::EmptySensor`] (registered, never logged),
/// [`Error::ConstantTimestamps`] (all stamped zero, or the clock never
/// advances), [`Error::UnsortedTimestamps`], [`Error::NonFiniteTimestamp`],
/// or [`Error::Source`] (no uint64 `timestamp` field).
///
/// ```no_run
/// use adl::{Sensor, files::px4::Px4Log};
///
/// let log = Px4Log::open("flight.ulg")?;
/// let gps = log.sensor("vehicle_gps_position")?;
/// println!("{} GPS fixes at {:.1} Hz", gps.len(), gps.framerate().unwrap_or(0.0));
/// assert!(log.completeness().is_complete());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct Px4Log {
    path: PathBuf,
    sensors: Vec<TopicSensor>,
    rejected: Vec<(String, Error)>,
    completeness: Completeness,
}

impl Px4Log {
    /// Read the ULog file at `path`.
    ///
    /// A file that cannot be read, is not a ULog file, or breaks before its
    /// data section is [`Error::Source`] naming the file. A file broken
    /// inside its data section gives the samples before the break; see
    /// [`completeness`](Px4Log::completeness).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        Self::from_parsed(path.to_owned(), parse(path)?)
    }

    /// Read the ULog file at `location`: a local path, or an object's URL
    /// (`s3://bucket/flight.ulg`, read whole in one request; feature
    /// `store`), as [`open`](Px4Log::open) reads a file. Errors name the
    /// location.
    pub fn open_at(location: impl Into<Location>) -> Result<Self> {
        let location = location.into();
        if let Some(path) = location.as_path() {
            return Self::open(path);
        }
        let bytes = location.object()?.get()?;
        let name = location.file_name().unwrap_or("log").to_owned();
        let parsed = parse_named(&bytes, &name).map_err(|reason| location.error(reason))?;
        Self::from_parsed(PathBuf::from(location.to_string()), parsed)
    }

    /// The log `parsed` from `path` (for an object, its URL).
    fn from_parsed(path: PathBuf, parsed: ParsedLog) -> Result<Self> {
        let shown = path.display().to_string();
        let mut sensors = Vec::new();
        let mut rejected = Vec::new();
        for raw in parsed.topics {
            let name = TopicSensor::sensor_name(&raw.topic, raw.instance);
            match TopicSensor::from_raw(raw, &shown) {
                Ok(sensor) => sensors.push(sensor),
                Err(error) => rejected.push((name, error)),
            }
        }
        for (name, reason) in parsed.dropped {
            rejected.push((name, Error::file(&shown, reason)));
        }
        Ok(Px4Log {
            path,
            sensors,
            rejected,
            completeness: parsed.completeness,
        })
    }

    /// The file this log was read from (for an object, its URL).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sensors, sorted by topic then instance.
    pub fn sensors(&self) -> &[TopicSensor] {
        &self.sensors
    }

    /// The sensors' names, in the order of [`sensors`](Px4Log::sensors).
    pub fn sensor_names(&self) -> Vec<&str> {
        self.sensors.iter().map(Sensor::name).collect()
    }

    /// The sensor called `name` (`topic` or `topic/N`, see
    /// [`TopicSensor::sensor_name`]); [`Error::UnknownSensor`] listing the
    /// log's sensors if there is none.
    pub fn sensor(&self, name: &str) -> Result<&TopicSensor> {
        self.sensors
            .iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| Error::UnknownSensor {
                role: "requested",
                name: name.to_owned(),
                available: self.sensor_names().into_iter().map(str::to_owned).collect(),
            })
    }

    /// Give the sensors away, e.g. to build a
    /// [`Recording`](adl_core::Recording).
    pub fn into_sensors(self) -> Vec<TopicSensor> {
        self.sensors
    }

    /// Topic instances that are not sensors, by sensor name, with the error
    /// that rejected each, in topic order.
    pub fn rejected(&self) -> &[(String, Error)] {
        &self.rejected
    }

    /// How the file's data section ended.
    pub fn completeness(&self) -> &Completeness {
        &self.completeness
    }
}

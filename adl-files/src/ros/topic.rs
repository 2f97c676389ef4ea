//! [`Topic`]: one topic of a bag as an ADL sensor.

use std::path::PathBuf;
use std::sync::Arc;

use adl_core::storage::Storage;
use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};

use super::container::{Container, Located};
use super::definition::Schema;
use super::value::{Message, Value};
use super::views::{View, Viewed};
use super::wire;

/// One topic of a [`Bag`](super::Bag) as a sensor: sample `i` is its
/// `i`-th message by log time, decoded by its definition into a
/// [`Message`]. Read by index from the bag's own indexes; nothing else of
/// the bag is read.
#[derive(Clone)]
pub struct Topic {
    name: String,
    type_name: String,
    schema: Arc<Schema>,
    times: Timestamps,
    messages: Arc<[Located]>,
    files: Arc<[Container]>,
    paths: Arc<[PathBuf]>,
}

impl Topic {
    pub(crate) fn new(
        name: String,
        type_name: String,
        schema: Arc<Schema>,
        messages: Arc<[Located]>,
        files: Arc<[Container]>,
        paths: Arc<[PathBuf]>,
    ) -> Result<Topic> {
        let times = messages.iter().map(|m| m.log_time as f64 * 1e-9).collect();
        let times = Timestamps::new(&name, times)?;
        Ok(Topic {
            name,
            type_name,
            schema,
            times,
            messages,
            files,
            paths,
        })
    }

    /// The message type, as the bag names it (`sensor_msgs/msg/Imu`,
    /// `sensor_msgs/Imu`).
    pub fn message_type(&self) -> &str {
        &self.type_name
    }

    /// Each message's log time, in nanoseconds.
    pub fn log_times_ns(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.messages.iter().map(|m| m.log_time)
    }

    /// The same topic, timed by each message's `header.stamp` instead of
    /// its log time: every message is decoded once, now. A message without
    /// a header, or stamps that go backwards, is an error naming the topic.
    pub fn stamped_by_header(mut self) -> Result<Topic> {
        let mut times = Vec::with_capacity(self.messages.len());
        for index in 0..self.messages.len() {
            let message = self.get(index)?;
            let stamp = message.at("header.stamp").map_err(|e| {
                Error::invalid(
                    format_args!("header stamps of topic `{}`", self.name),
                    format!("message {index}: {e}"),
                )
            })?;
            times.push(stamp_seconds(stamp).ok_or_else(|| {
                Error::invalid(
                    format_args!("header stamps of topic `{}`", self.name),
                    format!("message {index}: its header.stamp is not a time"),
                )
            })?);
        }
        self.times = Timestamps::new(&self.name, times)?;
        Ok(self)
    }

    /// This topic as a sensor of typed views of its messages
    /// ([`views`](super::views): images as `[H, W, C]` arrays, point
    /// clouds as `[N, C]`, [`Imu`](super::views::Imu), [`Pose`](super::views::Pose)...).
    /// A topic of a type the view does not read is an error naming both.
    pub fn view<V: View>(self) -> Result<Viewed<V>> {
        Viewed::new(self)
    }

    /// The bytes of message `index`, undecoded.
    fn bytes(&self, index: usize) -> Result<super::chunks::MessageBytes> {
        let Some(located) = self.messages.get(index) else {
            return Err(Error::out_of_range(
                format_args!("topic `{}`", self.name),
                index,
                self.messages.len(),
            ));
        };
        self.files[located.file as usize]
            .message(located.place)
            .map_err(|e| e.in_sensor(&self.name, Some(index)))
    }
}

/// A `builtin_interfaces/Time` (`sec`, `nanosec`) or ROS 1 `time`
/// (`secs`, `nsecs`), in seconds.
fn stamp_seconds(stamp: &Value) -> Option<f64> {
    let m = stamp.as_message()?;
    let secs = m.get("sec").or_else(|| m.get("secs"))?.as_f64()?;
    let nanos = m.get("nanosec").or_else(|| m.get("nsecs"))?.as_f64()?;
    Some(secs + nanos * 1e-9)
}

impl Sensor for Topic {
    type Sample = Message;
    type Metadata = Timestamps;

    /// The topic's name (`/imu`).
    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.times
    }

    fn len(&self) -> usize {
        self.messages.len()
    }

    /// Message `index`, decoded. Bytes that do not decode as the topic's
    /// type are an error naming the bag file, the topic, the message and
    /// the field.
    fn get(&self, index: usize) -> Result<Message> {
        let bytes = self.bytes(index)?;
        wire::decode(&self.schema, &bytes).map_err(|e| {
            let file = &self.paths[self.messages[index].file as usize];
            Error::file(file, format!("a `{}` message: {e}", self.type_name))
                .in_sensor(&self.name, Some(index))
        })
    }

    /// Where its messages are: see its [`Storage`] impl.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }
}

/// Its messages are in the bag's files.
impl Storage for Topic {
    type Origin = SensorOrigin;

    /// The bag file holding the message.
    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        let located = self.messages.get(index)?;
        let file = self.paths.get(located.file as usize)?;
        Some(SensorOrigin::new(self.name.as_str(), index).in_file(file.display(), None))
    }
}

impl std::fmt::Debug for Topic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Topic({}, {}, n={})",
            self.name,
            self.type_name,
            self.messages.len()
        )
    }
}

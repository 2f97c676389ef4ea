//! [`Viewed`]: a topic as a sensor of one of its [`View`]s.

use std::marker::PhantomData;

use adl_core::storage::{Fetched, Storage};
use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};

use super::View;
use crate::ros::Topic;
use crate::ros::definition::{Dialect, normalize};

/// A [`Topic`] read through a [`View`]: sample `i` is message `i` as a
/// `V` (from [`Topic::view`]).
pub struct Viewed<V> {
    topic: Topic,
    view: PhantomData<fn() -> V>,
}

impl<V: View> Viewed<V> {
    /// `topic` as `V`s; a topic of a type `V` does not read is an error
    /// naming both.
    pub(crate) fn new(topic: Topic) -> Result<Self> {
        // `pkg/msg/Type` (ROS 2) and `pkg/Type` (ROS 1) alike, as `pkg/Type`.
        let ty = normalize(topic.message_type(), "", Dialect::Ros2);
        if !V::TYPES.contains(&ty.as_str()) {
            return Err(Error::invalid(
                format_args!("view of topic `{}`", topic.name()),
                format!(
                    "its messages are `{}`; this view reads {}",
                    topic.message_type(),
                    V::TYPES.join(", ")
                ),
            ));
        }
        Ok(Viewed {
            topic,
            view: PhantomData,
        })
    }

    /// The topic viewed.
    pub fn topic(&self) -> &Topic {
        &self.topic
    }
}

impl<V: View> Sensor for Viewed<V> {
    type Sample = V;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        self.topic.name()
    }

    fn metadata(&self) -> &Timestamps {
        self.topic.metadata()
    }

    fn len(&self) -> usize {
        self.topic.len()
    }

    /// Message `index`, as a `V`; one its view cannot read is an error
    /// naming the topic and the message.
    fn get(&self, index: usize) -> Result<V> {
        self.get_fetched(index, Fetched::Nothing)
    }

    /// As [`get`](Sensor::get), with the topic's read ahead handed on.
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<V> {
        let message = self.topic.get_fetched(index, fetched)?;
        V::from_message(&message).map_err(|e| {
            let file = SensorOrigin::of(&self.topic, index)
                .file
                .unwrap_or_default();
            Error::file(file, format!("a `{}` message: {e:#}", message.type_name()))
                .in_sensor(self.topic.name(), Some(index))
        })
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        self.topic.storage()
    }
}

impl<V> Clone for Viewed<V> {
    fn clone(&self) -> Self {
        Viewed {
            topic: self.topic.clone(),
            view: PhantomData,
        }
    }
}

impl<V> std::fmt::Debug for Viewed<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} as {}", self.topic, std::any::type_name::<V>())
    }
}

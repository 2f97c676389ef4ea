//! Robot logs as ADL sensors: ROS 2 bags (a rosbag2 folder in MCAP
//! storage) and standalone MCAP files, each topic a [`Topic`] sensor whose
//! samples are decoded [`Message`]s. Enabled by the `ros` feature (on in
//! the `adl` facade by default).
//!
//! - [`Bag::open`] reads a bag's indexes, not its messages; [`Bag::topics`]
//!   lists `{topic: message type}` and [`Bag::topic`] gives one topic as
//!   a sensor, timed by its messages' log times (or, on request, their
//!   `header.stamp`s: [`Topic::stamped_by_header`]).
//! - A message is decoded by the definition the bag carries (MCAP's
//!   `ros2msg`/`ros1msg` schemas), or where it carries none by adl's
//!   built-in definitions of the standard packages; a type defined nowhere
//!   is an error naming the topic and the type.
//! - A [`Message`] is a dynamic typed value: numbers, strings, numeric
//!   arrays in one allocation ([`Numbers`]), nested messages and lists of
//!   them, reached by field name or dotted path ([`Message::at`]).
//!
//! To evaluate a pose or an IMU at a camera's stamps rather than match
//! its nearest message, wrap its topic (mapped to numbers) in an
//! [`Interpolated`](adl_core::Interpolated) sensor.

mod bag;
mod bytes;
mod chunks;
mod container;
mod definition;
mod index;
mod mcap;
mod metadata;
mod ros1;
mod sqlite;
mod topic;
mod value;
pub mod views;
mod wire;

pub use bag::Bag;
pub use definition::Schema;
pub use topic::Topic;
pub use value::{Message, Numbers, Value};
pub use views::{View, Viewed};

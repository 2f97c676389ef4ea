use super::{Dataset, Sensor};
use crate::Result;

/// One recording: sensors that recorded at the same time, asynchronously,
/// turned into a sequence of synchronized multimodal samples.
///
/// A trace is a [`Dataset`] (an integer index gives a synchronized sample),
/// and for convenience also gives its sensors by name, as the specification's
/// `trace["name"]` does.
///
/// [`Recording`](crate::Recording) is the ready-made implementation.
pub trait Trace: Dataset {
    /// The type of the trace's sensors.
    type Sensor: Sensor;

    /// The sensor called `name`; [`Error::UnknownSensor`](crate::Error::UnknownSensor)
    /// (listing the trace's sensors) if there is none.
    fn sensor(&self, name: &str) -> Result<&Self::Sensor>;

    /// The sensors' names, in the trace's order.
    fn sensor_names(&self) -> Vec<&str>;
}

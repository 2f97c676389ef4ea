use super::Dataset;
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
    /// What [`sensor`](Trace::sensor) gives: the sensors' type where they
    /// are of one type, [`dyn AnySensor`](crate::AnySensor) (name and
    /// timestamps) where they are of many.
    type Sensor<'a>: ?Sized
    where
        Self: 'a;

    /// The sensor called `name`; [`Error::UnknownSensor`](crate::Error::UnknownSensor)
    /// (listing the trace's sensors) if there is none.
    fn sensor(&self, name: &str) -> Result<&Self::Sensor<'_>>;

    /// The sensors' names, in the trace's order.
    fn sensor_names(&self) -> Vec<&str>;
}

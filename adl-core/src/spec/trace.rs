use super::Dataset;
use crate::Result;
use crate::sensor_set::{AnySensor, AsAnySensor};

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
    type Sensor<'a>: ?Sized + AsAnySensor
    where
        Self: 'a;

    /// The sensor called `name`; [`Error::UnknownSensor`](crate::Error::UnknownSensor)
    /// (listing the trace's sensors) if there is none.
    fn sensor(&self, name: &str) -> Result<&Self::Sensor<'_>>;

    /// The sensors' names, in the trace's order.
    fn sensor_names(&self) -> Vec<&str>;

    /// The sensor called `name` without its types (its name, timestamps
    /// and length), whatever the trace's sensors are: for code generic over
    /// traces.
    ///
    /// ```
    /// use adl::{AnySensor, Recording, Sensor, Series, Timestamps, Trace};
    ///
    /// fn rate(trace: &impl Trace, name: &str) -> adl::Result<f64> {
    ///     let sensor: &dyn AnySensor = trace.any_sensor(name)?;
    ///     let t = sensor.timestamps();
    ///     Ok((t.len() - 1) as f64 / (t[t.len() - 1] - t[0]))
    /// }
    /// let s = |n: &str| Series::new(n, Timestamps::new(n, vec![0.0, 0.5, 1.0]).unwrap(), |i| Ok(i));
    /// let one_type = Recording::aligned("run", vec![s("a"), s("b")])?;
    /// let many_types = Recording::aligned("run", (s("a"), s("b").map(|i| i as f32)))?;
    /// assert_eq!(rate(&one_type, "b")?, 2.0);
    /// assert_eq!(rate(&many_types, "b")?, 2.0);
    /// # Ok::<(), adl::Error>(())
    /// ```
    fn any_sensor(&self, name: &str) -> Result<&dyn AnySensor> {
        Ok(self.sensor(name)?.as_any_sensor())
    }
}

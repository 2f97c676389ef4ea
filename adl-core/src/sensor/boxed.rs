use crate::storage::{Fetched, Storage};
use crate::{Metadata, Result, Sensor, SensorOrigin};

/// What a [`BoxedSensor`] keeps of its sensor: everything but its types.
trait ErasedSensor<T>: Send + Sync {
    fn name(&self) -> &str;
    fn metadata(&self) -> &(dyn Metadata + Send + Sync + 'static);
    fn len(&self) -> usize;
    fn get(&self, index: usize) -> Result<T>;
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<T>;
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>>;
}

/// A sensor and its metadata, erased together.
struct Erased<S>(S);

impl<S: Sensor + Send + Sync> Metadata for Erased<S> {
    fn timestamps(&self) -> &[f64] {
        self.0.metadata().timestamps()
    }
}

impl<S: Sensor + Send + Sync + 'static> ErasedSensor<S::Sample> for Erased<S> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn metadata(&self) -> &(dyn Metadata + Send + Sync + 'static) {
        self
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, index: usize) -> Result<S::Sample> {
        self.0.get(index)
    }
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<S::Sample> {
        self.0.get_fetched(index, fetched)
    }
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        self.0.storage()
    }
}

/// A sensor of samples `T` whose own type is erased, from
/// [`Sensor::boxed`]: sensors of different types but one sample type in
/// one `Vec`, chosen at run time. `Send + Sync`, so a
/// [`Recording`](crate::Recording) of them can be shared with a loader's
/// workers.
///
/// Sensors of different sample types need no box: put them in a tuple or a
/// `#[derive(SensorSet)]` struct (see [`SensorSet`](crate::SensorSet)).
pub struct BoxedSensor<T> {
    inner: Box<dyn ErasedSensor<T>>,
}

impl<T> BoxedSensor<T> {
    /// Box `sensor`.
    pub fn new<S>(sensor: S) -> Self
    where
        S: Sensor<Sample = T> + Send + Sync + 'static,
    {
        BoxedSensor {
            inner: Box::new(Erased(sensor)),
        }
    }
}

impl<T> std::fmt::Debug for BoxedSensor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "BoxedSensor({}, n={})",
            self.inner.name(),
            self.inner.len()
        )
    }
}

impl<T> Sensor for BoxedSensor<T> {
    type Sample = T;
    type Metadata = dyn Metadata + Send + Sync;

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn metadata(&self) -> &(dyn Metadata + Send + Sync + 'static) {
        self.inner.metadata()
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn get(&self, index: usize) -> Result<T> {
        self.inner.get(index)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<T> {
        self.inner.get_fetched(index, fetched)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        self.inner.storage()
    }

    /// Already boxed: itself.
    fn boxed(self) -> BoxedSensor<T> {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dataset, Recording, Series, Timestamps, Trace, Window};

    fn assert_shareable<T: Send + Sync>(_: &T) {}

    #[test]
    fn boxed_sensors_of_different_types_share_a_recording() {
        let times = |n: usize| Timestamps::new("t", (0..n).map(|i| i as f64).collect()).unwrap();
        let plain = Series::new("plain", times(4), |i| Ok(i as f32));
        let window = Window::new(Series::new("windowed", times(5), |i| Ok(i as f32)), 1, 0)
            .unwrap()
            .map(|w| w.iter().sum::<f32>());
        let sensors = vec![plain.boxed(), window.boxed()];
        let trace = Recording::aligned("run", sensors).unwrap();
        assert_shareable(&trace);
        assert_eq!(trace.len(), 4);
        let record = trace.get(3).unwrap();
        assert_eq!((record["plain"], record["windowed"]), (3.0, 7.0));
        assert_eq!(
            trace.sensor("windowed").unwrap().metadata().timestamps(),
            &[1.0, 2.0, 3.0, 4.0]
        );
        let again = trace.into_sensors().remove(0).boxed();
        assert_eq!(format!("{again:?}"), "BoxedSensor(plain, n=4)");
    }
}

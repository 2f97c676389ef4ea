use crate::storage::{Ahead, Fetched, Storage};
use crate::{Dataset, Origin, Result, Sensor, SensorOrigin};

/// A sensor read as a [`Dataset`]: sample `i` of the dataset is sample `i`
/// of the sensor.
///
/// The specification says a sensor satisfies the `Dataset` protocol
/// structurally; in Rust the two traits are distinct, and this wrapper is
/// the bridge (for example to [`Sampled`](crate::sample::Sampled) a single
/// sensor, or to feed a [`Window`](crate::Window) to a loader).
///
/// ```
/// use adl::{Dataset, SensorDataset, Series, Timestamps};
///
/// let gps = Series::new("gps", Timestamps::new("gps", vec![0.0, 1.0])?, |i| Ok(i * 10));
/// let dataset = SensorDataset::new(gps);
/// assert_eq!(dataset.len(), 2);
/// assert_eq!(dataset.get(1)?, 10);
/// assert!(dataset.get(2).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SensorDataset<S> {
    sensor: S,
}

impl<S: Sensor> SensorDataset<S> {
    /// Read `sensor` as a dataset.
    pub fn new(sensor: S) -> Self {
        SensorDataset { sensor }
    }

    /// The sensor.
    pub fn inner(&self) -> &S {
        &self.sensor
    }

    /// Give the sensor back.
    pub fn into_inner(self) -> S {
        self.sensor
    }
}

impl<S: Sensor> Dataset for SensorDataset<S> {
    type Sample = S::Sample;

    fn len(&self) -> usize {
        self.sensor.len()
    }

    fn get(&self, index: usize) -> Result<S::Sample> {
        self.sensor.get(index)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<S::Sample> {
        self.sensor.get_fetched(index, fetched)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// The sensor's storage, sample for sample.
impl<S: Sensor> Storage for SensorDataset<S> {
    type Origin = Origin;

    /// The sensor's sample `index`, with its file and row where the
    /// sensor reads files.
    fn origin(&self, index: usize) -> Option<Origin> {
        (index < self.sensor.len()).then(|| {
            let mut origin = Origin::unknown(index);
            origin.sensors.push(SensorOrigin::of(&self.sensor, index));
            origin
        })
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.sensor.storage())
    }

    fn prefetch(&self, index: usize) {
        if let Some(storage) = self.sensor.storage() {
            storage.prefetch(index);
        }
    }

    fn fetch(&self, index: usize) -> Result<Fetched> {
        self.sensor
            .storage()
            .map_or(Ok(Fetched::Nothing), |s| s.fetch(index))
    }

    fn parts(&self, index: usize) -> usize {
        self.sensor.storage().map_or(1, |s| s.parts(index))
    }

    fn fetch_part(&self, index: usize, part: usize) -> Result<Fetched> {
        self.sensor
            .storage()
            .map_or(Ok(Fetched::Nothing), |s| s.fetch_part(index, part))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, Series, Timestamps, Window};

    #[test]
    fn empty_sensor_is_an_empty_dataset() {
        let s = Series::new(
            "s",
            Timestamps::new("s", vec![]).unwrap(),
            Ok::<usize, Error>,
        );
        let d = SensorDataset::new(&s);
        assert!(d.is_empty());
        assert!(matches!(d.get(0), Err(Error::IndexOutOfRange { .. })));
    }

    #[test]
    fn window_as_dataset() {
        let times = Timestamps::new("s", vec![0.0, 1.0, 2.0]).unwrap();
        let s = Series::new("s", times, Ok::<usize, Error>);
        let d = SensorDataset::new(Window::new(&s, 1, 0).unwrap());
        assert_eq!(d.len(), 2);
        assert_eq!(d.get(1).unwrap(), vec![1, 2]);
        assert_eq!(d.inner().past(), 1);
    }
}

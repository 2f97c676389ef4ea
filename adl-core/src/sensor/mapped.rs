use crate::storage::Fetched;
use crate::{Error, Result, Sensor};

/// A sensor whose samples are another's with a function applied, from
/// [`Sensor::map`]. Its name and timestamps are the inner sensor's.
#[derive(Clone)]
pub struct Mapped<S, F> {
    sensor: S,
    f: F,
}

impl<S, F> Mapped<S, F> {
    pub(crate) fn new(sensor: S, f: F) -> Self {
        Mapped { sensor, f }
    }

    /// The inner sensor.
    pub fn inner(&self) -> &S {
        &self.sensor
    }
}

impl<S: std::fmt::Debug, F> std::fmt::Debug for Mapped<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}.map(..)", self.sensor)
    }
}

/// The inner sensor's name, metadata, length, and storage (origins, reads ahead), in a mapped sensor's
/// `Sensor` impl.
macro_rules! inner_sensor {
    () => {
        type Metadata = S::Metadata;

        fn name(&self) -> &str {
            self.sensor.name()
        }

        fn metadata(&self) -> &S::Metadata {
            self.sensor.metadata()
        }

        fn len(&self) -> usize {
            self.sensor.len()
        }

        fn storage(&self) -> Option<&dyn $crate::storage::Storage<Origin = $crate::SensorOrigin>> {
            self.sensor.storage()
        }
    };
}

impl<S: Sensor, U, F: Fn(S::Sample) -> U> Sensor for Mapped<S, F> {
    type Sample = U;
    inner_sensor!();

    fn get(&self, index: usize) -> Result<U> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<U> {
        self.sensor.get_fetched(index, fetched).map(&self.f)
    }
}

/// A sensor whose samples are another's with a fallible function applied,
/// from [`Sensor::try_map`]. The function's errors become [`Error::Load`]
/// naming the sensor and the index.
#[derive(Clone)]
pub struct TryMapped<S, F> {
    sensor: S,
    f: F,
}

impl<S, F> TryMapped<S, F> {
    pub(crate) fn new(sensor: S, f: F) -> Self {
        TryMapped { sensor, f }
    }

    /// The inner sensor.
    pub fn inner(&self) -> &S {
        &self.sensor
    }
}

impl<S: std::fmt::Debug, F> std::fmt::Debug for TryMapped<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}.try_map(..)", self.sensor)
    }
}

impl<S: Sensor, U, F: Fn(S::Sample) -> Result<U>> Sensor for TryMapped<S, F> {
    type Sample = U;
    inner_sensor!();

    fn get(&self, index: usize) -> Result<U> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<U> {
        let sample = self.sensor.get_fetched(index, fetched)?;
        (self.f)(sample).map_err(|e| match e {
            Error::Load { .. } => e,
            // A file's error already says where; it gains the sensor
            // and the index, unless it says them.
            source @ Error::Source { .. } => source.in_sensor(self.sensor.name(), Some(index)),
            other => Error::Load {
                sensor: self.sensor.name().to_owned(),
                index,
                cause: Box::new(other),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Error, Sensor, Series, Timestamps, Window};

    fn series() -> Series<impl Fn(usize) -> crate::Result<usize>> {
        Series::new("s", Timestamps::new("s", vec![0.0, 1.0, 2.0]).unwrap(), Ok)
    }

    #[test]
    fn map_keeps_name_timestamps_and_errors() {
        let m = series().map(|i| i * 10);
        assert_eq!((m.name(), m.len(), m.get(2).unwrap()), ("s", 3, 20));
        assert!(matches!(m.get(3), Err(Error::IndexOutOfRange { .. })));
        let w = Window::new(series(), 1, 0).unwrap().map(|v| v.len());
        assert_eq!(w.get(0).unwrap(), 2);
    }

    #[test]
    fn try_map_names_the_sensor_and_index() {
        let m = series().try_map(|i| {
            if i == 1 {
                Err(Error::read("payload", i, "checksum mismatch"))
            } else {
                Ok(i)
            }
        });
        assert_eq!(m.get(0).unwrap(), 0);
        let err = m.get(1).unwrap_err();
        assert!(matches!(err, Error::Load { index: 1, .. }));
        let text = format!("{err:#}");
        assert!(
            text.contains("sensor `s`") && text.contains("checksum mismatch"),
            "{text}"
        );
    }
}

use super::Metadata;
use crate::sensor::{BoxedSensor, Mapped, TryMapped};
use crate::storage::{Fetched, Storage};
use crate::{Error, Result, SensorOrigin};

/// One modality of one recording: a synchronous time series of samples.
///
/// A sensor is read by its own (sensor-scope) index, `0..len()`. Its
/// [`Metadata`] holds one timestamp per sample. By the specification's
/// convention, samples carry a leading singleton "batch" axis where they are
/// arrays.
///
/// Only [`name`](Sensor::name), [`metadata`](Sensor::metadata) and
/// [`get`](Sensor::get) are required; `len`, `stream`, `duration` and
/// `framerate` follow from them, as in the Python reference's
/// `abstract.Sensor`.
///
/// ```
/// use adl::{Sensor, Series, Timestamps};
///
/// let times = Timestamps::new("imu", vec![0.0, 0.01, 0.02])?;
/// let imu = Series::new("imu", times, |i| Ok(i as f32 * 2.0));
/// assert_eq!(imu.len(), 3);
/// assert_eq!(imu.get(2)?, 4.0);
/// assert_eq!(imu.framerate(), Some(100.0));
/// # Ok::<(), adl::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a sensor",
    label = "not an `adl::Sensor`",
    note = "a sensor has a name, timestamps (its metadata) and `get(index)`: implement `adl::Sensor` for it, or make one from a loader with `adl::Series::new(name, timestamps, |i| ...)`"
)]
pub trait Sensor {
    /// What one read returns.
    type Sample;
    /// The sensor's metadata type (`dyn Metadata + Send + Sync` for a
    /// [`BoxedSensor`](crate::BoxedSensor)).
    type Metadata: Metadata + ?Sized;

    /// The sensor's name, used in error messages and as its key in a trace.
    fn name(&self) -> &str;

    /// The sensor's metadata (its timestamps).
    fn metadata(&self) -> &Self::Metadata;

    /// Read sample `index`, `0 <= index < len()`.
    ///
    /// An index out of range is [`Error::IndexOutOfRange`]; a failing read
    /// is [`Error::Load`]. Never panics.
    fn get(&self, index: usize) -> Result<Self::Sample>;

    /// Read sample `index` with what its storage read ahead for it
    /// ([`Fetched`], from [`Storage::fetch`]): the same sample as
    /// [`get`](Sensor::get), without reading those bytes again. A wrapper
    /// over one sensor hands `fetched` on as it hands the index on. The
    /// default drops it and calls `get`.
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Self::Sample> {
        drop(fetched);
        self.get(index)
    }

    /// Number of samples: the number of timestamps.
    fn len(&self) -> usize {
        self.metadata().timestamps().len()
    }

    /// Whether the sensor has no samples.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every sample in order, one at a time.
    fn stream(&self) -> SensorStream<'_, Self>
    where
        Self: Sized,
    {
        SensorStream {
            sensor: self,
            next: 0,
        }
    }

    /// Samples in consecutive batches of `batch` samples, in order.
    ///
    /// As in the reference, only *full* batches are yielded: a trailing
    /// partial batch is dropped (`len / batch` batches). (The dataset
    /// adaptor [`batch`](crate::pipes::DatasetExt::batch) keeps it by
    /// default.) A batch size of 0 is
    /// [`Error::InvalidParameter`] (the reference divides by zero).
    fn stream_batches(&self, batch: usize) -> Result<SensorBatches<'_, Self>>
    where
        Self: Sized,
    {
        Error::nonzero(
            format_args!("batch size for sensor `{}`", self.name()),
            batch,
        )?;
        Ok(SensorBatches {
            sensor: self,
            batch,
            next: 0,
        })
    }

    /// Last timestamp minus first, in seconds; 0.0 for an empty sensor.
    fn duration(&self) -> f64 {
        match self.metadata().timestamps() {
            [] => 0.0,
            [first, .., last] => last - first,
            [_] => 0.0,
        }
    }

    /// A sensor that reads this one and applies `f` to every sample; its
    /// name and timestamps are this one's.
    ///
    /// ```
    /// use adl::{Sensor, Series, Timestamps};
    ///
    /// let raw = Series::new("radar", Timestamps::new("radar", vec![0.0, 0.1])?, |i| Ok(i as u16));
    /// let scaled = raw.map(|v| f32::from(v) * 0.5);
    /// assert_eq!(scaled.get(1)?, 0.5);
    /// assert_eq!(scaled.name(), "radar");
    /// # Ok::<(), adl::Error>(())
    /// ```
    fn map<U, F>(self, f: F) -> Mapped<Self, F>
    where
        Self: Sized,
        F: Fn(Self::Sample) -> U,
    {
        Mapped::new(self, f)
    }

    /// As [`map`](Sensor::map), with a function that can fail: its error
    /// becomes an [`Error::Load`] naming the sensor and the index.
    ///
    /// ```
    /// use adl::{Error, Sensor, Series, Timestamps};
    ///
    /// let raw = Series::new("cam", Timestamps::new("cam", vec![0.0, 0.1])?, |i| Ok(i));
    /// let decoded = raw.try_map(|i| if i == 0 { Ok(i) } else { Err(Error::read("frame", i, "truncated")) });
    /// assert_eq!(decoded.get(0)?, 0);
    /// let err = format!("{:#}", decoded.get(1).unwrap_err());
    /// assert!(err.contains("sensor `cam`") && err.contains("truncated"), "{err}");
    /// # Ok::<(), adl::Error>(())
    /// ```
    fn try_map<U, F>(self, f: F) -> TryMapped<Self, F>
    where
        Self: Sized,
        F: Fn(Self::Sample) -> Result<U>,
    {
        TryMapped::new(self, f)
    }

    /// This sensor behind a pointer, with its types erased but its sample
    /// type: sensors of one sample type chosen at run time go in one
    /// `Vec<BoxedSensor<T>>`, which is `Send + Sync` and can be shared
    /// with a loader's workers.
    ///
    /// ```
    /// use adl::{BoxedSensor, Recording, Sensor, Series, Timestamps, Window};
    ///
    /// let imu = Series::new("imu", Timestamps::new("imu", vec![0.0, 0.5, 1.0, 1.5])?, |i| Ok(i as f32));
    /// let gps = Series::new("gps", Timestamps::new("gps", vec![0.0, 1.0])?, |i| Ok(10.0 + i as f32));
    /// let last_two = Window::new(imu, 1, 0)?.map(|w| w.iter().sum::<f32>());
    /// let sensors: Vec<BoxedSensor<f32>> = vec![last_two.boxed(), gps.boxed()];
    /// let trace = Recording::aligned("run", sensors);
    /// assert!(trace.is_err()); // 3 windows, 2 fixes: not aligned
    /// # Ok::<(), adl::Error>(())
    /// ```
    fn boxed(self) -> BoxedSensor<Self::Sample>
    where
        Self: Sized + Send + Sync + 'static,
    {
        BoxedSensor::new(self)
    }

    /// Mean sample rate, `(len - 1) / duration`, in Hz.
    ///
    /// `None` where it is undefined: fewer than two samples, or a duration
    /// that is not positive. (The reference returns NaN for one sample and
    /// raises ZeroDivisionError for none.)
    fn framerate(&self) -> Option<f64> {
        let n = self.len();
        let duration = self.duration();
        (n >= 2 && duration > 0.0).then(|| (n - 1) as f64 / duration)
    }

    /// The engine's side of its samples, where it has one (a sensor of
    /// files or objects): where each is read from (its file and row:
    /// [`SensorOrigin::of`](crate::SensorOrigin::of) reads it), and its reads
    /// done ahead of [`get`](Sensor::get) (see [`Dataset::storage`](crate::Dataset::storage)).
    /// A wrapper over one sensor with the same indices gives its sensor's.
    /// The default: none.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        None
    }
}

/// Iterator over a sensor's samples, from [`Sensor::stream`].
#[derive(Debug)]
pub struct SensorStream<'a, S> {
    sensor: &'a S,
    next: usize,
}

impl<S: Sensor> Iterator for SensorStream<'_, S> {
    type Item = Result<S::Sample>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.sensor.len() {
            return None;
        }
        let item = self.sensor.get(self.next);
        self.next += 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.sensor.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl<S: Sensor> ExactSizeIterator for SensorStream<'_, S> {}

/// Iterator over full batches of a sensor's samples, from
/// [`Sensor::stream_batches`].
#[derive(Debug)]
pub struct SensorBatches<'a, S> {
    sensor: &'a S,
    batch: usize,
    next: usize,
}

impl<S: Sensor> Iterator for SensorBatches<'_, S> {
    type Item = Result<Vec<S::Sample>>;

    fn next(&mut self) -> Option<Self::Item> {
        let end = self.next.checked_add(self.batch)?;
        if end > self.sensor.len() {
            return None;
        }
        let batch = (self.next..end).map(|i| self.sensor.get(i)).collect();
        self.next = end;
        Some(batch)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.sensor.len().saturating_sub(self.next) / self.batch;
        (left, Some(left))
    }
}

impl<S: Sensor> ExactSizeIterator for SensorBatches<'_, S> {}

/// `Sensor` through a pointer to one.
macro_rules! forward_sensor {
    ($($pointer:ty),*) => {$(
        impl<S: Sensor + ?Sized> Sensor for $pointer {
            type Sample = S::Sample;
            type Metadata = S::Metadata;
            fn name(&self) -> &str {
                (**self).name()
            }
            fn metadata(&self) -> &Self::Metadata {
                (**self).metadata()
            }
            fn get(&self, index: usize) -> Result<Self::Sample> {
                (**self).get(index)
            }
            fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Self::Sample> {
                (**self).get_fetched(index, fetched)
            }
            fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
                (**self).storage()
            }
        }
    )*};
}

forward_sensor!(&S, Box<S>, std::sync::Arc<S>);

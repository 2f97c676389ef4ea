//! [`Latency`]: a sensor whose every read waits first, as one behind a
//! remote store does.

use std::time::Duration;

use adl_core::storage::{Ahead, Fetched, Storage};
use adl_core::{Result, Sensor, SensorOrigin};

/// A sensor whose every read of a sample first waits `delay`, as a sensor
/// whose files are behind a remote store (an object store, a network file
/// system) does: for tests and benchmarks of what latency does to a
/// pipeline, and of how well a loader's read stage hides it.
///
/// The wait is part of the read: a [`fetch`](adl_core::storage::Storage::fetch) (the read
/// stage's) waits, then fetches from the inner sensor; a
/// [`get_fetched`](Sensor::get_fetched) handed that fetch waits no more,
/// a `get` without one waits itself. A `Latency` always reads ahead
/// (its [`storage`](Sensor::storage) does
/// [`Ahead::Reads`](adl_core::storage::Ahead::Reads)), so a loader over it runs a read stage.
///
/// ```
/// use std::time::{Duration, Instant};
/// use adl::{Sensor, Series, Timestamps};
/// use adl::files::Latency;
///
/// let times = Timestamps::new("radar", vec![0.0, 0.1, 0.2])?;
/// let remote = Latency::new(Series::new("radar", times, |i| Ok(i * 10)), Duration::from_millis(5));
/// let start = Instant::now();
/// assert_eq!(remote.get(2)?, 20);
/// assert!(start.elapsed() >= Duration::from_millis(5));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct Latency<S> {
    sensor: S,
    delay: Duration,
}

/// A [`Latency`]'s fetch: the wait done, and the inner sensor's fetch.
struct Waited(Fetched);

impl<S: Sensor> Latency<S> {
    /// `sensor`, each read of it waiting `delay` first.
    pub fn new(sensor: S, delay: Duration) -> Self {
        Latency { sensor, delay }
    }

    /// The delay of each read.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// The sensor behind the delay.
    pub fn inner(&self) -> &S {
        &self.sensor
    }
}

impl<S: Sensor> Sensor for Latency<S> {
    type Sample = S::Sample;
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

    /// The inner sensor's sample, after the delay.
    fn get(&self, index: usize) -> Result<S::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    /// The inner sensor's sample: at once with a fetch of it (handed on to
    /// the inner sensor), else after the delay.
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<S::Sample> {
        match fetched.take::<Waited>() {
            Some(Waited(inner)) => self.sensor.get_fetched(index, inner),
            None => {
                std::thread::sleep(self.delay);
                self.sensor.get(index)
            }
        }
    }

    /// Its reads, each waiting the delay first, whether or not the inner
    /// sensor reads ahead; the inner sensor's origins.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }
}

impl<S: Sensor> Storage for Latency<S> {
    type Origin = SensorOrigin;

    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        Some(SensorOrigin::of(&self.sensor, index))
    }

    fn ahead(&self) -> Ahead {
        Ahead::Reads
    }

    /// Wait the delay, then the inner sensor's fetch (where it reads ahead).
    fn fetch(&self, index: usize) -> Result<Fetched> {
        std::thread::sleep(self.delay);
        let inner = match self.sensor.storage() {
            Some(inner) => inner.fetch(index)?,
            None => Fetched::Nothing,
        };
        let bytes = inner.bytes();
        Ok(Fetched::read(Waited(inner), bytes))
    }
}

//! [`Latency`]: a sensor whose every read waits first, as one behind a
//! remote store does.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use adl_core::storage::{Ahead, Storage};
use adl_core::{Result, Sensor, SensorOrigin};

/// A sensor whose every read of a sample first waits `delay`, as a sensor
/// whose files are behind a remote store (an object store, a network file
/// system) does: for tests and benchmarks of what latency does to a
/// pipeline, and of how well a loader's read stage hides it.
///
/// The wait is part of the read: a [`fetch`](adl_core::storage::Storage::fetch) (the read
/// stage's) waits, then fetches from the inner sensor; a
/// [`get`](Sensor::get) of a sample fetched before waits no more, a `get`
/// without a fetch waits itself. A `Latency` always reads ahead
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
    /// Samples fetched and not yet read: how many fetches each.
    fetched: Mutex<HashMap<usize, usize>>,
}

impl<S: Sensor> Latency<S> {
    /// `sensor`, each read of it waiting `delay` first.
    pub fn new(sensor: S, delay: Duration) -> Self {
        Latency {
            sensor,
            delay,
            fetched: Mutex::new(HashMap::new()),
        }
    }

    /// The delay of each read.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// The sensor behind the delay.
    pub fn inner(&self) -> &S {
        &self.sensor
    }

    /// Take one fetch of `index`, if there is one.
    fn take_fetched(&self, index: usize) -> bool {
        let mut fetched = self.fetched.lock().unwrap_or_else(|p| p.into_inner());
        match fetched.get_mut(&index) {
            Some(1) => {
                fetched.remove(&index);
                true
            }
            Some(n) => {
                *n -= 1;
                true
            }
            None => false,
        }
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

    /// The inner sensor's sample: at once after a fetch of it, else after
    /// the delay.
    fn get(&self, index: usize) -> Result<S::Sample> {
        if !self.take_fetched(index) {
            std::thread::sleep(self.delay);
        }
        self.sensor.get(index)
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
    fn fetch(&self, index: usize) -> Result<u64> {
        std::thread::sleep(self.delay);
        let bytes = match self.sensor.storage() {
            Some(inner) => inner.fetch(index)?,
            None => 0,
        };
        let mut fetched = self.fetched.lock().unwrap_or_else(|p| p.into_inner());
        *fetched.entry(index).or_insert(0) += 1;
        Ok(bytes)
    }

    fn release(&self, index: usize) {
        if self.take_fetched(index)
            && let Some(inner) = self.sensor.storage()
        {
            inner.release(index);
        }
    }
}

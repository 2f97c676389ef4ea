//! [`SensorSet`]: the sensors of one recording, of one type or of many,
//! and [`AnySensor`], a sensor seen without its sample type.

use std::sync::Arc;

use crate::storage::{Fetched, Storage};
use crate::{Error, Metadata, Record, Result, Sensor, SensorOrigin};
use adl_exec::timed_sensor;

/// A sensor seen without its sample type: its name and timestamps. A
/// [`Recording`](crate::Recording) of sensors of different types gives its
/// sensors by name as `&dyn AnySensor` ([`Trace::sensor`](crate::Trace::sensor));
/// [`AsAnySensor::as_any_sensor`] views any [`Sensor`] so. The methods of a `dyn AnySensor`
/// need no import.
pub trait AnySensor {
    /// The sensor's name.
    fn name(&self) -> &str;
    /// The time of every sample, in seconds.
    fn timestamps(&self) -> &[f64];
    /// The number of samples.
    fn len(&self) -> usize;
    /// Whether the sensor has no samples.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Where sample `index` is read from ([`SensorOrigin::of`]).
    fn origin(&self, index: usize) -> SensorOrigin {
        self.storage()
            .and_then(|storage| storage.origin(index))
            .unwrap_or_else(|| SensorOrigin::new(self.name(), index))
    }
    /// The engine's side of its samples, where it has one
    /// ([`Sensor::storage`]).
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>>;
}

/// A sensor seen as an [`AnySensor`]: the same memory, another type (no
/// blanket impl on every `Sensor`, so that `name()` is never ambiguous).
#[repr(transparent)]
struct Described<S: ?Sized>(S);

impl<S: Sensor + ?Sized> AnySensor for Described<S> {
    fn name(&self) -> &str {
        Sensor::name(&self.0)
    }
    fn timestamps(&self) -> &[f64] {
        self.0.metadata().timestamps()
    }
    fn len(&self) -> usize {
        Sensor::len(&self.0)
    }
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Sensor::storage(&self.0)
    }
}

/// `sensor` as a `&dyn AnySensor`.
pub fn any_sensor<S: Sensor>(sensor: &S) -> &(dyn AnySensor + '_) {
    // SAFETY: `Described<S>` is `repr(transparent)` over `S`: the same
    // layout, so a reference to one is a valid reference to the other, with
    // the same lifetime.
    let described: &Described<S> = unsafe { &*std::ptr::from_ref(sensor).cast::<Described<S>>() };
    described
}

/// What [`Trace::sensor`](crate::Trace::sensor) gives, seen as a
/// [`dyn AnySensor`](AnySensor): every [`Sensor`], and `dyn AnySensor`
/// itself. Code generic over a trace reaches any trace's sensors' names
/// and timestamps through it ([`Trace::any_sensor`](crate::Trace::any_sensor)).
pub trait AsAnySensor {
    /// This sensor, without its sample type.
    fn as_any_sensor(&self) -> &dyn AnySensor;
}

impl<S: Sensor> AsAnySensor for S {
    fn as_any_sensor(&self) -> &dyn AnySensor {
        any_sensor(self)
    }
}

impl AsAnySensor for dyn AnySensor + '_ {
    fn as_any_sensor(&self) -> &dyn AnySensor {
        self
    }
}

impl std::fmt::Debug for dyn AnySensor + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sensor `{}` ({} samples)", self.name(), self.len())
    }
}

/// The sensors of one [`Recording`](crate::Recording), and how one
/// synchronized sample is read from them.
///
/// Three kinds are ready:
/// - `Vec<S>`: sensors of one type; a sample is a [`Record`] keyed by name.
/// - a tuple of up to eight sensors of any types, `(radar, lidar, imu)`; a
///   sample is the tuple of their samples, `(Radar, Lidar, Imu)`.
/// - a struct of sensors with `#[derive(SensorSet)]` (from the facade
///   `adl`); a sample is a generated struct with one field per sensor,
///   which can derive `Collate`.
///
/// ```
/// use adl::{Dataset, Recording, Sensor, Series, Timestamps, Trace, sync::Nearest};
///
/// let t = |n: &str, v: Vec<f64>| Timestamps::new(n, v);
/// let radar = Series::new("radar", t("radar", vec![0.0, 0.1, 0.2])?, |i| Ok([i as f32; 4]));
/// let imu = Series::new("imu", t("imu", vec![0.0, 0.05, 0.1, 0.15, 0.2])?, |i| Ok(i as u64));
/// let trace = Recording::new("run", (radar, imu), &Nearest::new("radar", 0.01)?)?;
/// let (radar, imu): ([f32; 4], u64) = trace.get(1)?;
/// assert_eq!((radar[0], imu), (1.0, 2));
/// assert_eq!(trace.sensor("imu")?.len(), 5);
/// assert_eq!(trace.sensors().1.name(), "imu"); // typed access
/// # Ok::<(), adl::Error>(())
/// ```
pub trait SensorSet {
    /// One synchronized sample: one value per sensor.
    type Sample;
    /// What [`sensor`](SensorSet::sensor) gives: the sensor type itself
    /// for sensors of one type, [`dyn AnySensor`](AnySensor) otherwise.
    type Sensor<'a>: ?Sized + AsAnySensor
    where
        Self: 'a;

    /// The sensors' names, in order.
    fn names(&self) -> Vec<&str>;

    /// Every sensor's name and timestamps, in order: what a
    /// [`Synchronization`](crate::Synchronization) policy takes.
    fn timestamps(&self) -> Vec<(&str, &[f64])>;

    /// Every sensor's number of samples, in order.
    fn lens(&self) -> Vec<usize>;

    /// The sensor called `name`, if there is one.
    fn sensor(&self, name: &str) -> Option<&Self::Sensor<'_>>;

    /// Read sample `rows[k]` of sensor `k`, for every sensor, with
    /// `fetched[k]`, what its storage read ahead for it
    /// ([`Sensor::get_fetched`]). `names` are the sensors' names in
    /// order, shared by every sample (a keyed sample holds them). `rows`
    /// has one index per sensor; another length is
    /// [`Error::BadIndices`]. A `fetched` of another length is nothing
    /// read ahead.
    fn read(
        &self,
        rows: &[usize],
        names: &Arc<[String]>,
        fetched: Vec<Fetched>,
    ) -> Result<Self::Sample>;
}

/// What each of `sensors` sensors read ahead: `fetched` where it has one
/// read per sensor, else nothing for each (what the `SensorSet::read` of
/// `#[derive(SensorSet)]` takes its sensors' reads from). The reads of
/// the sensors not come to when it is dropped (a sensor before them
/// failed) are [discarded](Fetched::discard), not counted unused.
pub fn fetched_parts(fetched: Vec<Fetched>, sensors: usize) -> impl Iterator<Item = Fetched> {
    let fetched = match fetched.len() == sensors {
        true => fetched,
        false => Vec::new(),
    };
    let missing = sensors - fetched.len();
    FetchedParts {
        reads: fetched.into_iter(),
        missing,
    }
}

/// [`fetched_parts`]' iterator.
struct FetchedParts {
    reads: std::vec::IntoIter<Fetched>,
    /// Parts of nothing still to give after the reads.
    missing: usize,
}

impl Iterator for FetchedParts {
    type Item = Fetched;

    fn next(&mut self) -> Option<Fetched> {
        self.reads.next().or_else(|| {
            self.missing = self.missing.checked_sub(1)?;
            Some(Fetched::Nothing)
        })
    }
}

impl Drop for FetchedParts {
    fn drop(&mut self) {
        self.reads.by_ref().for_each(Fetched::discard);
    }
}

/// `rows` has `sensors` entries, or an [`Error::BadIndices`] says not
/// (what the `SensorSet::read` of `#[derive(SensorSet)]` checks first).
pub fn check_rows(rows: &[usize], sensors: usize) -> Result<()> {
    if rows.len() == sensors {
        Ok(())
    } else {
        Err(Error::BadIndices {
            reason: format!(
                "{} sample indices given for a set of {sensors} sensors",
                rows.len()
            ),
        })
    }
}

impl<S: Sensor> SensorSet for Vec<S> {
    type Sample = Record<S::Sample>;
    type Sensor<'a>
        = S
    where
        S: 'a;

    fn names(&self) -> Vec<&str> {
        self.iter().map(Sensor::name).collect()
    }

    fn timestamps(&self) -> Vec<(&str, &[f64])> {
        self.iter()
            .map(|s| (s.name(), s.metadata().timestamps()))
            .collect()
    }

    fn lens(&self) -> Vec<usize> {
        self.iter().map(Sensor::len).collect()
    }

    fn sensor(&self, name: &str) -> Option<&S> {
        self.iter().find(|s| s.name() == name)
    }

    fn read(
        &self,
        rows: &[usize],
        names: &Arc<[String]>,
        fetched: Vec<Fetched>,
    ) -> Result<Record<S::Sample>> {
        check_rows(rows, self.len())?;
        let values = self
            .iter()
            .zip(rows)
            .zip(fetched_parts(fetched, self.len()))
            .enumerate()
            .map(|(k, ((sensor, &row), read))| timed_sensor(k, || sensor.get_fetched(row, read)))
            .collect::<Result<Vec<_>>>()?;
        Record::new(Arc::clone(names), values)
    }
}

/// `SensorSet` for tuples of sensors of any types.
macro_rules! tuple_set {
    ($count:literal: $($s:ident $i:tt),+) => {
        impl<$($s: Sensor),+> SensorSet for ($($s,)+) {
            type Sample = ($($s::Sample,)+);
            type Sensor<'a>
                = dyn AnySensor + 'a
            where
                Self: 'a;

            fn names(&self) -> Vec<&str> {
                vec![$(Sensor::name(&self.$i)),+]
            }

            fn timestamps(&self) -> Vec<(&str, &[f64])> {
                vec![$((Sensor::name(&self.$i), self.$i.metadata().timestamps())),+]
            }

            fn lens(&self) -> Vec<usize> {
                vec![$(Sensor::len(&self.$i)),+]
            }

            fn sensor(&self, name: &str) -> Option<&(dyn AnySensor + '_)> {
                $(
                    if Sensor::name(&self.$i) == name {
                        return Some(any_sensor(&self.$i));
                    }
                )+
                None
            }

            fn read(
                &self,
                rows: &[usize],
                _names: &Arc<[String]>,
                fetched: Vec<Fetched>,
            ) -> Result<Self::Sample> {
                check_rows(rows, $count)?;
                let mut reads = fetched_parts(fetched, $count);
                Ok(($({
                    let read = reads.next().unwrap_or_default();
                    timed_sensor($i, || self.$i.get_fetched(rows[$i], read))?
                },)+))
            }
        }
    };
}

tuple_set!(1: A 0);
tuple_set!(2: A 0, B 1);
tuple_set!(3: A 0, B 1, C 2);
tuple_set!(4: A 0, B 1, C 2, D 3);
tuple_set!(5: A 0, B 1, C 2, D 3, E 4);
tuple_set!(6: A 0, B 1, C 2, D 3, E 4, F 5);
tuple_set!(7: A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_set!(8: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Series, Timestamps};

    fn series(name: &str, n: usize) -> Series<impl Fn(usize) -> Result<usize>> {
        let times = (0..n).map(|i| i as f64).collect();
        Series::new(name, Timestamps::new(name, times).unwrap(), Ok)
    }

    /// The reads of the sensors after one that failed are discarded, not
    /// counted unused (which the loader reports as a wrapper's loss); a
    /// sample's reads of the wrong shape, dropped whole, still are.
    #[test]
    fn reads_not_come_to_are_discarded() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let unused = Arc::new(AtomicU64::new(0));
        let reads = |n: usize| {
            (0..n)
                .map(|k| {
                    let mut read = Fetched::read(k, 1);
                    read.count_unused(&unused);
                    read
                })
                .collect::<Vec<_>>()
        };
        let mut parts = fetched_parts(reads(3), 3);
        assert_eq!(parts.next().and_then(Fetched::take::<usize>), Some(0));
        drop(parts);
        assert_eq!(unused.load(Ordering::Relaxed), 0);
        let mut parts = fetched_parts(reads(2), 3);
        assert!(parts.all(|p| p.is_nothing()));
        assert_eq!(unused.load(Ordering::Relaxed), 2);
        // A tuple whose second sensor fails: the third's read is not
        // counted.
        let failing = Series::new("b", Timestamps::new("b", vec![0.0]).unwrap(), |_| {
            Err::<usize, _>(Error::invalid("sensor `b`", "corrupt"))
        });
        let set = (series("a", 1), failing, series("c", 1));
        let names: Arc<[String]> = vec!["a".into(), "b".into(), "c".into()].into();
        assert!(set.read(&[0, 0, 0], &names, reads(3)).is_err());
        // The first sensor's read was dropped by its get (a Series takes
        // none), the failing one's too: two unused more, not three.
        assert_eq!(unused.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn tuples_read_each_sensor_at_its_row() {
        let set = (series("a", 3), series("b", 5));
        assert_eq!(set.names(), ["a", "b"]);
        assert_eq!(set.lens(), [3, 5]);
        let names: Arc<[String]> = vec!["a".to_owned(), "b".to_owned()].into();
        assert_eq!(set.read(&[2, 4], &names, Vec::new()).unwrap(), (2, 4));
        assert!(matches!(
            set.read(&[0], &names, Vec::new()),
            Err(Error::BadIndices { .. })
        ));
        assert!(matches!(
            set.read(&[0, 5], &names, Vec::new()),
            Err(Error::IndexOutOfRange { .. })
        ));
        assert_eq!(set.sensor("b").map(|s| s.len()), Some(5));
        assert!(set.sensor("c").is_none());
    }

    #[test]
    fn vectors_read_records() {
        let set = vec![series("a", 3), series("b", 3)];
        let names: Arc<[String]> = vec!["a".to_owned(), "b".to_owned()].into();
        let record = set.read(&[1, 2], &names, Vec::new()).unwrap();
        assert_eq!((record["a"], record["b"]), (1, 2));
        assert!(set.read(&[1], &names, Vec::new()).is_err());
    }
}

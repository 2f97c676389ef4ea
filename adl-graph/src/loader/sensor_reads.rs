//! The dataset's reads counted per sensor: the read stage's per part of a
//! sample, and the workers' timed `get`s per sensor of the set they read
//! (`adl::exec::sensor_times`), per sensor of a
//! recording ([`Storage::parts`](adl_core::storage::Storage::parts)),
//! so that the statistics say which sensor's reads take the time.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

/// What the read stage did for one sensor (one part of every sample),
/// over the loader's life.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SensorReads {
    /// The sensor's name, as the dataset's first sample names it
    /// ([`Origin::of`](adl_core::Origin::of)); where it does not,
    /// `dataset` for samples read whole, `part k` for samples read in
    /// parts.
    pub name: String,
    /// Its reads.
    pub reads: u64,
    /// Of them, the ones that failed (or panicked).
    pub failed: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Time spent reading, summed over the readers.
    pub time: Duration,
    /// The workers' timed `get`s of a sample (one in so many, as the
    /// nodes' calls are timed) that read this sensor: its decode where the
    /// read stage read ahead, its whole read otherwise.
    pub gets: u64,
    /// This sensor's time in those `get`s, summed.
    pub get_time: Duration,
}

/// One part's counts.
#[derive(Debug, Default)]
struct PartCount {
    reads: AtomicU64,
    failed: AtomicU64,
    bytes: AtomicU64,
    nanos: AtomicU64,
    gets: AtomicU64,
    get_nanos: AtomicU64,
}

/// The read stage's counts per part, named.
#[derive(Debug)]
pub(crate) struct PartCounters {
    names: Vec<String>,
    counts: Vec<PartCount>,
}

impl PartCounters {
    /// Counters for parts named `names` (a part past them is counted in
    /// the stage's totals only).
    pub(crate) fn new(names: Vec<String>) -> Self {
        let counts = names.iter().map(|_| PartCount::default()).collect();
        PartCounters { names, counts }
    }

    /// The parts' names.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// Count a read of `part` that took `took`, and kept `bytes` or
    /// failed.
    pub(crate) fn count(&self, part: usize, took: Duration, bytes: u64, failed: bool) {
        if let Some(c) = self.counts.get(part) {
            c.reads.fetch_add(1, Relaxed);
            c.failed.fetch_add(u64::from(failed), Relaxed);
            c.bytes.fetch_add(bytes, Relaxed);
            c.nanos
                .fetch_add(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX), Relaxed);
        }
    }

    /// Count sensor `part`'s time, `took`, in a timed `get` of a sample.
    pub(crate) fn count_get(&self, part: usize, took: Duration) {
        if let Some(c) = self.counts.get(part) {
            c.gets.fetch_add(1, Relaxed);
            c.get_nanos
                .fetch_add(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX), Relaxed);
        }
    }

    /// Each part's counts so far.
    pub(crate) fn snapshot(&self) -> Vec<SensorReads> {
        self.names
            .iter()
            .zip(&self.counts)
            .map(|(name, c)| SensorReads {
                name: name.clone(),
                reads: c.reads.load(Relaxed),
                failed: c.failed.load(Relaxed),
                bytes: c.bytes.load(Relaxed),
                time: Duration::from_nanos(c.nanos.load(Relaxed)),
                gets: c.gets.load(Relaxed),
                get_time: Duration::from_nanos(c.get_nanos.load(Relaxed)),
            })
            .collect()
    }

    /// Start afresh.
    pub(crate) fn reset(&self) {
        for c in &self.counts {
            for n in [
                &c.reads,
                &c.failed,
                &c.bytes,
                &c.nanos,
                &c.gets,
                &c.get_nanos,
            ] {
                n.store(0, Relaxed);
            }
        }
    }
}

/// The names of a sample's `parts` parts: its sensors' as `origin` of the
/// first sample gives them (where it names as many), else `dataset` for
/// a sample read whole, `part 0`, `part 1`, ... for one read in parts.
pub(crate) fn part_names(origin: Option<&adl_core::Origin>, parts: usize) -> Vec<String> {
    match origin {
        Some(o) if o.sensors.len() == parts => o.sensors.iter().map(|s| s.sensor.clone()).collect(),
        _ if parts == 1 => vec!["dataset".to_owned()],
        _ => (0..parts).map(|k| format!("part {k}")).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_counted_per_part_and_reset() {
        let counters = PartCounters::new(vec!["camera".into(), "radar".into()]);
        counters.count(0, Duration::from_millis(3), 100, false);
        counters.count(0, Duration::from_millis(1), 0, true);
        counters.count(1, Duration::from_millis(2), 50, false);
        // A part past the names: the totals only.
        counters.count(2, Duration::from_millis(9), 7, false);
        let seen = counters.snapshot();
        assert_eq!(seen.len(), 2);
        assert_eq!(
            (
                seen[0].name.as_str(),
                seen[0].reads,
                seen[0].failed,
                seen[0].bytes
            ),
            ("camera", 2, 1, 100)
        );
        assert_eq!(seen[0].time, Duration::from_millis(4));
        assert_eq!((seen[1].reads, seen[1].bytes), (1, 50));
        counters.reset();
        assert!(
            counters
                .snapshot()
                .iter()
                .all(|s| s.reads == 0 && s.time.is_zero())
        );
    }

    #[test]
    fn parts_are_named_by_the_first_samples_sensors() {
        let origin = adl_core::Origin::in_trace(
            "drive",
            0,
            vec![
                adl_core::SensorOrigin::new("camera", 0),
                adl_core::SensorOrigin::new("radar", 0),
            ],
        );
        assert_eq!(part_names(Some(&origin), 2), ["camera", "radar"]);
        assert_eq!(part_names(Some(&origin), 3), ["part 0", "part 1", "part 2"]);
        assert_eq!(part_names(None, 1), ["dataset"]);
    }
}

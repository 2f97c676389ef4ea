//! The loader's read stage: reads ahead on threads of their own, in the
//! epoch's order, bounded in bytes, shown in the plan and the statistics;
//! an epoch dropped early leaves nothing held; a failed read ahead is
//! reported by the sample's own read.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use adl::Record;
use adl::graph::loader::Loader;
use adl::pipeline::Stages;
use adl::prelude::*;
use adl::storage::{Ahead, Storage};
use adl::sync::Nearest;

/// A dataset of files behind a slow store: `fetch` waits `latency` and
/// keeps the sample's bytes; `get` uses them, or reads for itself (and
/// waits too) when nothing was fetched. Sample `bad` cannot be read.
struct SlowStore {
    len: usize,
    size: usize,
    latency: Duration,
    bad: Option<usize>,
    kept: Mutex<HashMap<usize, Vec<u8>>>,
    /// Reads `get` had to do itself.
    own_reads: Mutex<usize>,
    /// Reads in flight now, and the most at once.
    in_flight: Mutex<(usize, usize)>,
}

impl SlowStore {
    fn new(len: usize, size: usize, latency: Duration) -> Self {
        SlowStore {
            len,
            size,
            latency,
            bad: None,
            kept: Mutex::new(HashMap::new()),
            own_reads: Mutex::new(0),
            in_flight: Mutex::new((0, 0)),
        }
    }

    fn read(&self, index: usize) -> adl::Result<Vec<u8>> {
        {
            let mut flight = self.in_flight.lock().unwrap();
            flight.0 += 1;
            flight.1 = flight.1.max(flight.0);
        }
        std::thread::sleep(self.latency);
        self.in_flight.lock().unwrap().0 -= 1;
        if Some(index) == self.bad {
            return Err(Error::read(
                format!("object {index}"),
                index,
                "connection reset",
            ));
        }
        Ok(vec![(index % 251) as u8; self.size])
    }

    fn held(&self) -> usize {
        self.kept.lock().unwrap().len()
    }
}

impl Dataset for SlowStore {
    type Sample = u64;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> adl::Result<u64> {
        let kept = self.kept.lock().unwrap().remove(&index);
        let bytes = match kept {
            Some(bytes) => bytes,
            None => {
                *self.own_reads.lock().unwrap() += 1;
                self.read(index)?
            }
        };
        Ok(bytes.iter().map(|&b| u64::from(b)).sum())
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = adl::Origin>> {
        Some(self)
    }
}

impl Storage for SlowStore {
    type Origin = adl::Origin;

    fn ahead(&self) -> Ahead {
        Ahead::Reads
    }

    fn fetch(&self, index: usize) -> adl::Result<u64> {
        let bytes = self.read(index)?;
        let n = bytes.len() as u64;
        self.kept.lock().unwrap().insert(index, bytes);
        Ok(n)
    }

    fn release(&self, index: usize) {
        self.kept.lock().unwrap().remove(&index);
    }
}

/// The pipeline of every test: the sums, collated.
macro_rules! sums {
    () => {
        Stages::new()
            .with_sample(|x: u64| x)
            .with_collate(DefaultCollate)
    };
}

fn expected(index: usize, size: usize) -> u64 {
    (index % 251) as u64 * size as u64
}

#[test]
fn reads_run_ahead_on_their_own_threads_and_the_plan_and_statistics_show_them() {
    let store = SlowStore::new(200, 1000, Duration::from_millis(20));
    let loader = Loader::new(store, sums!())
        .batch_size(10)
        .workers(2)
        .shuffle(3)
        .read_bound(16_000)
        .build()
        .unwrap();
    // The dataset reads ahead: a read stage by default, in the plan, as
    // many threads as fit the machine to start with.
    let start = adl::graph::loader::starting_readers(1);
    let schedule = loader.plan().schedule().to_string();
    assert!(
        schedule.starts_with(&format!(
            "read: read-ahead, {start} threads, at most 15.6 KiB ahead\n"
        )),
        "{schedule}"
    );
    // The order from the epoch that is read: starting a second epoch only
    // to ask it would start its read stage too.
    let epoch = loader.epoch(0);
    let order = epoch.indices().to_vec();
    let mut seen = Vec::new();
    for batch in epoch {
        let batch = batch.unwrap();
        seen.extend(batch.to_vec());
    }
    assert_eq!(
        seen,
        order.iter().map(|&i| expected(i, 1000)).collect::<Vec<_>>()
    );
    // The reads wait on the store and the workers waited for them: the
    // readers grew, and had many reads at once (two workers would have had
    // two at most), and no read was left for the workers to do themselves.
    let grown = loader.statistics().reads.threads;
    assert!(grown > start, "{grown} readers, {start} at the start");
    assert!(grown <= adl::graph::loader::most_readers(1));
    let dataset = loader.dataset();
    let most = dataset.in_flight.lock().unwrap().1;
    assert!(most > start.max(2), "at most {most} reads in flight");
    assert_eq!(*dataset.own_reads.lock().unwrap(), 0);
    assert_eq!(dataset.held(), 0);
    let stats = loader.statistics();
    assert_eq!(stats.reads.reads, 200);
    assert_eq!(stats.reads.bytes, 200_000);
    assert!(stats.reads.time >= Duration::from_millis(200 * 20));
    // The bound, plus one read per reader.
    assert!(
        stats.reads.peak <= 16_000 + grown as u64 * 1000,
        "{:?}",
        stats.reads
    );
    let text = stats.to_string();
    assert!(text.contains("read stage: 200 reads (0 failed)"), "{text}");
    // The next epoch starts with the readers grown to.
    let plan_start = loader
        .plan()
        .schedule()
        .readers()
        .map(|(threads, _)| threads);
    assert_eq!(plan_start, Some(start));
    assert_eq!(loader.epoch(1).count(), 20);
    assert!(loader.statistics().reads.threads >= grown);
}

#[test]
fn readers_the_program_sets_do_not_grow() {
    let store = SlowStore::new(60, 10, Duration::from_millis(10));
    let loader = Loader::new(store, sums!())
        .batch_size(10)
        .workers(2)
        .readers(2)
        .build()
        .unwrap();
    assert_eq!(loader.epoch(0).count(), 6);
    let stats = loader.statistics();
    assert_eq!(stats.reads.threads, 2);
    assert!(loader.dataset().in_flight.lock().unwrap().1 <= 2);
}

#[test]
fn without_a_read_stage_the_workers_read_for_themselves() {
    let store = SlowStore::new(20, 10, Duration::ZERO);
    let loader = Loader::new(store, sums!())
        .batch_size(5)
        .workers(2)
        .readers(0)
        .build()
        .unwrap();
    assert!(loader.plan().schedule().readers().is_none());
    let total: usize = loader.epoch(0).map(|b| b.unwrap().len()).sum();
    assert_eq!(total, 20);
    assert_eq!(*loader.dataset().own_reads.lock().unwrap(), 20);
    assert_eq!(loader.statistics().reads.reads, 0);
}

#[test]
fn an_epoch_dropped_early_leaves_nothing_read_ahead() {
    let store = SlowStore::new(400, 100, Duration::from_millis(2));
    let loader = Loader::new(store, sums!())
        .batch_size(4)
        .workers(2)
        .readers(8)
        .build()
        .unwrap();
    let mut epoch = loader.epoch(0);
    let first = epoch.next().unwrap().unwrap();
    assert_eq!(first.len(), 4);
    drop(first);
    drop(epoch);
    // Readers in the middle of a read finish it and let it go.
    let dataset = loader.dataset();
    for _ in 0..100 {
        if dataset.held() == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(dataset.held(), 0);
    // The next epoch reads everything again, correctly.
    let total: usize = loader.epoch(1).map(|b| b.unwrap().len()).sum();
    assert_eq!(total, 400);
}

#[test]
fn a_failed_read_ahead_is_reported_by_the_samples_own_read() {
    let mut store = SlowStore::new(30, 10, Duration::from_millis(1));
    store.bad = Some(17);
    let loader = Loader::new(store, sums!())
        .batch_size(10)
        .workers(2)
        .readers(4)
        .on_error(OnError::Skip)
        .build()
        .unwrap();
    let mut epoch = loader.epoch(0);
    let total: usize = epoch.by_ref().map(|b| b.unwrap().len()).sum();
    assert_eq!(total, 29);
    let skipped = epoch.skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].index, 17);
    assert_eq!(skipped[0].node, "dataset");
    assert!(
        skipped[0]
            .reason
            .contains("reading object 17 [17]: connection reset"),
        "{}",
        skipped[0].reason
    );
    drop(epoch);
    let stats = loader.statistics();
    assert_eq!((stats.reads.reads, stats.reads.failed), (30, 1));
}

/// A camera-like sensor behind a slow store, one of several in a
/// recording: its fetch of row `r` waits until every sensor of `meeting`
/// has begun its fetch of that sample, so it fails unless a sample's
/// sensors are read at once.
struct MeetingSensor {
    name: String,
    timestamps: Timestamps,
    meeting: std::sync::Arc<Meeting>,
    kept: Mutex<HashMap<usize, u64>>,
}

/// The sensors of one recording meeting per sample (the same row in each:
/// the sensors share their timestamps).
struct Meeting {
    sensors: usize,
    begun: Mutex<HashMap<usize, usize>>,
    changed: std::sync::Condvar,
}

impl Sensor for MeetingSensor {
    type Sample = u64;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> adl::Result<u64> {
        match self.kept.lock().unwrap().remove(&index) {
            Some(value) => Ok(value),
            None => Err(Error::read(&self.name, index, "not read ahead")),
        }
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = adl::SensorOrigin>> {
        Some(self)
    }
}

impl Storage for MeetingSensor {
    type Origin = adl::SensorOrigin;

    fn ahead(&self) -> Ahead {
        Ahead::Reads
    }

    fn fetch(&self, index: usize) -> adl::Result<u64> {
        let meeting = &self.meeting;
        let mut begun = meeting.begun.lock().unwrap();
        *begun.entry(index).or_default() += 1;
        meeting.changed.notify_all();
        let (begun, waited) = meeting
            .changed
            .wait_timeout_while(begun, Duration::from_secs(10), |b| {
                b[&index] < meeting.sensors
            })
            .unwrap();
        drop(begun);
        if waited.timed_out() {
            return Err(Error::read(&self.name, index, "read alone"));
        }
        self.kept.lock().unwrap().insert(index, index as u64);
        Ok(8)
    }

    fn release(&self, index: usize) {
        self.kept.lock().unwrap().remove(&index);
    }
}

#[test]
fn a_recordings_sensors_are_read_at_once() {
    let meeting = std::sync::Arc::new(Meeting {
        sensors: 3,
        begun: Mutex::default(),
        changed: std::sync::Condvar::new(),
    });
    let times: Vec<f64> = (0..24).map(|i| f64::from(i) * 0.1).collect();
    let sensor = |name: &str| MeetingSensor {
        name: name.to_string(),
        timestamps: Timestamps::new(name, times.clone()).unwrap(),
        meeting: std::sync::Arc::clone(&meeting),
        kept: Mutex::default(),
    };
    let sensors = vec![sensor("camera"), sensor("radar"), sensor("lidar")];
    let recording =
        Recording::new("drive", sensors, &Nearest::new("camera", 0.01).unwrap()).unwrap();
    assert_eq!(recording.storage().map(|r| r.parts(5)), Some(3));
    // By default, a sample per core at once: a reader per sensor of each.
    let recording = std::sync::Arc::new(recording);
    let by_default = Loader::new(
        std::sync::Arc::clone(&recording),
        Stages::new()
            .with_sample(|r: Record<u64>| r.values().iter().sum::<u64>())
            .with_collate(DefaultCollate),
    )
    .build()
    .unwrap();
    assert_eq!(
        by_default
            .plan()
            .schedule()
            .readers()
            .map(|(threads, _)| threads),
        Some(adl::graph::loader::starting_readers(3))
    );
    assert_eq!(adl::graph::loader::starting_readers(3) % 3, 0);
    drop(by_default);
    let recording = std::sync::Arc::into_inner(recording).unwrap();
    // Three readers: one sample's three sensors at a time, each sensor's
    // read waiting for the other two.
    let loader = Loader::new(
        recording,
        Stages::new()
            .with_sample(|r: Record<u64>| r.values().iter().sum::<u64>())
            .with_collate(DefaultCollate),
    )
    .batch_size(4)
    .workers(2)
    .readers(3)
    .build()
    .unwrap();
    // The order from the epoch that is read: an epoch started only to ask
    // it would start reads of its own, whose sensors meet the next epoch's
    // at the barrier above, and break it.
    let epoch = loader.epoch(0);
    let order = epoch.indices().to_vec();
    let seen: Vec<u64> = epoch.flat_map(|b| b.unwrap().to_vec()).collect();
    assert_eq!(
        seen,
        order.iter().map(|&i| 3 * i as u64).collect::<Vec<_>>()
    );
    let reads = loader.statistics().reads;
    assert_eq!(
        (reads.reads, reads.failed, reads.bytes),
        (24, 0, 24 * 3 * 8)
    );
}

/// A sensor behind a store of its own latency: its fetch of row `r` waits
/// `latency` and keeps `bytes` bytes; its `get` gives the row of what was
/// kept.
struct SlowSensor {
    name: &'static str,
    timestamps: Timestamps,
    latency: Duration,
    bytes: u64,
    kept: Mutex<HashMap<usize, u64>>,
}

impl SlowSensor {
    fn new(name: &'static str, rows: usize, latency: Duration, bytes: u64) -> Self {
        let times = (0..rows).map(|i| i as f64 * 0.1).collect();
        SlowSensor {
            name,
            timestamps: Timestamps::new(name, times).unwrap(),
            latency,
            bytes,
            kept: Mutex::default(),
        }
    }
}

impl Sensor for SlowSensor {
    type Sample = u64;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> adl::Result<u64> {
        match self.kept.lock().unwrap().remove(&index) {
            Some(value) => Ok(value),
            None => Ok(index as u64),
        }
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = adl::SensorOrigin>> {
        Some(self)
    }
}

impl Storage for SlowSensor {
    type Origin = adl::SensorOrigin;

    fn ahead(&self) -> Ahead {
        Ahead::Reads
    }

    fn fetch(&self, index: usize) -> adl::Result<u64> {
        std::thread::sleep(self.latency);
        self.kept.lock().unwrap().insert(index, index as u64);
        Ok(self.bytes)
    }

    fn release(&self, index: usize) {
        self.kept.lock().unwrap().remove(&index);
    }
}

#[test]
fn statistics_split_the_reads_per_sensor_and_decoding_is_not_reading() {
    // The camera's store is slow, the IMU's answers at once.
    let sensors = vec![
        SlowSensor::new("camera", 24, Duration::from_millis(8), 1000),
        SlowSensor::new("imu", 24, Duration::ZERO, 10),
    ];
    let recording = Recording::aligned("drive", sensors).unwrap();
    let loader = Loader::new(
        recording,
        Stages::new()
            .with_sample(|r: Record<u64>| r.values().iter().sum::<u64>())
            .with_collate(DefaultCollate),
    )
    .batch_size(4)
    .workers(2)
    .readers(4)
    .build()
    .unwrap();
    assert_eq!(loader.epoch(0).count(), 6);
    let stats = loader.statistics();
    let names: Vec<&str> = stats.sensors.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["camera", "imu"]);
    let (camera, imu) = (&stats.sensors[0], &stats.sensors[1]);
    assert_eq!((camera.reads, camera.bytes), (24, 24_000));
    assert_eq!((imu.reads, imu.bytes), (24, 240));
    assert!(camera.time >= Duration::from_millis(24 * 8), "{camera:?}");
    assert!(imu.time * 8 < camera.time, "{imu:?} against {camera:?}");
    // The workers' `get` decodes what was read ahead: a row of its own,
    // beside their wait for the read stage.
    let row = |measured| stats.nodes.iter().find(|n| n.measured == measured);
    let decode = row(adl::graph::loader::Measured::Decode).expect("a decode row");
    assert_eq!((decode.name.as_str(), decode.calls), ("dataset", 24));
    assert!(row(adl::graph::loader::Measured::Read).is_none());
    assert!(row(adl::graph::loader::Measured::ReadWait).is_some());
    let text = stats.to_string();
    assert!(
        text.contains("\n  camera  24 reads (0 failed), 24.0 kB in "),
        "{text}"
    );
    assert!(
        text.contains("\n  imu     24 reads (0 failed), 240 B in "),
        "{text}"
    );
    assert!(text.contains("dataset     decode"), "{text}");
}

#[test]
fn without_a_read_stage_each_sensors_share_of_the_read_is_said() {
    // Sensors in memory (nothing read ahead): the workers' `get` reads
    // them, and the statistics say which one takes the time.
    let times = || Timestamps::new("t", (0..64).map(|i| f64::from(i) * 0.1).collect()).unwrap();
    let lidar = adl::Series::new("lidar", times(), |i| {
        std::thread::sleep(Duration::from_millis(3));
        Ok(i as u64)
    });
    let imu = adl::Series::new("imu", times(), |i| Ok(i as u64));
    let recording = Recording::aligned("drive", (lidar, imu)).unwrap();
    let loader = Loader::new(
        recording,
        Stages::new()
            .with_sample(|(a, b): (u64, u64)| a + b)
            .with_collate(DefaultCollate),
    )
    .batch_size(8)
    .workers(2)
    .build()
    .unwrap();
    assert_eq!(loader.epoch(0).count(), 8);
    let stats = loader.statistics();
    let names: Vec<&str> = stats.sensors.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["lidar", "imu"]);
    let (lidar, imu) = (&stats.sensors[0], &stats.sensors[1]);
    assert!(
        lidar.gets > 0 && lidar.gets == imu.gets,
        "{lidar:?} {imu:?}"
    );
    assert_eq!((lidar.reads, imu.reads), (0, 0), "no read stage");
    assert!(
        lidar.get_time >= Duration::from_millis(3) * lidar.gets as u32,
        "{lidar:?}"
    );
    assert!(
        imu.get_time * 10 < lidar.get_time,
        "{imu:?} against {lidar:?}"
    );
    let text = stats.to_string();
    assert!(text.contains("the dataset's read per sensor"), "{text}");
    assert!(text.contains("\n  lidar  "), "{text}");
}

#[test]
fn a_memory_budget_bounds_the_reads_held_ahead() {
    // 240 samples of 100 kB behind 1 ms, and a consumer that takes 2 ms a
    // batch: the reads are done long before the consumer takes them, so
    // without a budget they pile up (the default bound is 256 MiB).
    let run = |budget: Option<u64>| {
        let store = SlowStore::new(240, 100_000, Duration::from_millis(1));
        let mut builder = Loader::new(store, sums!()).batch_size(4).workers(2);
        if let Some(budget) = budget {
            builder = builder.memory_budget(budget);
        }
        let loader = builder.build().unwrap();
        let epoch = loader.epoch(0);
        let order = epoch.indices().to_vec();
        let mut seen = Vec::new();
        for batch in epoch {
            seen.extend(batch.unwrap().to_vec());
            std::thread::sleep(Duration::from_millis(2));
        }
        assert_eq!(
            seen,
            order
                .iter()
                .map(|&i| expected(i, 100_000))
                .collect::<Vec<_>>()
        );
        assert_eq!(loader.dataset().held(), 0);
        loader.statistics()
    };
    let free = run(None);
    assert!(free.tuning.is_none());
    assert!(free.reads.peak > 3_000_000, "{:?}", free.reads);
    let budgeted = run(Some(3_000_000));
    let tuning = budgeted.tuning.clone().expect("a budget was set");
    assert!(
        !tuning.over_budget && tuning.planned <= 3_000_000,
        "{tuning}"
    );
    // Batches of 4 numbers, under the pool's 16 KiB, are counted too.
    assert_eq!(tuning.batch_bytes, Some(32), "{tuning}");
    // The consumer's 2 ms a batch is measured, and weighed.
    assert!(tuning.why[0].contains("ms of its own"), "{tuning}");
    assert!(tuning.read_bound >= 400_000, "{tuning}");
    assert!(budgeted.reads.peak <= 3_000_000, "{:?}", budgeted.reads);
    assert_eq!(budgeted.reads.bound, tuning.read_bound);
    let text = budgeted.to_string();
    assert!(text.contains("memory budget 3.0 MB: "), "{text}");
}

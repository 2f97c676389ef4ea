//! The loader's read stage: reads ahead on threads of their own, in the
//! epoch's order, bounded in bytes, shown in the plan and the statistics;
//! an epoch dropped early leaves nothing held; a failed read ahead is
//! reported by the sample's own read.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use adl::Record;
use adl::graph::loader::Loader;
use adl::pipeline::Stages;
use adl::prelude::*;
use adl::storage::{Ahead, Fetched, Storage};
use adl::sync::Nearest;

/// A sample's bytes read ahead, counted in `live` while they are.
struct Bytes {
    data: Vec<u8>,
    live: Arc<AtomicUsize>,
}

impl Drop for Bytes {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A dataset of files behind a slow store: `fetch` waits `latency` and
/// gives the sample's bytes; `get_fetched` uses them, and `get` reads for
/// itself (and waits too). Sample `bad` cannot be read.
struct SlowStore {
    len: usize,
    size: usize,
    latency: Duration,
    bad: Option<usize>,
    /// Reads ahead alive (made and not yet dropped).
    live: Arc<AtomicUsize>,
    /// Fetches made.
    fetches: AtomicUsize,
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
            live: Arc::default(),
            fetches: AtomicUsize::new(0),
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
        self.live.load(Ordering::SeqCst)
    }

    fn sum(bytes: &[u8]) -> u64 {
        bytes.iter().map(|&b| u64::from(b)).sum()
    }
}

impl Dataset for SlowStore {
    type Sample = u64;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> adl::Result<u64> {
        *self.own_reads.lock().unwrap() += 1;
        Ok(SlowStore::sum(&self.read(index)?))
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> adl::Result<u64> {
        match fetched.take::<Bytes>() {
            Some(bytes) => Ok(SlowStore::sum(&bytes.data)),
            None => self.get(index),
        }
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

    fn fetch(&self, index: usize) -> adl::Result<Fetched> {
        self.fetches.fetch_add(1, Ordering::SeqCst);
        let data = self.read(index)?;
        let n = data.len() as u64;
        self.live.fetch_add(1, Ordering::SeqCst);
        let live = Arc::clone(&self.live);
        Ok(Fetched::read(Bytes { data, live }, n))
    }
}

/// The read stage's threads at the start by the documented rule
/// (`LoaderBuilder::readers`): a sample per core at once (at least two),
/// a thread for each of its `parts` reads, at most 256.
fn starting_readers(parts: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores.max(2) * parts).min(256)
}

/// The most it grows to by the same rule: 32 samples at once.
fn most_readers(parts: usize) -> usize {
    (32 * parts).min(256).max(starting_readers(parts))
}

/// The pipeline of every test: the sums, collated.
macro_rules! sums {
    () => {
        Stages::new()
            .with_sample(|x: u64| x)
            .with_collate(DefaultCollate)
    };
}

/// Epoch 0's sums, batch after batch.
macro_rules! epoch_sums {
    ($loader:expr) => {
        $loader
            .epoch(0)
            .flat_map(|b| b.unwrap().into_inner().to_vec())
            .collect::<Vec<u64>>()
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
        // One epoch's reads are counted: none done ahead for the next.
        .read_next_epoch(false)
        .build()
        .unwrap();
    // The dataset reads ahead: a read stage by default, in the plan, as
    // many threads as fit the machine to start with.
    let start = starting_readers(1);
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
    assert!(grown <= most_readers(1));
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
        Err(Error::read(&self.name, index, "not read ahead"))
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> adl::Result<u64> {
        match fetched.take::<u64>() {
            Some(value) => Ok(value),
            None => self.get(index),
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

    fn fetch(&self, index: usize) -> adl::Result<Fetched> {
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
        Ok(Fetched::read(index as u64, 8))
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
        Some(starting_readers(3))
    );
    assert_eq!(starting_readers(3) % 3, 0);
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
/// `latency` and gives `bytes` bytes; its `get_fetched` gives the row of
/// what was read.
pub(crate) struct SlowSensor {
    name: &'static str,
    timestamps: Timestamps,
    latency: Duration,
    bytes: u64,
}

impl SlowSensor {
    pub(crate) fn new(name: &'static str, rows: usize, latency: Duration, bytes: u64) -> Self {
        let times = (0..rows).map(|i| i as f64 * 0.1).collect();
        SlowSensor {
            name,
            timestamps: Timestamps::new(name, times).unwrap(),
            latency,
            bytes,
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
        Ok(index as u64)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> adl::Result<u64> {
        Ok(fetched.take::<u64>().unwrap_or(index as u64))
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

    fn fetch(&self, index: usize) -> adl::Result<Fetched> {
        std::thread::sleep(self.latency);
        Ok(Fetched::read(index as u64, self.bytes))
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
    // 240 samples of 100 kB behind 1 ms, and a consumer that takes 5 ms a
    // batch of 4: the reads (2 readers or more, 2 ms a batch at most) are
    // done long before the consumer takes them, so without a budget they
    // pile up (the default bound is 256 MiB). At 2 ms a batch the two
    // kept pace on a busy machine, and nothing piled up.
    let run = |budget: Option<u64>| {
        let store = SlowStore::new(240, 100_000, Duration::from_millis(1));
        let mut builder = Loader::new(store, sums!()).batch_size(4).workers(2);
        // One epoch's reads held: none ahead for the next.
        builder = builder.read_next_epoch(false);
        if let Some(budget) = budget {
            builder = builder.memory_budget(budget);
        }
        let loader = builder.build().unwrap();
        let epoch = loader.epoch(0);
        let order = epoch.indices().to_vec();
        let mut seen = Vec::new();
        for batch in epoch {
            seen.extend(batch.unwrap().to_vec());
            std::thread::sleep(Duration::from_millis(5));
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

#[test]
fn an_epoch_with_every_index_twice_reads_each_position_for_its_own_get() {
    let n = 30;
    let store = Arc::new(SlowStore::new(n, 100, Duration::from_millis(2)));
    let twice: Vec<usize> = (0..n).flat_map(|i| [i, i]).collect();
    let loader = Loader::new(Arc::clone(&store), sums!())
        .batch_size(4)
        .workers(2)
        .indices(twice.clone())
        // One epoch's reads are counted: none done ahead for the next.
        .read_next_epoch(false)
        .build()
        .unwrap();
    let sums = epoch_sums!(loader);
    let expected_sums: Vec<u64> = twice.iter().map(|&i| expected(i, 100)).collect();
    assert_eq!(sums, expected_sums);
    // One read per position, each taken by its own get: none read twice
    // by a get, none left.
    assert_eq!(store.fetches.load(Ordering::SeqCst), 2 * n);
    assert_eq!(*store.own_reads.lock().unwrap(), 0);
    assert_eq!(store.held(), 0);
}

#[test]
fn two_loaders_interleaved_over_one_dataset_each_get_their_own_reads() {
    let n = 40;
    let store = Arc::new(SlowStore::new(n, 100, Duration::from_millis(2)));
    let loader = |seed| {
        Loader::new(Arc::clone(&store), sums!())
            .batch_size(5)
            .workers(2)
            .shuffle(seed)
            // One epoch's reads are counted: none done ahead for the next.
            .read_next_epoch(false)
            .build()
            .unwrap()
    };
    let (a, b) = (loader(1), loader(2));
    let (mut ea, mut eb) = (a.epoch(0), b.epoch(0));
    let want = |epoch: &adl::graph::loader::Epoch<'_, _, _>| -> Vec<u64> {
        epoch.indices().iter().map(|i| expected(i, 100)).collect()
    };
    let (want_a, want_b) = (want(&ea), want(&eb));
    let (mut got_a, mut got_b) = (Vec::new(), Vec::new());
    loop {
        let (x, y) = (ea.next(), eb.next());
        if x.is_none() && y.is_none() {
            break;
        }
        got_a.extend(
            x.map(|b| b.unwrap().into_inner().to_vec())
                .unwrap_or_default(),
        );
        got_b.extend(
            y.map(|b| b.unwrap().into_inner().to_vec())
                .unwrap_or_default(),
        );
    }
    assert_eq!(got_a, want_a);
    assert_eq!(got_b, want_b);
    assert_ne!(got_a, got_b, "two orders");
    drop((ea, eb));
    // Each loader read every sample once for its own gets.
    assert_eq!(store.fetches.load(Ordering::SeqCst), 2 * n);
    assert_eq!(*store.own_reads.lock().unwrap(), 0);
    assert_eq!(store.held(), 0);
}

/// A wrapper that gives its source's storage but forgets its
/// `get_fetched`: the reads ahead reach a `get` that drops them.
struct Forgetful(Arc<SlowStore>);

impl Dataset for Forgetful {
    type Sample = u64;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, index: usize) -> adl::Result<u64> {
        self.0.get(index)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = adl::Origin>> {
        self.0.storage()
    }
}

#[test]
fn reads_ahead_a_wrapper_drops_unused_are_counted_and_said() {
    let n = 12;
    let store = Arc::new(SlowStore::new(n, 10, Duration::ZERO));
    let loader = Loader::new(Forgetful(Arc::clone(&store)), sums!())
        .batch_size(4)
        .workers(2)
        // One epoch's reads are counted: none done ahead for the next.
        .read_next_epoch(false)
        .build()
        .unwrap();
    let sums = epoch_sums!(loader);
    assert_eq!(sums, (0..n).map(|i| expected(i, 10)).collect::<Vec<_>>());
    // Each sample read twice: ahead, and again by its get.
    assert_eq!(store.fetches.load(Ordering::SeqCst), n);
    assert_eq!(*store.own_reads.lock().unwrap(), n);
    let statistics = loader.statistics();
    assert_eq!(statistics.reads.unused, n as u64);
    let text = statistics.to_string();
    assert!(
        text.contains("12 reads ahead dropped unused by the dataset's get: a wrapper gives its source's storage() but not get_fetched()"),
        "{text}"
    );
    assert_eq!(store.held(), 0);
}

/// Wait (at most 20 s) until `done` holds; whether it did.
fn settles(done: impl Fn() -> bool) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !done() {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

#[test]
fn the_next_epochs_first_window_is_read_during_the_epoch_and_taken_over() {
    let n = 40;
    let store = Arc::new(SlowStore::new(n, 100, Duration::from_millis(2)));
    let loader = Loader::new(Arc::clone(&store), sums!())
        .batch_size(4)
        .workers(2)
        .batches_ahead(2)
        // `read_next_epoch` is on by default.
        .build()
        .unwrap();
    let order: Vec<u64> = (0..n).map(|i| expected(i, 100)).collect();
    assert_eq!(epoch_sums!(loader), order);
    // Epoch 1's first window (2 batches of 4) is read once epoch 0's reads
    // are all started, and no more: it waits for epoch 1.
    assert!(settles(|| store.fetches.load(Ordering::SeqCst) == n + 8));
    // Held for epoch 1, once read (a fetch is counted as it starts).
    assert!(settles(|| store.held() == 8), "{} reads held", store.held());
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(store.fetches.load(Ordering::SeqCst), n + 8);
    // Counted once epoch 1 takes them over: not yet.
    assert_eq!(loader.statistics().reads.reads, n as u64);
    let sums: Vec<u64> = (loader.epoch(1))
        .flat_map(|b| b.unwrap().into_inner().to_vec())
        .collect();
    assert_eq!(sums, order);
    // Every get of both epochs had its read ahead, each sample read once
    // an epoch (epoch 2's window read during epoch 1 besides).
    assert_eq!(*store.own_reads.lock().unwrap(), 0);
    assert!(settles(|| store.fetches.load(Ordering::SeqCst) == 2 * n + 8));
    assert_eq!(loader.statistics().reads.reads, 2 * n as u64);
    // Dropping the loader drops what it read for epoch 2; its readers end.
    drop(loader);
    assert!(settles(|| store.held() == 0), "{} reads held", store.held());
}

#[test]
fn an_epoch_started_otherwise_drops_the_reads_done_ahead_for_another() {
    let n = 24;
    let store = Arc::new(SlowStore::new(n, 10, Duration::from_millis(1)));
    let loader = Loader::new(Arc::clone(&store), sums!())
        .batch_size(4)
        .workers(2)
        .batches_ahead(2)
        .shuffle(7)
        .read_next_epoch(true)
        .build()
        .unwrap();
    let sums = |epoch: u64| -> Vec<u64> {
        let batches = loader.epoch(epoch);
        let order: Vec<usize> = batches.indices().iter().collect();
        let got = batches
            .flat_map(|b| b.unwrap().into_inner().to_vec())
            .collect::<Vec<u64>>();
        assert_eq!(
            got,
            order.iter().map(|&i| expected(i, 10)).collect::<Vec<_>>()
        );
        got
    };
    sums(0);
    assert!(settles(|| store.fetches.load(Ordering::SeqCst) == n + 8));
    // Epoch 5, not 1: what was read for epoch 1 is dropped, uncounted, and
    // epoch 5 reads its own.
    sums(5);
    assert_eq!(*store.own_reads.lock().unwrap(), 0);
    assert_eq!(loader.statistics().reads.reads, 2 * n as u64);
    // Resumed past its start, epoch 6 does not take what epoch 5 read
    // for it either: its samples are right all the same.
    let mut state = loader.epoch(6).state();
    state.cursor = 4;
    let resumed: Vec<u64> = (loader.resume(&state).unwrap())
        .flat_map(|b| b.unwrap().into_inner().to_vec())
        .collect();
    assert_eq!(resumed.len(), n - 4);
    assert_eq!(*store.own_reads.lock().unwrap(), 0);
    drop(loader);
    assert!(settles(|| store.held() == 0), "{} reads held", store.held());
}

#[test]
fn an_epoch_ending_after_the_next_started_carries_nothing_over() {
    let n = 24;
    let store = Arc::new(SlowStore::new(n, 10, Duration::from_millis(1)));
    let loader = Loader::new(Arc::clone(&store), sums!())
        .batch_size(4)
        .workers(2)
        .batches_ahead(2)
        .build()
        .unwrap();
    // Epoch 0's batches all taken, the epoch kept alive, and epoch 1
    // started meanwhile (as a resumed epoch at its end is, beside the
    // next): epoch 1 reads for itself, and epoch 0, dropped after, keeps
    // nothing for it.
    let mut first = loader.epoch(0);
    let taken = first.by_ref().take(n / 4).count();
    assert_eq!(taken, n / 4);
    let second = loader.epoch(1);
    drop(first);
    // Held: epoch 1's reads (the whole epoch fits the bound) and epoch
    // 2's first window, not epoch 0's reads for epoch 1 besides.
    assert!(
        settles(|| store.held() == n + 8),
        "{} reads held",
        store.held()
    );
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(store.held(), n + 8);
    let sums: Vec<u64> = second
        .flat_map(|b| b.unwrap().into_inner().to_vec())
        .collect();
    assert_eq!(sums, (0..n).map(|i| expected(i, 10)).collect::<Vec<_>>());
    // Held: epoch 2's first window, read during epoch 1, and no other.
    assert!(settles(|| store.held() == 8), "{} reads held", store.held());
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(store.held(), 8);
    drop(loader);
    assert!(settles(|| store.held() == 0), "{} reads held", store.held());
}

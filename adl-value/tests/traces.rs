//! Traces of value sensors, synchronized by their index columns, one
//! after another as one dataset: the samples, the errors that say where,
//! and the loader over them.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use adl_core::storage::{Ahead, Fetched, Storage};
use adl_core::{Dataset, Error, Result, SensorOrigin};
use adl_graph::loader::Loader;
use adl_value::{AnyArray, TraceSensor, Value, ValueSensor, ValueTrace, ValueTraces};
use ndarray::{ArrayD, IxDyn};

/// A sensor of `len` samples: sample `i` is `offset + i`.
struct Counter {
    len: usize,
    offset: u64,
}

impl ValueSensor for Counter {
    fn len(&self) -> usize {
        self.len
    }

    fn value(&self, index: usize) -> Result<Value> {
        Ok(Value::Array(AnyArray::I64(ArrayD::from_elem(
            IxDyn(&[]),
            (self.offset + index as u64) as i64,
        ))))
    }
}

fn sensor(name: &str, len: usize, offset: u64, rows: Option<Vec<usize>>) -> TraceSensor {
    TraceSensor {
        name: Arc::from(name),
        sensor: Box::new(Counter { len, offset }),
        rows,
    }
}

/// The number at `key` of a sample.
fn at(sample: &Value, key: &str) -> u64 {
    let Value::Map(items) = sample else {
        panic!("a sample is a map: {}", sample.kind())
    };
    let (_, value) = items.iter().find(|(k, _)| &**k == key).unwrap();
    match value {
        Value::Array(AnyArray::I64(a)) => a.iter().copied().next().unwrap() as u64,
        other => panic!("{}", other.kind()),
    }
}

/// A trace of a 10 Hz radar and a 100 Hz IMU, synchronized to the radar:
/// the IMU's index for each radar sample.
fn flight() -> ValueTrace {
    ValueTrace::new(
        "flight",
        vec![
            sensor("radar", 3, 0, Some(vec![0, 1, 2])),
            sensor("imu", 30, 1000, Some(vec![0, 10, 20])),
        ],
    )
    .unwrap()
}

#[test]
fn each_sample_holds_each_sensor_at_its_index_by_name_in_order() {
    let trace = flight();
    assert_eq!((trace.name(), trace.len()), ("flight", 3));
    let sample = trace.value(2).unwrap();
    assert_eq!((at(&sample, "radar"), at(&sample, "imu")), (2, 1020));
    let Value::Map(items) = &sample else {
        unreachable!()
    };
    let keys: Vec<&str> = items.iter().map(|(k, _)| &**k).collect();
    assert_eq!(keys, ["radar", "imu"]);
}

#[test]
fn traces_one_after_another_are_one_dataset() {
    let unsynchronized = ValueTrace::new("bench", vec![sensor("imu", 2, 500, None)]).unwrap();
    let dataset = ValueTraces::new(vec![flight(), unsynchronized]);
    assert_eq!(dataset.len(), 5);
    assert_eq!(dataset.traces().len(), 2);
    assert_eq!(at(&dataset.get(0).unwrap(), "imu"), 1000);
    assert_eq!(at(&dataset.get(3).unwrap(), "imu"), 500);
    assert_eq!(at(&dataset.get(4).unwrap(), "imu"), 501);
    let error = dataset.get(5).unwrap_err();
    assert!(
        matches!(
            error,
            Error::IndexOutOfRange {
                index: 5,
                len: 5,
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(ValueTraces::new(Vec::new()).len(), 0);
}

#[test]
fn an_index_outside_its_sensor_names_the_sensor_and_the_trace() {
    let trace = ValueTrace::new(
        "flight",
        vec![
            sensor("radar", 3, 0, Some(vec![0, 1, 2])),
            sensor("imu", 15, 0, Some(vec![0, 10, 20])),
        ],
    )
    .unwrap();
    assert!(trace.value(1).is_ok());
    let error = trace.value(2).unwrap_err().to_string();
    assert!(error.contains("sensor `imu` of trace `flight`"), "{error}");
    assert!(error.contains("20"), "{error}");
}

#[test]
fn a_trace_without_sensors_or_with_uneven_indices_is_refused() {
    let error = ValueTrace::new("empty", Vec::new())
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("trace `empty`") && error.contains("no sensors"),
        "{error}"
    );
    let error = ValueTrace::new(
        "flight",
        vec![
            sensor("radar", 3, 0, Some(vec![0, 1, 2])),
            sensor("imu", 30, 0, Some(vec![0, 10])),
        ],
    )
    .err()
    .unwrap()
    .to_string();
    assert!(error.contains("sensor `imu` has 2 indices"), "{error}");
}

#[test]
fn the_loader_reads_every_sample_once_across_the_traces() {
    let dataset = ValueTraces::new(vec![flight(), flight()]);
    let loader = Loader::new(dataset, adl_core::pipeline::Stages::new())
        .batch_size(2)
        .workers(2)
        .build()
        .unwrap();
    let mut radar = Vec::new();
    for batch in loader.epoch(0) {
        for sample in batch.unwrap().into_inner() {
            radar.push(at(&sample, "radar"));
        }
    }
    assert_eq!(radar, [0, 1, 2, 0, 1, 2]);
}

/// A sensor of `len` samples that reads ahead: its fetch of row `i` is the
/// number `offset + i` (counted in `fetched`), and a value made from a
/// read is that number, so that a read handed to another row is seen.
struct Remote {
    len: usize,
    offset: u64,
    fetched: std::sync::atomic::AtomicUsize,
    made_from_reads: std::sync::atomic::AtomicUsize,
}

impl ValueSensor for Remote {
    fn len(&self) -> usize {
        self.len
    }

    fn value(&self, index: usize) -> Result<Value> {
        Counter {
            len: self.len,
            offset: self.offset,
        }
        .value(index)
    }

    fn value_fetched(&self, index: usize, fetched: Fetched) -> Result<Value> {
        if let Some(read) = fetched.take::<u64>() {
            assert_eq!(
                read,
                self.offset + index as u64,
                "row {index} got another's read"
            );
            self.made_from_reads.fetch_add(1, Ordering::Relaxed);
        }
        self.value(index)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }
}

impl Storage for Remote {
    type Origin = SensorOrigin;

    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        Some(SensorOrigin::new("remote", index).in_file("s3://bucket/radar.npy", Some(index)))
    }

    fn ahead(&self) -> Ahead {
        Ahead::Reads
    }

    fn fetch(&self, index: usize) -> Result<Fetched> {
        self.fetched.fetch_add(1, Ordering::Relaxed);
        Ok(Fetched::read(self.offset + index as u64, 8))
    }
}

/// A [`Remote`] sensor a test keeps a handle on.
struct Shared(Arc<Remote>);

impl ValueSensor for Shared {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn value(&self, index: usize) -> Result<Value> {
        self.0.value(index)
    }
    fn value_fetched(&self, index: usize, fetched: Fetched) -> Result<Value> {
        self.0.value_fetched(index, fetched)
    }
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        self.0.storage()
    }
}

/// A trace whose radar reads ahead (its rows those of `flight`) beside an
/// IMU that does not.
fn remote_flight(radar: Arc<Remote>) -> ValueTrace {
    ValueTrace::new(
        "flight",
        vec![
            TraceSensor {
                name: Arc::from("radar"),
                sensor: Box::new(Shared(radar)),
                rows: Some(vec![2, 0, 1]),
            },
            sensor("imu", 30, 1000, Some(vec![0, 10, 20])),
        ],
    )
    .unwrap()
}

fn remote(offset: u64) -> Arc<Remote> {
    Arc::new(Remote {
        len: 3,
        offset,
        fetched: Default::default(),
        made_from_reads: Default::default(),
    })
}

#[test]
fn traces_are_stored_where_their_sensors_are_a_read_per_sensor() {
    let (a, b) = (remote(0), remote(100));
    let dataset = ValueTraces::new(vec![remote_flight(a.clone()), remote_flight(b.clone())]);
    let storage = dataset.storage().expect("traces of sensors give a storage");
    assert_eq!(storage.ahead(), Ahead::Reads);
    assert_eq!(storage.parts(4), 2);
    // Sample 4 is the second trace's sample 1: the radar's row 0 there.
    let origin = storage.origin(4).unwrap();
    assert_eq!((origin.index, origin.trace.as_deref()), (4, Some("flight")));
    let sensors: Vec<_> = (origin.sensors.iter())
        .map(|s| (s.sensor.as_str(), s.index, s.file.as_deref()))
        .collect();
    assert_eq!(
        sensors,
        [
            ("radar", 0, Some("s3://bucket/radar.npy")),
            ("imu", 10, None)
        ]
    );
    let parts = (0..2).map(|p| storage.fetch_part(4, p).unwrap()).collect();
    let sample = dataset.get_fetched(4, Fetched::parts(parts)).unwrap();
    assert_eq!((at(&sample, "radar"), at(&sample, "imu")), (100, 1010));
    assert_eq!(b.made_from_reads.load(Ordering::Relaxed), 1);
    assert_eq!(a.fetched.load(Ordering::Relaxed), 0);
}

#[test]
fn the_loader_reads_value_traces_ahead_and_makes_each_sample_from_its_reads() {
    let (a, b) = (remote(0), remote(100));
    let dataset = ValueTraces::new(vec![remote_flight(a.clone()), remote_flight(b.clone())]);
    let loader = Loader::new(dataset, adl_core::pipeline::Stages::new())
        .batch_size(2)
        .workers(2)
        .read_next_epoch(false)
        .build()
        .unwrap();
    let mut radar = Vec::new();
    for batch in loader.epoch(0) {
        for sample in batch.unwrap().into_inner() {
            radar.push(at(&sample, "radar"));
        }
    }
    assert_eq!(radar, [2, 0, 1, 102, 100, 101]);
    for sensor in [&a, &b] {
        assert_eq!(sensor.fetched.load(Ordering::Relaxed), 3);
        assert_eq!(sensor.made_from_reads.load(Ordering::Relaxed), 3);
    }
    let stats = loader.statistics().to_string();
    // A read per sample, made of a part per sensor.
    assert!(stats.contains("read stage: 6 reads (0 failed)"), "{stats}");
    assert!(stats.contains("  radar  6 reads (0 failed)"), "{stats}");
}

/// A sensor whose row `bad` fails.
struct FailsAt {
    len: usize,
    bad: usize,
}

impl ValueSensor for FailsAt {
    fn len(&self) -> usize {
        self.len
    }

    fn value(&self, index: usize) -> Result<Value> {
        match index == self.bad {
            true => Err(Error::invalid("sensor `broken`", "row 1 is corrupt")),
            false => Counter {
                len: self.len,
                offset: 0,
            }
            .value(index),
        }
    }
}

#[test]
fn a_sensor_that_fails_discards_the_reads_after_it_and_the_loader_blames_no_wrapper() {
    let radar = remote(0);
    let trace = ValueTrace::new(
        "flight",
        vec![
            TraceSensor {
                name: Arc::from("broken"),
                sensor: Box::new(FailsAt { len: 3, bad: 1 }),
                rows: None,
            },
            TraceSensor {
                name: Arc::from("radar"),
                sensor: Box::new(Shared(radar.clone())),
                rows: None,
            },
        ],
    )
    .unwrap();
    let loader = Loader::new(
        ValueTraces::new(vec![trace]),
        adl_core::pipeline::Stages::new(),
    )
    .batch_size(1)
    .workers(2)
    .read_next_epoch(false)
    .on_error(adl_core::OnError::Skip)
    .build()
    .unwrap();
    let kept: usize = loader.epoch(0).map(|b| b.unwrap().into_inner().len()).sum();
    assert_eq!(kept, 2);
    // Row 1's radar read was made, and never used: the sample failed
    // before it, so it is discarded, not counted as a wrapper's loss.
    assert_eq!(radar.fetched.load(Ordering::Relaxed), 3);
    assert_eq!(radar.made_from_reads.load(Ordering::Relaxed), 2);
    let stats = loader.statistics().to_string();
    assert!(stats.contains("read stage: 3 reads (0 failed)"), "{stats}");
    assert!(!stats.contains("dropped unused"), "{stats}");
}

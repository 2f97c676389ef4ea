//! Traces of value sensors, synchronized by their index columns, one
//! after another as one dataset: the samples, the errors that say where,
//! and the loader over them.

use std::sync::Arc;

use adl_core::{Dataset, Error, Result};
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

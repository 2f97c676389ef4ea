//! The loader's run as a timeline (`LoaderBuilder::trace_to`): Chrome's
//! trace-event JSON with a track per thread and a span per read, decode,
//! node, sample stage, collate, job and consumer wait, each with the
//! sample, batch or sensor it is about; bounded by its ring; written when
//! an epoch ends; a file that cannot be written loses no batch.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use adl::Record;
use adl::graph::loader::Loader;
use adl::prelude::*;
use serde_json::Value;

use crate::read_stage::SlowSensor;

/// A sample's sensors added up.
#[transform]
fn total(record: Record<u64>) -> u64 {
    record.values().iter().sum()
}

/// Twice the total.
#[transform]
fn double(x: u64) -> u64 {
    2 * x
}

/// A recording of a camera (its reads slow) and an IMU, 24 samples, read
/// ahead by `readers` readers, through `total -> double` on `workers`
/// workers, batches of 4, its timeline written to `path` keeping `events`
/// spans.
fn loader(
    path: &Path,
    events: usize,
    workers: usize,
    readers: usize,
) -> Loader<
    impl Dataset<Sample = Record<u64>> + Send + Sync + 'static,
    impl Pipeline<Record<u64>, Processed = adl::ndarray::Array1<u64>> + Send + Sync + 'static,
> {
    let sensors = vec![
        SlowSensor::new("camera", 24, Duration::from_millis(2), 1000),
        SlowSensor::new("imu", 24, Duration::ZERO, 10),
    ];
    let recording = adl::Recording::aligned("drive", sensors).unwrap();
    let pipeline = adl::pipeline! {
        sample: total -> double,
        collate: default,
    };
    Loader::new(recording, pipeline)
        .batch_size(4)
        .workers(workers)
        .readers(readers)
        .trace_to(path)
        .trace_events(events)
        // One epoch's spans: no reads done ahead for the next.
        .read_next_epoch(false)
        .build()
        .unwrap()
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The spans (`"ph": "X"`) of a timeline, by name.
fn spans(json: &Value) -> BTreeMap<String, Vec<Value>> {
    let mut by_name: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for event in json["traceEvents"].as_array().unwrap() {
        if event["ph"] == "X" {
            let name = event["name"].as_str().unwrap().to_owned();
            by_name.entry(name).or_default().push(event.clone());
        }
    }
    by_name
}

fn sorted(spans: &[Value], arg: &str) -> Vec<u64> {
    let mut values: Vec<u64> = spans
        .iter()
        .map(|s| s["args"][arg].as_u64().unwrap())
        .collect();
    values.sort_unstable();
    values
}

#[test]
fn an_epoch_is_written_as_spans_per_thread_about_its_samples_batches_and_sensors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.json");
    let loader = loader(&path, 100_000, 2, 2);
    let batches: Vec<_> = loader.epoch(0).map(|b| b.unwrap().to_vec()).collect();
    assert_eq!(batches.len(), 6);
    // Written when the epoch ended, the loader still alive.
    let json = read(&path);
    let spans = spans(&json);
    let every_sample: Vec<u64> = (0..24).collect();
    for name in ["decode", "sample stage", "total", "double"] {
        let of = spans.get(name).unwrap_or_else(|| panic!("no {name} spans"));
        assert_eq!(sorted(of, "index"), every_sample, "{name}");
    }
    // Each sample's two sensors read by the read stage, named, with
    // their bytes.
    let reads = &spans["read"];
    assert_eq!(reads.len(), 48);
    for (sensor, bytes) in [("camera", 1000), ("imu", 10)] {
        let of: Vec<Value> = reads
            .iter()
            .filter(|r| r["args"]["sensor"] == sensor)
            .cloned()
            .collect();
        assert_eq!(sorted(&of, "index"), every_sample, "{sensor}");
        assert!(of.iter().all(|r| r["args"]["bytes"] == bytes), "{sensor}");
        assert!(of.iter().all(|r| r["cat"] == "read stage"));
    }
    // A camera read waits 2 ms: its span is at least that long (µs).
    assert!(
        reads
            .iter()
            .filter(|r| r["args"]["sensor"] == "camera")
            .all(|r| r["dur"].as_f64().unwrap() >= 2000.0)
    );
    for name in ["collate", "job"] {
        let of = &spans[name];
        assert_eq!(sorted(of, "batch"), [0, 1, 2, 3, 4, 5], "{name}");
        assert!(of.iter().all(|s| s["args"]["samples"] == 4), "{name}");
    }
    // The consumer waits for a batch not made yet (the first, at least),
    // once each at most.
    let waits = sorted(&spans["wait"], "batch");
    assert!(
        waits.first() == Some(&0) && waits.windows(2).all(|w| w[0] < w[1]),
        "{waits:?}"
    );
    // A track per thread, named: the workers, the readers, the consumer
    // (this test's thread), which alone waits.
    let names: BTreeMap<u64, String> = json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["args"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let thread = |span: &Value| names[&span["tid"].as_u64().unwrap()].clone();
    assert!(reads.iter().all(|r| thread(r).starts_with("adl-reader-")));
    let consumer = std::thread::current().name().unwrap().to_owned();
    assert!(spans["wait"].iter().all(|w| thread(w) == consumer));
    // Samples are made on the workers, or on the consumer's thread while
    // it waits.
    assert!(
        spans["total"]
            .iter()
            .all(|s| thread(s).starts_with("adl-worker-") || thread(s) == consumer)
    );
    // Every span on the one time axis, in microseconds from the start.
    let pid = u64::from(std::process::id());
    for of in spans.values() {
        for span in of {
            assert!(span["ts"].as_f64().unwrap() >= 0.0 && span["dur"].as_f64().unwrap() >= 0.0);
            assert_eq!(span["pid"], pid);
        }
    }
    assert_eq!(json["otherData"]["dropped"], 0);
    drop(loader);
}

#[test]
fn the_timeline_keeps_the_last_spans_and_says_how_many_it_let_go() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.json");
    // No workers and no readers: the consumer's thread reads and builds
    // each batch in turn, so the run's last spans are known.
    let loader = loader(&path, 10, 0, 0);
    assert_eq!(loader.epoch(0).count(), 6);
    assert_eq!(loader.epoch(1).count(), 6);
    let json = read(&path);
    let kept: usize = spans(&json).values().map(Vec::len).sum();
    assert_eq!(kept, 10);
    // Each epoch: 4 spans per sample (get, total, double, sample stage)
    // and 5 per batch (the collate node, collate, batch stage, job, wait).
    assert_eq!(json["otherData"]["dropped"], 2 * (24 * 4 + 6 * 5) - 10);
    // The spans kept are the run's last: the consumer's thread built the
    // last batch of epoch 1 (its last sample read by `get`, through each
    // node and the sample stage; the collate node `default`, the collate
    // and batch stages, the job) while the consumer waited for it.
    let last: Vec<(String, u64)> = json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let about = &e["args"];
            let n = about.get("batch").or_else(|| about.get("index"));
            let n = n.unwrap_or_else(|| panic!("{e}"));
            (e["name"].as_str().unwrap().to_owned(), n.as_u64().unwrap())
        })
        .collect();
    let expected = [
        ("sample stage", 22),
        ("get", 23),
        ("total", 23),
        ("double", 23),
        ("sample stage", 23),
        ("default", 5),
        ("collate", 5),
        ("batch stage", 5),
        ("job", 5),
        ("wait", 5),
    ];
    assert_eq!(last[..], expected.map(|(name, n)| (name.to_owned(), n))[..]);
}

#[test]
fn a_timeline_that_cannot_be_written_loses_no_batch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no such folder").join("run.json");
    let loader = loader(&path, 1000, 2, 2);
    let sums: Vec<u64> = loader.epoch(0).flat_map(|b| b.unwrap().to_vec()).collect();
    assert_eq!(sums.len(), 24);
    assert!(!path.exists());
}

#[test]
fn a_timeline_of_no_spans_is_refused() {
    let sensors = vec![SlowSensor::new("camera", 4, Duration::ZERO, 1)];
    let recording = adl::Recording::aligned("drive", sensors).unwrap();
    let pipeline = adl::pipeline! {
        sample: total,
        collate: default,
    };
    let error = Loader::new(recording, pipeline)
        .trace_to("run.json")
        .trace_events(0)
        .build()
        .err()
        .unwrap();
    assert!(error.to_string().contains("trace_events"), "{error}");
}

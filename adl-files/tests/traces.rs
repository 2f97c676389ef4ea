//! A dataset of many traces on disk: a bad trace left out and reported,
//! the origin of a sample (trace, sensor, file, row), and a skipped
//! sample's origin in a loader.

use std::path::Path;

use adl::files::{Npy, Table};
use adl::ndarray::{Array1, Array3, Ix2};
use adl::prelude::*;
use adl::sync::Nearest;
use adl::{Concat, Origin};

#[derive(SensorSet, Debug)]
#[sensor_set(sample = Frame, derive(Debug, Clone))]
struct Rig<R, I> {
    radar: R,
    imu: I,
}

type Trace = Recording<Rig<Npy<f32, Ix2>, Table>>;

/// A trace folder: `radar/` (data.npy of 4 frames + ts.txt) and
/// `imu.csv` at 100 Hz; `radar_times` are written as they are given.
fn write_trace(root: &Path, name: &str, radar_times: &str) {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("radar")).unwrap();
    let frames = Array3::from_shape_fn((4, 2, 3), |(f, r, c)| (f * 100 + r * 10 + c) as f32);
    ndarray_npy::write_npy(dir.join("radar/data.npy"), &frames).unwrap();
    std::fs::write(dir.join("radar/ts.txt"), radar_times).unwrap();
    let mut imu = String::from("t,ax\n");
    for k in 0..=30 {
        imu.push_str(&format!("{},{}\n", k as f64 * 0.01, k));
    }
    std::fs::write(dir.join("imu.csv"), imu).unwrap();
}

fn open_trace(root: &Path, name: &str) -> adl::Result<Trace> {
    let dir = root.join(name);
    let radar = Npy::in_folder(dir.join("radar"))?;
    let imu = Table::open("imu", dir.join("imu.csv"), "t")?;
    Recording::new(name, Rig { radar, imu }, &Nearest::new("radar", 0.004)?)
}

fn three_traces() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    write_trace(root.path(), "run-1", "0.0\n0.1\n0.2\n0.3\n");
    // One timestamp out of order: the trace is bad, not the dataset.
    write_trace(root.path(), "run-2", "0.0\n0.1\n0.3\n0.2\n");
    write_trace(root.path(), "run-3", "0.0\n0.1\n0.2\n0.3\n");
    root
}

#[test]
fn a_bad_trace_is_left_out_and_named_in_the_report() {
    let root = three_traces();
    let keys = ["run-1", "run-2", "run-3"];
    let (dataset, report) =
        Concat::open(keys, OnError::Skip, |k| open_trace(root.path(), k)).unwrap();
    assert_eq!(dataset.len(), 8);
    assert_eq!(report.opened, ["run-1", "run-3"]);
    assert!(!report.is_complete());
    let left_out = format!("{:#}", report.left_out[0]);
    // The trace, the file, the sensor and the bad values, each once.
    assert!(left_out.starts_with("trace `run-2`: "), "{left_out}");
    assert!(left_out.contains("radar/ts.txt"), "{left_out}");
    assert!(
        left_out.contains("[3] = 0.2 comes after [2] = 0.3"),
        "{left_out}"
    );
    assert_eq!(left_out.matches("run-2").count(), 2, "{left_out}"); // trace, path
    assert_eq!(left_out.matches("`radar`").count(), 1, "{left_out}");

    // Failing on it instead names the trace too.
    let err = Concat::open(keys, OnError::Fail, |k| open_trace(root.path(), k)).unwrap_err();
    assert!(matches!(&err, adl::Error::Trace { trace, .. } if trace == "run-2"));

    // Every trace bad: an error listing each, not an empty dataset.
    let err = Concat::open(["run-2", "nowhere"], OnError::Skip, |k| {
        open_trace(root.path(), k)
    })
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("none of the 2 traces could be opened"),
        "{err}"
    );
    assert!(
        err.contains("trace `run-2`") && err.contains("trace `nowhere`"),
        "{err}"
    );
}

#[test]
fn a_sample_says_its_trace_sensors_files_and_rows() {
    let root = three_traces();
    let (dataset, _) = Concat::open(["run-1", "run-3"], OnError::Fail, |k| {
        open_trace(root.path(), k)
    })
    .unwrap();
    // Sample 6 is run-3's third frame (0.2 s), with the IMU row at 0.2 s.
    let origin: Origin = Origin::of(&dataset, 6).unwrap();
    assert_eq!(origin.index, 6);
    assert_eq!(origin.trace.as_deref(), Some("run-3"));
    assert_eq!(origin.trace_index, 2);
    let radar = &origin.sensors[0];
    assert_eq!(
        (radar.sensor.as_str(), radar.index, radar.row),
        ("radar", 2, Some(2))
    );
    assert!(
        radar
            .file
            .as_deref()
            .unwrap()
            .ends_with("run-3/radar/data.npy")
    );
    let imu = &origin.sensors[1];
    assert_eq!((imu.sensor.as_str(), imu.row), ("imu", Some(20)));
    assert!(imu.file.as_deref().unwrap().ends_with("run-3/imu.csv"));
    // The sample read there is the one the origin names.
    let frame: Frame<_, Array1<f64>> = dataset.get(6).unwrap();
    assert_eq!(frame.radar[[0, 0]], 200.0);
    assert_eq!(frame.imu[0], 20.0);
    // Through a sampled view, the same origin at the view's index.
    let view = adl::sample::Sampled::from_indices(&dataset, vec![6, 0]).unwrap();
    assert_eq!(Origin::of(&view, 0).unwrap(), origin.clone().at(0));
    assert!(Origin::of(&dataset, 8).is_err());
}

#[test]
fn a_skipped_sample_in_a_loader_says_where_it_comes_from() {
    let root = three_traces();
    let (dataset, _) = Concat::open(["run-1", "run-3"], OnError::Fail, |k| {
        open_trace(root.path(), k)
    })
    .unwrap();
    // A node that refuses the IMU reading 20 (run-1's and run-3's third frame).
    let refuse = adl::transform::named(
        "check",
        adl::transform::fallible(|f: Frame<adl::ndarray::Array2<f32>, Array1<f64>>| {
            if f.imu[0] == 20.0 {
                Err(adl::BoxError::from("imu reading out of range"))
            } else {
                Ok(f.radar.sum())
            }
        }),
    );
    let pipeline = Stages::new()
        .with_sample(refuse)
        .with_collate(DefaultCollate);
    let loader = Loader::new(dataset, pipeline)
        .batch_size(4)
        .workers(2)
        .on_error(OnError::Skip)
        .build()
        .unwrap();
    let mut epoch = loader.epoch(0);
    let delivered: usize = epoch.by_ref().map(|b| b.unwrap().len()).sum();
    assert_eq!(delivered, 6);
    let skipped = epoch.skipped();
    assert_eq!(skipped.len(), 2);
    let last = skipped.iter().find(|s| s.index == 6).unwrap();
    assert_eq!(last.node, "check");
    assert_eq!(last.origin.trace.as_deref(), Some("run-3"));
    assert!(
        last.origin.sensors[1]
            .file
            .as_deref()
            .unwrap()
            .ends_with("run-3/imu.csv")
    );
    assert_eq!(last.origin.sensors[1].row, Some(20));
}

//! `Table` over CSV files, its refusals, and files of two kinds in one
//! synchronized recording.

mod common;

use std::path::{Path, PathBuf};

use common::source_error;

use adl::files::{Npy, Table, read_timestamps};
use adl::ndarray::{Array1, Array2, Ix2, array};
use adl::sync::Nearest;
use adl::{Dataset, Error, Recording, Sensor, SensorSet};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn rows_are_samples_and_the_time_column_is_the_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "imu.csv",
        "# an IMU at 200 Hz\n ax , t, gz\n1.5, 0.000, -2\n\n2.5,0.005,-3\n3.5, 0.010 ,-4\n",
    );
    let imu = Table::open("imu", &path, "t").unwrap();
    assert_eq!(imu.columns(), &["ax", "gz"]);
    assert_eq!(imu.metadata().as_slice(), &[0.0, 0.005, 0.01]);
    assert_eq!(imu.len(), 3);
    assert_eq!(imu.get(0).unwrap(), array![1.5, -2.0]);
    assert_eq!(imu.get(2).unwrap(), array![3.5, -4.0]);
    let err = imu.get(3).unwrap_err();
    assert!(
        matches!(
            err,
            Error::IndexOutOfRange {
                index: 3,
                len: 3,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_bad_table_is_refused_naming_the_file_the_sensor_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "no_time.csv",
            "time, ax\n0.0, 1\n",
            "no column `t` for the timestamps; its header is [time, ax]",
        ),
        (
            "ragged.csv",
            "t, ax\n0.0, 1\n0.1, 2, 3\n",
            "line 3 has 3 fields; the header has 2",
        ),
        (
            "word.csv",
            "t, ax\n0.0, 1\n0.1, one\n",
            "line 3, column `ax`: `one` is not a number",
        ),
        (
            "bad_time.csv",
            "t, ax\n0.0, 1\nsoon, 2\n",
            "line 3, column `t`: `soon` is not a number",
        ),
        (
            "unsorted.csv",
            "t, ax\n0.0, 1\n0.2, 2\n0.1, 3\n",
            "timestamps are not sorted",
        ),
        ("nan.csv", "t, ax\n0.0, 1\nNaN, 2\n", "must be finite"),
    ];
    for (file, text, words) in cases {
        let path = write(dir.path(), file, text);
        let message = source_error(Table::open("imu", &path, "t"), file);
        assert_eq!(message.matches("sensor `imu`").count(), 1, "{message}");
        assert!(message.contains(words), "{file}: {message}");
    }
    let message = source_error(
        Table::open("imu", dir.path().join("missing.csv"), "t"),
        "missing.csv",
    );
    assert!(message.contains("cannot read"), "{message}");
}

#[derive(SensorSet)]
#[sensor_set(sample = Frame, derive(Debug, Clone))]
struct Rig<R, I> {
    radar: R,
    imu: I,
}

#[test]
fn an_npy_radar_and_a_csv_imu_synchronize_in_one_recording() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let times = read_timestamps("radar", data.join("radar_ts.npy")).unwrap();
    let radar: Npy<f32, Ix2> = Npy::open("radar", data.join("radar.npy"), times).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // An IMU at 100 Hz over the radar's 0.0..0.2 s, its value the time in ms.
    let mut text = String::from("t,ms\n");
    for k in 0..=20 {
        text.push_str(&format!("{},{}\n", k as f64 * 0.01, k * 10));
    }
    let imu = Table::open("imu", write(dir.path(), "imu.csv", &text), "t").unwrap();

    let trace = Recording::new(
        "run",
        Rig { radar, imu },
        &Nearest::new("radar", 0.004).unwrap(),
    )
    .unwrap();
    assert_eq!(trace.len(), 5);
    let frame: Frame<Array2<f32>, Array1<f64>> = trace.get(3).unwrap();
    // The radar's fourth frame (0.15 s) and the IMU's reading nearest it.
    assert_eq!(frame.radar[[0, 0]], 18.0 / 4.0);
    assert_eq!(frame.imu, array![150.0]);
}

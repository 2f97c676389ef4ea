//! Bad input to traces and datasets: typed errors that name what and where,
//! never a panic.

use adl::{Concat, Dataset, Error, Indices, Recording, Result, Series, Timestamps, Trace};

type S = Series<fn(usize) -> Result<usize>>;

fn identity(i: usize) -> Result<usize> {
    Ok(i)
}

fn sensor(name: &str, n: usize) -> S {
    let times = (0..n).map(|i| i as f64 * 0.1).collect();
    Series::new(
        name,
        Timestamps::new(name, times).unwrap(),
        identity as fn(usize) -> Result<usize>,
    )
}

#[test]
fn duplicate_sensor_names_are_refused() {
    let err = Recording::aligned("t", vec![sensor("cam", 3), sensor("cam", 3)]).unwrap_err();
    assert!(
        matches!(&err, Error::DuplicateSensor { name } if name == "cam"),
        "{err}"
    );
}

#[test]
fn aligned_sensors_of_unequal_length_are_refused() {
    let err = Recording::aligned("t", vec![sensor("long", 6), sensor("short", 4)]).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::BadIndices { .. }));
    assert!(
        msg.contains("`long` has 6") && msg.contains("`short` has 4"),
        "{msg}"
    );
}

#[test]
fn manual_indices_out_of_range_or_ragged_are_refused() {
    let idx = Indices::new(vec![("a".into(), vec![0, 5]), ("b".into(), vec![1, 1])]).unwrap();
    let err = Recording::with_indices("t", vec![sensor("a", 5), sensor("b", 5)], idx).unwrap_err();
    assert!(
        err.to_string()
            .contains("index 5 of sensor `a`, which has 5 samples"),
        "{err}"
    );

    let ragged =
        Indices::new(vec![("a".into(), vec![0, 1, 2]), ("b".into(), vec![4, 3])]).unwrap_err();
    assert!(
        ragged
            .to_string()
            .contains("`b` has 2 indices but `a` has 3"),
        "{ragged}"
    );

    let idx = Indices::new(vec![("b".into(), vec![0]), ("a".into(), vec![0])]).unwrap();
    let err = Recording::with_indices("t", vec![sensor("a", 5), sensor("b", 5)], idx).unwrap_err();
    assert!(
        err.to_string().contains("[b, a] but the trace has [a, b]"),
        "{err}"
    );
}

#[test]
fn out_of_range_reads_name_what_was_indexed() {
    let trace = Recording::aligned("run-1", vec![sensor("imu", 3)]).unwrap();
    let err = trace.get(3).unwrap_err();
    assert_eq!(
        err.to_string(),
        "index 3 is out of range for trace `run-1` of length 3"
    );

    let ds = Concat::new(vec![trace]).unwrap();
    let err = ds.get(10).unwrap_err();
    assert_eq!(
        err.to_string(),
        "index 10 is out of range for dataset of length 3"
    );

    let empty: Concat<Recording<Vec<S>>> = Concat::new(vec![]).unwrap();
    assert_eq!(empty.len(), 0);
    assert!(matches!(
        empty.get(0),
        Err(Error::IndexOutOfRange { len: 0, .. })
    ));
}

#[test]
fn unknown_sensor_lists_the_sensors() {
    let trace = Recording::aligned("t", vec![sensor("imu", 2), sensor("gps", 2)]).unwrap();
    let err = trace.sensor("lidar").unwrap_err();
    assert_eq!(
        err.to_string(),
        "requested sensor `lidar` is not in the trace; its sensors are [imu, gps]"
    );
    assert_eq!(trace.sensor_names(), vec!["imu", "gps"]);
}

#[test]
fn failing_loader_error_reaches_the_caller() {
    let broken = Series::new(
        "cam",
        Timestamps::new("cam", vec![0.0, 1.0]).unwrap(),
        |i| {
            Err::<u8, _>(Error::Load {
                sensor: "cam".into(),
                index: i,
                cause: "jpeg decode failed".into(),
            })
        },
    );
    let trace = Recording::aligned("t", vec![broken]).unwrap();
    let err = trace.get(1).unwrap_err();
    assert_eq!(
        format!("{err:#}"),
        "sensor `cam`: loading sample 1 failed: jpeg decode failed"
    );
}

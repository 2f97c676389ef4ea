//! `Npy` and `read_timestamps` over files written by NumPy itself
//! (`tests/data/make.py`), real and complex, and the errors of every kind
//! of bad file.

mod common;

use std::path::{Path, PathBuf};

use common::source_error;

use adl::files::{Npy, TIMESTAMP_FILES, read_timestamps};
use adl::graph::loader::Loader;
use adl::ndarray::{Array, Array2, Array3, Ix1, Ix2, IxDyn};
use adl::num_complex::Complex;
use adl::{Error, Sensor, SensorDataset, Timestamps};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn radar_times() -> Timestamps {
    read_timestamps("radar", data("radar_ts.npy")).unwrap()
}

/// `radar[i]` as make.py writes it: `arange(30).reshape(5, 2, 3) / 4`.
fn expected(i: usize) -> Array2<f32> {
    Array::from_shape_fn((2, 3), |(r, c)| (i * 6 + r * 3 + c) as f32 / 4.0)
}

#[test]
fn rows_of_a_numpy_file_are_the_samples() {
    let radar: Npy<f32, Ix2> = Npy::open("radar", data("radar.npy"), radar_times()).unwrap();
    assert_eq!(radar.len(), 5);
    assert_eq!(radar.sample_shape(), &[2, 3]);
    for i in 0..5 {
        assert_eq!(radar.get(i).unwrap(), expected(i));
    }
    let any: Npy<f32> = Npy::open("radar", data("radar.npy"), radar_times()).unwrap();
    assert_eq!(any.get(4).unwrap(), expected(4).into_dyn());
    let err = radar.get(5).unwrap_err();
    assert!(
        matches!(
            err,
            Error::IndexOutOfRange {
                index: 5,
                len: 5,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn text_and_npy_timestamps_agree() {
    let text = read_timestamps("radar", data("radar_ts.txt")).unwrap();
    assert_eq!(text.as_slice(), radar_times().as_slice());
    assert_eq!(text.as_slice(), &[0.0, 0.05, 0.1, 0.15, 0.2]);
}

#[test]
fn a_bad_data_file_is_refused_naming_the_file_and_the_sensor() {
    let open = |file: &str| Npy::<f32, Ix2>::open("radar", data(file), radar_times());
    let cases = [
        (
            "radar_truncated.npy",
            "truncated: 10 bytes of the data its header describes are missing",
        ),
        ("radar_big_endian.npy", "other byte order"),
        ("not_npy.npy", "not a NumPy .npy file"),
        ("no_such_file.npy", "cannot open"),
    ];
    // radar_fortran.npy is the same data as [5, 6], in Fortran order.
    let fortran = Npy::<f32, Ix1>::open("radar", data("radar_fortran.npy"), radar_times());
    let cases = cases.map(|(file, words)| (file, words, open(file).map(|_| ())));
    let fortran = ("radar_fortran.npy", "Fortran order", fortran.map(|_| ()));
    for (file, words, result) in cases.into_iter().chain([fortran]) {
        let message = source_error(result, file);
        assert!(message.contains("(sensor `radar`)"), "{message}");
        assert!(message.contains(words), "{file}: {message}");
    }
    // The right file read with the wrong element type or rank.
    let message = source_error(
        Npy::<f64, Ix2>::open("radar", data("radar.npy"), radar_times()),
        "radar.npy",
    );
    assert!(
        message.ends_with("(sensor `radar`): holds elements of type '<f4', not f64"),
        "{message}"
    );
    let message = source_error(
        Npy::<f32, Ix1>::open("radar", data("radar.npy"), radar_times()),
        "radar.npy",
    );
    assert!(
        message
            .contains("shape [5, 2, 3]; a sample of this sensor has 1 axes, so its file needs 2"),
        "{message}"
    );
}

#[test]
fn a_complex_numpy_file_is_read_as_num_complex_values_and_loaded_in_batches() {
    // radar_complex.npy: complex64 [5, 2, 3], radar + (10 - radar)j.
    let radar: Npy<Complex<f32>, Ix2> =
        Npy::open("radar", data("radar_complex.npy"), radar_times()).unwrap();
    let complex = |i: usize| expected(i).mapv(|re| Complex::new(re, 10.0 - re));
    for i in 0..5 {
        assert_eq!(radar.get(i).unwrap(), complex(i));
    }
    // complex128 is read too: the same file's values, written as complex128
    // by ndarray-npy (the bytes NumPy writes for it).
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("radar_c16.npy");
    let values = Array3::from_shape_fn((5, 2, 3), |(i, r, c)| {
        let value = complex(i)[[r, c]];
        Complex::new(f64::from(value.re), f64::from(value.im))
    });
    ndarray_npy::write_npy(&wide, &values).unwrap();
    let wide: Npy<Complex<f64>, Ix2> = Npy::open("radar", &wide, radar_times()).unwrap();
    assert_eq!(wide.get(3).unwrap()[[1, 2]], Complex::new(5.75, 4.25));

    let loader = Loader::new(
        SensorDataset::new(radar),
        adl::pipeline! { collate: default },
    )
    .batch_size(2)
    .build()
    .unwrap();
    let batches: Vec<Array3<Complex<f32>>> =
        loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(batches.len(), 3);
    assert_eq!(batches[1].index_axis(adl::ndarray::Axis(0), 1), complex(3));
}

#[test]
fn an_element_type_other_than_the_file_s_is_refused_where_the_file_is_opened() {
    let message = source_error(
        Npy::<f32, Ix2>::open("radar", data("radar_complex.npy"), radar_times()),
        "radar_complex.npy",
    );
    assert!(
        message.ends_with("(sensor `radar`): holds elements of type '<c8', not f32"),
        "{message}"
    );
    let message = source_error(
        Npy::<Complex<f64>, Ix2>::open("radar", data("radar_complex.npy"), radar_times()),
        "radar_complex.npy",
    );
    assert!(
        message.ends_with("holds elements of type '<c8', not num_complex::Complex<f64>"),
        "{message}"
    );
    let message = source_error(
        Npy::<Complex<f32>, Ix2>::open("radar", data("radar.npy"), radar_times()),
        "radar.npy",
    );
    assert!(
        message.ends_with("holds elements of type '<f4', not num_complex::Complex<f32>"),
        "{message}"
    );
}

#[test]
fn rows_and_timestamps_must_agree_in_number() {
    let four = Timestamps::new("radar", vec![0.0, 1.0, 2.0, 3.0]).unwrap();
    let message = source_error(
        Npy::<f32, Ix2>::open("radar", data("radar.npy"), four),
        "radar.npy",
    );
    assert!(
        message.contains("holds 5 samples (shape [5, 2, 3]) for 4 timestamps"),
        "{message}"
    );
}

#[test]
fn bad_timestamps_files_are_refused_naming_the_file() {
    let message = source_error(read_timestamps("imu", data("ts_int.npy")), "ts_int.npy");
    assert!(message.contains("(sensor `imu`)"), "{message}");
    assert!(
        message.contains("float64") && message.contains("'<i8'"),
        "{message}"
    );

    let message = source_error(
        read_timestamps("imu", data("ts_unsorted.npy")),
        "ts_unsorted.npy",
    );
    assert!(
        message.contains("sensor `imu`") && message.contains("not sorted"),
        "{message}"
    );

    let dir = tempfile::tempdir().unwrap();
    let two_d = dir.path().join("ts2.npy");
    ndarray_npy::write_npy(&two_d, &Array2::<f64>::zeros((3, 2))).unwrap();
    let message = source_error(read_timestamps("imu", &two_d), "ts2.npy");
    assert!(message.contains("holds a 2-dimensional array"), "{message}");

    let path = dir.path().join("ts.txt");
    std::fs::write(&path, "0.0\n0.1\n\n0.2 s\n").unwrap();
    let message = source_error(read_timestamps("imu", &path), "ts.txt");
    assert!(
        message.ends_with("(sensor `imu`): line 4: `0.2 s` is not a number"),
        "{message}"
    );

    let empty = dir.path().join("empty.npy");
    std::fs::write(&empty, b"").unwrap();
    let message = source_error(read_timestamps("imu", &empty), "empty.npy");
    assert!(message.contains("the file is empty"), "{message}");
}

#[test]
fn a_sensor_folder_is_read_by_its_layout() {
    let dir = tempfile::tempdir().unwrap();
    let radar = dir.path().join("radar");
    std::fs::create_dir(&radar).unwrap();
    std::fs::copy(data("radar.npy"), radar.join("data.npy")).unwrap();

    let message = source_error(Npy::<f32, Ix2>::in_folder(&radar), "radar");
    assert!(message.contains("no timestamps file"), "{message}");
    for name in TIMESTAMP_FILES {
        assert!(message.contains(name), "{message}");
    }

    std::fs::copy(data("radar_ts.txt"), radar.join("ts.txt")).unwrap();
    let sensor = Npy::<f32, Ix2>::in_folder(&radar).unwrap();
    assert_eq!(sensor.name(), "radar");
    assert_eq!(sensor.get(3).unwrap(), expected(3));

    // `ts.npy` comes first when both are there.
    std::fs::copy(data("ts_unsorted.npy"), radar.join("ts.npy")).unwrap();
    let message = source_error(Npy::<f32, Ix2>::in_folder(&radar), "ts.npy");
    assert!(message.contains("not sorted"), "{message}");
}

#[test]
fn a_numpy_sensor_feeds_the_loader() {
    let radar: Npy<f32, IxDyn> = Npy::open("radar", data("radar.npy"), radar_times()).unwrap();
    let loader = Loader::new(
        SensorDataset::new(radar),
        adl::pipeline! { collate: default },
    )
    .batch_size(2)
    .workers(2)
    .build()
    .unwrap();
    let batches: Vec<Array<f32, IxDyn>> =
        loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(batches.len(), 3);
    let whole: Array3<f32> = Array::from_shape_fn((5, 2, 3), |(i, r, c)| expected(i)[[r, c]]);
    for (k, batch) in batches.iter().enumerate() {
        let rows = (k * 2)..(k * 2 + 2).min(5);
        assert_eq!(
            batch,
            &whole.slice(adl::ndarray::s![rows, .., ..]).into_dyn()
        );
    }
}

#[test]
fn a_loader_hides_the_latency_of_a_remote_sensor_behind_its_read_stage() {
    use adl::files::Latency;
    use adl::prelude::*;
    use std::time::Duration;

    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let times = read_timestamps("radar", data.join("radar_ts.npy")).unwrap();
    let radar: Npy<f32, Ix2> = Npy::open("radar", data.join("radar.npy"), times).unwrap();
    let expected: Vec<f32> = (0..radar.len())
        .map(|i| radar.get(i).unwrap().sum())
        .collect();
    let remote = Latency::new(radar, Duration::from_millis(20));
    let pipeline = Stages::new()
        .with_sample(|frame: adl::ndarray::Array2<f32>| frame.sum())
        .with_collate(DefaultCollate);
    let loader = Loader::new(SensorDataset::new(remote), pipeline)
        .batch_size(2)
        .workers(2)
        .build()
        .unwrap();
    // A sensor behind latency reads ahead: the loader has a read stage.
    assert!(loader.plan().schedule().readers().is_some());
    let sums: Vec<f32> = loader.epoch(0).flat_map(|b| b.unwrap().to_vec()).collect();
    assert_eq!(sums, expected);
    let stats = loader.statistics();
    assert_eq!(stats.reads.reads, expected.len() as u64);
    assert!(stats.reads.time >= Duration::from_millis(20) * expected.len() as u32);
}

#[test]
fn an_npz_archive_member_is_a_sensor_and_its_failures_name_the_archive() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let times = |n: usize| Timestamps::new("radar", (0..n).map(|i| i as f64).collect()).unwrap();
    // Stored (not compressed): rows as numpy wrote them.
    let radar: Npy<f32, Ix2> =
        Npy::from_npz("radar", data.join("rig_stored.npz"), "radar", times(3)).unwrap();
    assert_eq!(radar.sample_shape(), &[2, 4]);
    assert_eq!(radar.get(2).unwrap()[[1, 3]], 23.0);
    // Deflated, named with or without `.npy`.
    let gps: Npy<f64, Ix1> =
        Npy::from_npz("gps", data.join("rig.npz"), "gps.npy", times(3)).unwrap();
    assert_eq!(gps.get(1).unwrap(), adl::ndarray::array![2.0, 3.0]);

    let message = source_error(
        Npy::<f64, Ix1>::from_npz("imu", data.join("rig.npz"), "imu", times(3)),
        "rig.npz",
    );
    assert!(
        message.ends_with("(sensor `imu`): array `imu`: holds elements of type '<f4', not f64"),
        "{message}"
    );
    let message = source_error(
        Npy::<f32, Ix1>::from_npz("imu", data.join("rig.npz"), "imu", times(4)),
        "rig.npz",
    );
    assert!(
        message.contains("holds 3 samples (shape [3, 2]) for 4 timestamps"),
        "{message}"
    );
    let message = source_error(
        Npy::<f32, Ix1>::from_npz("imu", data.join("not_npz.npz"), "imu", times(3)),
        "not_npz.npz",
    );
    assert!(message.contains("not a NumPy .npz file"), "{message}");
    let message = source_error(
        Npy::<f32, Ix1>::from_npz("imu", data.join("missing.npz"), "imu", times(3)),
        "missing.npz",
    );
    assert!(message.contains("cannot read"), "{message}");
}

#[test]
fn a_file_that_is_not_there_keeps_its_io_error_as_the_source() {
    use std::error::Error as _;
    use std::io::ErrorKind;
    let kind = |err: adl::Error| {
        err.source()
            .and_then(|e| e.downcast_ref::<std::io::Error>())
            .map(std::io::Error::kind)
    };
    let times = |n: usize| Timestamps::new("radar", (0..n).map(|i| i as f64).collect()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("radar.npy");
    let err = Npy::<f32, Ix1>::open("radar", &missing, times(3)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{} (sensor `radar`): cannot open", missing.display())
    );
    assert!(format!("{err:#}").ends_with("cannot open: No such file or directory (os error 2)"));
    assert_eq!(kind(err), Some(ErrorKind::NotFound));
    let table = adl::files::Table::open("imu", dir.path().join("imu.csv"), "t").unwrap_err();
    assert_eq!(kind(table), Some(ErrorKind::NotFound));
    let camera = Timestamps::new("camera", vec![0.0]).unwrap();
    let images = adl::files::Images::open("camera", dir.path().join("camera"), camera).unwrap_err();
    assert_eq!(kind(images), Some(ErrorKind::NotFound));
    let npz =
        Npy::<f32, Ix1>::from_npz("imu", dir.path().join("x.npz"), "imu", times(3)).unwrap_err();
    assert_eq!(kind(npz), Some(ErrorKind::NotFound));
}

//! `NpyFiles` over `.npy` files written by `ndarray_npy::write_npy` (the
//! format NumPy writes): ragged samples, the folder's order, the errors of
//! bad files, and a loader whose read stage reads the files ahead.

mod common;

use std::path::{Path, PathBuf};

use common::source_error;

use adl::files::NpyFiles;
use adl::graph::loader::Loader;
use adl::ndarray::{Array1, Array2, Array3, Ix2, IxDyn, ShapeBuilder};
use adl::{Error, Sensor, SensorDataset, SensorOrigin, Timestamps};

/// The lengths of the scans: ragged, one empty.
const LENGTHS: [usize; 5] = [3, 7, 1, 0, 12];

/// Scan `k` as written: `[n_k, 4]`, every value telling its scan, point
/// and column.
fn scan(k: usize) -> Array2<f32> {
    Array2::from_shape_fn((LENGTHS[k], 4), |(p, c)| {
        (k * 1000 + p * 10 + c) as f32 + 0.25
    })
}

/// A `lidar/` folder with a scan per file (`000000.npy` ...) and `ts.npy`.
fn lidar_folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("lidar");
    std::fs::create_dir(&folder).unwrap();
    for k in 0..LENGTHS.len() {
        ndarray_npy::write_npy(folder.join(format!("{k:06}.npy")), &scan(k)).unwrap();
    }
    let times = Array1::from_iter((0..LENGTHS.len()).map(|k| k as f64 * 0.1));
    ndarray_npy::write_npy(folder.join("ts.npy"), &times).unwrap();
    (dir, folder)
}

fn times(n: usize) -> Timestamps {
    Timestamps::new("lidar", (0..n).map(|k| k as f64 * 0.1).collect()).unwrap()
}

/// The message of `result`'s error, which must be a source error naming
/// `file`, the sensor `lidar` and sample `index`.
fn scan_error<T: std::fmt::Debug>(result: adl::Result<T>, file: &str, index: usize) -> String {
    let message = source_error(result, file);
    assert!(
        message.contains(&format!("(sensor `lidar`, sample {index})")),
        "{message}"
    );
    message
}

#[test]
fn each_file_is_a_sample_of_its_own_length() {
    let (_dir, folder) = lidar_folder();
    let lidar: NpyFiles<f32, Ix2> = NpyFiles::in_folder(&folder).unwrap();
    assert_eq!(lidar.name(), "lidar");
    assert_eq!(lidar.len(), LENGTHS.len());
    assert_eq!(lidar.metadata().as_slice()[4], 0.4);
    for k in 0..LENGTHS.len() {
        assert_eq!(lidar.get(k).unwrap(), scan(k), "scan {k}");
    }
    // Any number of axes, with IxDyn.
    let any: NpyFiles<f32> = NpyFiles::in_folder(&folder).unwrap();
    assert_eq!(any.get(1).unwrap(), scan(1).into_dyn());
    assert_eq!(any.get(3).unwrap().shape(), &[0, 4]);

    let err = lidar.get(5).unwrap_err();
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
    // A sample says which file it is (a whole file: no row).
    let origin = SensorOrigin::of(&lidar, 4);
    assert_eq!(
        origin.file.as_deref(),
        Some(lidar.files()[4].to_string().as_str())
    );
    assert_eq!(origin.row, None);
}

#[test]
fn files_come_in_natural_order_and_a_list_in_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("scans");
    std::fs::create_dir(&folder).unwrap();
    for (name, k) in [("scan_10.NPY", 2), ("scan_9.npy", 1), ("scan_1.npy", 0)] {
        ndarray_npy::write_npy(folder.join(name), &scan(k)).unwrap();
    }
    // Not samples: a hidden file, another extension, the timestamps.
    std::fs::write(folder.join(".scan_0.npy"), "hidden").unwrap();
    std::fs::write(folder.join("notes.txt"), "not an array").unwrap();
    std::fs::write(folder.join("ts.txt"), "0.0\n0.1\n0.2\n").unwrap();
    let scans: NpyFiles<f32, Ix2> = NpyFiles::in_folder(&folder).unwrap();
    let names: Vec<_> = scans
        .files()
        .iter()
        .map(|f| f.file_name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["scan_1.npy", "scan_9.npy", "scan_10.NPY"]);
    for k in 0..3 {
        assert_eq!(scans.get(k).unwrap(), scan(k));
    }

    let listed = NpyFiles::<f32, Ix2>::from_files(
        "lidar",
        [folder.join("scan_10.NPY"), folder.join("scan_1.npy")],
        times(2),
    )
    .unwrap();
    assert_eq!(listed.get(0).unwrap(), scan(2));
    assert_eq!(listed.get(1).unwrap(), scan(0));
    let err =
        NpyFiles::<f32, Ix2>::from_files("lidar", Vec::<PathBuf>::new(), times(1)).unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { .. }), "{err}");
}

#[test]
fn files_and_timestamps_are_checked_when_opened() {
    let (_dir, folder) = lidar_folder();
    let err = NpyFiles::<f32, Ix2>::open("lidar", &folder, times(4)).unwrap_err();
    let message = source_error(Err::<(), _>(err), "lidar");
    assert!(
        message.ends_with("lidar (sensor `lidar`): holds 5 arrays for 4 timestamps"),
        "{message}"
    );
    // The first file's array is checked: its element type, its axes.
    let message = scan_error(NpyFiles::<f64, Ix2>::in_folder(&folder), "000000.npy", 0);
    assert!(
        message.ends_with("holds elements of type '<f4', not f64"),
        "{message}"
    );
    let message = scan_error(
        NpyFiles::<f32, adl::ndarray::Ix3>::in_folder(&folder),
        "000000.npy",
        0,
    );
    assert!(
        message.ends_with("holds an array of shape [3, 4]; a sample of this sensor has 3 axes"),
        "{message}"
    );
    // A folder without arrays, without timestamps.
    let empty = tempfile::tempdir().unwrap();
    let message = source_error(
        NpyFiles::<f32, Ix2>::open("lidar", empty.path(), times(1)),
        &empty.path().display().to_string(),
    );
    assert!(
        message.ends_with("holds no arrays: no file named *.npy"),
        "{message}"
    );
    let message = source_error(
        NpyFiles::<f32, Ix2>::in_folder(empty.path()),
        &empty.path().display().to_string(),
    );
    assert!(message.contains("no timestamps file"), "{message}");
}

#[test]
fn a_bad_file_is_refused_naming_the_file_the_sensor_and_the_sample() {
    let (_dir, folder) = lidar_folder();
    let lidar: NpyFiles<f32, Ix2> = NpyFiles::in_folder(&folder).unwrap();
    // Another element type.
    ndarray_npy::write_npy(folder.join("000001.npy"), &scan(1).mapv(f64::from)).unwrap();
    // Truncated: the last 10 bytes of its data cut off.
    let path = folder.join("000002.npy");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    // Not an array at all; another number of axes; missing.
    std::fs::write(folder.join("000003.npy"), "not a numpy file\n").unwrap();
    ndarray_npy::write_npy(folder.join("000004.npy"), &Array3::<f32>::zeros((2, 2, 4))).unwrap();

    let message = scan_error(lidar.get(1), "000001.npy", 1);
    assert!(
        message.ends_with("holds elements of type '<f8', not f32"),
        "{message}"
    );
    let message = scan_error(lidar.get(2), "000002.npy", 2);
    assert!(
        message.ends_with("truncated: 10 bytes of the data its header describes are missing"),
        "{message}"
    );
    let message = scan_error(lidar.get(3), "000003.npy", 3);
    assert!(message.contains("not a NumPy .npy file"), "{message}");
    let message = scan_error(lidar.get(4), "000004.npy", 4);
    assert!(
        message.ends_with("holds an array of shape [2, 2, 4]; a sample of this sensor has 2 axes"),
        "{message}"
    );
    // Read ahead, the same file is refused the same way when parsed.
    let read = lidar.storage().unwrap().fetch(2).unwrap();
    assert_eq!(read.bytes(), bytes.len() as u64 - 10);
    let message = scan_error(lidar.get_fetched(2, read), "000002.npy", 2);
    assert!(message.contains("truncated"), "{message}");
    std::fs::remove_file(folder.join("000000.npy")).unwrap();
    let message = scan_error(lidar.get(0), "000000.npy", 0);
    assert!(message.contains("cannot read: "), "{message}");
    let message = scan_error(lidar.storage().unwrap().fetch(0), "000000.npy", 0);
    assert!(message.contains("cannot read: "), "{message}");
    // Fortran order is refused, as for Npy.
    let fortran = Array2::<f32>::zeros((4, 3).f());
    ndarray_npy::write_npy(folder.join("000000.npy"), &fortran).unwrap();
    let message = scan_error(lidar.get(0), "000000.npy", 0);
    assert!(message.contains("Fortran order"), "{message}");
}

#[test]
fn a_loader_reads_the_files_ahead_and_the_workers_parse_them() {
    let (_dir, folder) = lidar_folder();
    let loader = Loader::new(
        SensorDataset::new(NpyFiles::<f32, Ix2>::in_folder(&folder).unwrap()),
        adl::pipeline! {
            sample: |scan: Array2<f32>| scan.nrows(),
            collate: default,
        },
    )
    .batch_size(2)
    .workers(2)
    .build()
    .unwrap();
    for epoch in 0..2 {
        let lengths: Vec<usize> = loader
            .epoch(epoch)
            .flat_map(|b| b.unwrap().into_inner().to_vec())
            .collect();
        assert_eq!(lengths, LENGTHS);
    }
    // One read per scan and epoch, by the read stage: every byte on disk.
    let stats = loader.statistics();
    assert_eq!(stats.reads.reads, 2 * LENGTHS.len() as u64);
    assert_eq!(stats.reads.failed, 0);
    let on_disk: u64 = (0..LENGTHS.len())
        .map(|k| file_len(&folder.join(format!("{k:06}.npy"))))
        .sum();
    assert_eq!(stats.reads.bytes, 2 * on_disk);

    // The values too, through the loader with a collate that keeps them.
    let loader = Loader::new(
        SensorDataset::new(NpyFiles::<f32, IxDyn>::in_folder(&folder).unwrap()),
        adl::pipeline! {
            sample: |scan: adl::ndarray::ArrayD<f32>| scan.into_dimensionality::<Ix2>().unwrap(),
            collate: |scans: Vec<Array2<f32>>| scans,
        },
    )
    .batch_size(5)
    .workers(2)
    .build()
    .unwrap();
    let scans: Vec<Array2<f32>> = loader
        .epoch(0)
        .flat_map(|b| b.unwrap().into_inner())
        .collect();
    assert_eq!(scans, (0..LENGTHS.len()).map(scan).collect::<Vec<_>>());
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

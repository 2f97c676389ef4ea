//! The test files in an object store, read back by every reader that takes
//! a location and each equal to its local read: what the tests of each kind
//! of server (Azure's, GCS's) check the same way.
//!
//! [`fixtures`] lays the files out in a local folder, which each server's
//! test puts in its bucket or container, under a prefix of its own or none;
//! the checks then read them through a [`Store`] of it, each key after
//! that prefix (`under`: `""`, or `"gcs/"`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use adl::Sensor;
use adl::files::px4::Px4Log;
use adl::files::ros::Bag;
use adl::files::rover::{RoverOptions, RoverSensor};
use adl::files::{Images, Npy, Store, Table, Video};
use adl::ndarray::Ix2;

use crate::same_logs::{same_bag, same_px4_log};

/// The MP4 videos of tests/data/video put in the store.
pub(crate) const VIDEOS: [&str; 4] = ["h264", "hevc", "av1", "vp9"];

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn repo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

/// A folder holding the files the checks read: `drive/radar/` (a sensor
/// folder), `drive/camera/` (JPEG frames), `drive/imu.csv`, `px4/*.ulg`,
/// `ros/flight.mcap`, `video/*.mp4` and `rover/` (the roverd fixture
/// trace), as they are to be put in the store.
pub(crate) fn fixtures() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let copy = |from: &Path, to: &str| {
        let to = root.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, &to).unwrap_or_else(|e| panic!("copying {}: {e}", from.display()));
    };
    copy(&data("radar.npy"), "drive/radar/data.npy");
    copy(&data("radar_ts.npy"), "drive/radar/ts.npy");
    for entry in std::fs::read_dir(data("camera")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        copy(&path, &format!("drive/camera/{name}"));
    }
    std::fs::write(root.join("drive/imu.csv"), "t, ax\n0.0, 1.5\n0.01, 2.5\n").unwrap();
    for name in ["cube-orange-vtol-small.ulg", "pixhawk4-sample-small.ulg"] {
        copy(&repo("tests/data/px4").join(name), &format!("px4/{name}"));
    }
    copy(&repo("tests/data/ros/flight.mcap"), "ros/flight.mcap");
    for codec in VIDEOS {
        copy(
            &data(&format!("video/{codec}.mp4")),
            &format!("video/{codec}.mp4"),
        );
    }
    let trace = repo("tests/data/rover/trace");
    let mut folders = vec![trace.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let key = path.strip_prefix(&trace).unwrap().to_string_lossy();
                copy(&path, &format!("rover/{key}"));
            }
        }
    }
    dir
}

/// A sensor folder of NumPy arrays, a folder of JPEG frames and a CSV
/// table in `store` read as the local files, with no failed request.
pub(crate) fn npy_images_and_tables_read_as_the_local_files(store: &Store, under: &str) {
    let at = |key: &str| store.at(&format!("{under}{key}"));
    let local: Npy<f32, Ix2> = Npy::open(
        "radar",
        data("radar.npy"),
        adl::files::read_timestamps("radar", data("radar_ts.npy")).unwrap(),
    )
    .unwrap();
    let remote: Npy<f32, Ix2> = Npy::in_folder(at("drive/radar")).unwrap();
    assert_eq!(remote.metadata().as_slice(), local.metadata().as_slice());
    for i in 0..local.len() {
        assert_eq!(remote.get(i).unwrap(), local.get(i).unwrap(), "radar {i}");
    }
    let local = Images::in_folder(data("camera")).unwrap();
    let remote = Images::in_folder(at("drive/camera")).unwrap();
    assert_eq!(remote.len(), local.len());
    for i in 0..local.len() {
        assert_eq!(remote.get(i).unwrap(), local.get(i).unwrap(), "frame {i}");
    }
    let table = Table::open("imu", at("drive/imu.csv"), "t").unwrap();
    assert_eq!(table.len(), 2);
    assert_eq!(table.metadata().as_slice(), &[0.0, 0.01]);
    let stats = store.stats();
    assert!(stats.requests > 0 && stats.failures == 0, "{stats:?}");
}

/// PX4 logs, a ROS 2 bag and roverd sensor folders in `store` read as the
/// local files: every message and sample equal.
pub(crate) fn px4_logs_bags_and_rover_folders_read_as_the_local_files(store: &Store, under: &str) {
    let at = |key: &str| store.at(&format!("{under}{key}"));
    for name in ["cube-orange-vtol-small.ulg", "pixhawk4-sample-small.ulg"] {
        let local = Px4Log::open(repo("tests/data/px4").join(name)).unwrap();
        let remote = Px4Log::open_at(at(&format!("px4/{name}"))).unwrap();
        assert!(same_px4_log(&remote, &local) > 100, "{name}");
    }
    let local = Bag::open(repo("tests/data/ros/flight.mcap")).unwrap();
    let remote = Bag::open(at("ros/flight.mcap")).unwrap();
    assert_eq!(same_bag(&remote, &local), 308);
    for sensor in ["imu", "lidar", "radar"] {
        let options = RoverOptions::default();
        let local =
            RoverSensor::open(repo("tests/data/rover/trace").join(sensor), &options).unwrap();
        let remote = RoverSensor::open(at(&format!("rover/{sensor}")), &options).unwrap();
        assert_eq!(remote.metadata(), local.metadata());
        for i in 0..local.len() {
            assert_eq!(
                remote.get(i).unwrap(),
                local.get(i).unwrap(),
                "{sensor} {i}"
            );
        }
    }
}

/// The MP4 videos in `store` (H.264, HEVC, AV1, VP9) decode as the local
/// files: every frame, read all at once in reverse (each group of
/// pictures decoded once), with no failed request.
pub(crate) fn videos_decode_as_the_local_files(store: &Store, under: &str) {
    let at = |key: &str| store.at(&format!("{under}{key}"));
    for codec in VIDEOS {
        let local = Video::open(data(&format!("video/{codec}.mp4"))).unwrap();
        let remote = Video::open(at(&format!("video/{codec}.mp4"))).unwrap();
        assert_eq!(remote.metadata(), local.metadata(), "{codec}");
        assert_eq!(remote.codec(), local.codec());
        let order: Vec<usize> = (0..local.len()).rev().collect();
        assert_eq!(
            remote.read(&order).unwrap(),
            local.read(&order).unwrap(),
            "{codec}"
        );
    }
    let stats = store.stats();
    assert!(stats.requests > 0 && stats.failures == 0, "{stats:?}");
}

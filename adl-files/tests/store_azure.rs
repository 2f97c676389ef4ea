//! The file-backed sensors and readers over Azure Blob storage (`az://`),
//! against Azurite, Microsoft's emulator (started by `azure::Azurite`):
//! NumPy arrays and sensor folders, image folders, tables, PX4 logs, ROS
//! bags, roverd folders and MP4 videos (H.264, HEVC, AV1, VP9) read as the
//! local files; a wrong key refused by the server and named with the
//! object and what to check.

mod azure;
mod common;
mod same_logs;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use adl::Sensor;
use adl::files::px4::Px4Log;
use adl::files::ros::Bag;
use adl::files::rover::{RoverOptions, RoverSensor};
use adl::files::{Images, Npy, RetryPolicy, Store, Table, Video};
use adl::ndarray::Ix2;
use azure::{Azurite, CONTAINER, KEY};
use common::source_error;
use same_logs::{same_bag, same_px4_log};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn repo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

fn quick() -> RetryPolicy {
    RetryPolicy::new(2, Duration::from_millis(20), Duration::from_millis(100))
}

/// The server, its container holding the fixtures (put in one call):
/// `drive/radar/` (a sensor folder), `drive/camera/` (JPEG frames),
/// `drive/imu.csv`, `px4/*.ulg`, `ros/flight.mcap`, `rover/` (the roverd
/// fixture trace).
fn server() -> &'static Azurite {
    static FIXTURES: OnceLock<()> = OnceLock::new();
    let server = Azurite::shared();
    FIXTURES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let copy = |from: &Path, to: &str| {
            let to = root.join(to);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(from, to).unwrap();
        };
        copy(&data("radar.npy"), "drive/radar/data.npy");
        copy(&data("radar_ts.npy"), "drive/radar/ts.npy");
        for entry in std::fs::read_dir(data("camera")).unwrap() {
            let path = entry.unwrap().path();
            copy(
                &path,
                &format!(
                    "drive/camera/{}",
                    path.file_name().unwrap().to_string_lossy()
                ),
            );
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
        server.put_tree("", root);
        server.put_tree("rover", &repo("tests/data/rover/trace"));
    });
    server
}

/// The MP4 videos of tests/data/video put in the container.
const VIDEOS: [&str; 4] = ["h264", "hevc", "av1", "vp9"];

fn store() -> Store {
    Store::open_with(&format!("az://{CONTAINER}"), &server().options(quick())).unwrap()
}

#[test]
fn npy_images_and_tables_in_azure_read_as_the_local_files() {
    let store = store();
    let local: Npy<f32, Ix2> = Npy::open(
        "radar",
        data("radar.npy"),
        adl::files::read_timestamps("radar", data("radar_ts.npy")).unwrap(),
    )
    .unwrap();
    let remote: Npy<f32, Ix2> = Npy::in_folder(store.at("drive/radar")).unwrap();
    assert_eq!(remote.metadata().as_slice(), local.metadata().as_slice());
    for i in 0..local.len() {
        assert_eq!(remote.get(i).unwrap(), local.get(i).unwrap(), "radar {i}");
    }
    let local = Images::in_folder(data("camera")).unwrap();
    let remote = Images::in_folder(store.at("drive/camera")).unwrap();
    assert_eq!(remote.len(), local.len());
    for i in 0..local.len() {
        assert_eq!(remote.get(i).unwrap(), local.get(i).unwrap(), "frame {i}");
    }
    let table = Table::open("imu", store.at("drive/imu.csv"), "t").unwrap();
    assert_eq!(table.len(), 2);
    assert_eq!(table.metadata().as_slice(), &[0.0, 0.01]);
    let stats = store.stats();
    assert!(stats.requests > 0 && stats.failures == 0, "{stats:?}");
}

#[test]
fn px4_logs_bags_and_rover_folders_in_azure_read_as_the_local_files() {
    let store = store();
    for name in ["cube-orange-vtol-small.ulg", "pixhawk4-sample-small.ulg"] {
        let local = Px4Log::open(repo("tests/data/px4").join(name)).unwrap();
        let remote = Px4Log::open_at(store.at(&format!("px4/{name}"))).unwrap();
        assert!(same_px4_log(&remote, &local) > 100, "{name}");
    }
    let local = Bag::open(repo("tests/data/ros/flight.mcap")).unwrap();
    let remote = Bag::open(store.at("ros/flight.mcap")).unwrap();
    assert_eq!(same_bag(&remote, &local), 308);
    for sensor in ["imu", "lidar", "radar"] {
        let options = RoverOptions::default();
        let local =
            RoverSensor::open(repo("tests/data/rover/trace").join(sensor), &options).unwrap();
        let remote = RoverSensor::open(store.at(&format!("rover/{sensor}")), &options).unwrap();
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

#[test]
fn videos_in_azure_decode_as_the_local_files() {
    let store = store();
    for codec in VIDEOS {
        let local = Video::open(data(&format!("video/{codec}.mp4"))).unwrap();
        let remote = Video::open(store.at(&format!("video/{codec}.mp4"))).unwrap();
        assert_eq!(remote.metadata(), local.metadata(), "{codec}");
        assert_eq!(remote.codec(), local.codec());
        // Every frame, read all at once in reverse (each group of pictures
        // decoded once), as the local file's.
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

#[test]
fn a_wrong_key_or_a_missing_object_is_named_with_what_to_check() {
    let server = server();
    // Another valid key, not the account's: the server refuses the signature.
    let wrong = KEY.replace('E', "F");
    let store = Store::open_with(
        &format!("az://{CONTAINER}"),
        &server.options_with_key(&wrong, quick()),
    )
    .unwrap();
    let message = source_error(store.get("drive/imu.csv"), "drive/imu.csv");
    assert!(
        message.starts_with(&format!("az://{CONTAINER}/drive/imu.csv: access denied")),
        "{message}"
    );
    assert_eq!(store.stats().retries, 0, "{:?}", store.stats());
    let message = source_error(self::store().get("drive/nothing.csv"), "drive/nothing.csv");
    assert!(message.contains("not found"), "{message}");
}

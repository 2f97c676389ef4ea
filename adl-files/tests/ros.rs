//! Robot logs read by adl equal the `rosbags` library's reading of them:
//! the bags of `tests/data/ros` (written by `make_bags.py` from the PX4
//! logs, photographs and point clouds), every message of every topic
//! against `expected/<bag>.json`, rosbags' own decoding.

use std::path::{Path, PathBuf};

use adl::files::ros::{Bag, Message, Numbers, Value};
use adl::{Metadata, Sensor};
use serde_json::Value as Json;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/ros")
        .join(name)
}

/// `value` as the plain data rosbags' message objects hold.
fn plain(value: &Value) -> Json {
    match value {
        Value::Bool(b) => Json::Bool(*b),
        Value::I8(x) => (*x).into(),
        Value::U8(x) => (*x).into(),
        Value::I16(x) => (*x).into(),
        Value::U16(x) => (*x).into(),
        Value::I32(x) => (*x).into(),
        Value::U32(x) => (*x).into(),
        Value::I64(x) => (*x).into(),
        Value::U64(x) => (*x).into(),
        Value::F32(x) => f64::from(*x).into(),
        Value::F64(x) => (*x).into(),
        Value::String(s) => s.clone().into(),
        Value::Array(numbers) => numbers_json(numbers),
        Value::List(items) => Json::Array(items.iter().map(plain).collect()),
        Value::Message(m) => message_json(m),
    }
}

fn numbers_json(numbers: &Numbers) -> Json {
    fn all<T: Copy + Into<Json>>(v: &[T]) -> Json {
        Json::Array(v.iter().map(|&x| x.into()).collect())
    }
    match numbers {
        Numbers::Bool(v) => all(v),
        Numbers::I8(v) => all(v),
        Numbers::U8(v) => all(v),
        Numbers::I16(v) => all(v),
        Numbers::U16(v) => all(v),
        Numbers::I32(v) => all(v),
        Numbers::U32(v) => all(v),
        Numbers::I64(v) => all(v),
        Numbers::U64(v) => all(v),
        Numbers::F32(v) => Json::Array(v.iter().map(|&x| f64::from(x).into()).collect()),
        Numbers::F64(v) => all(v),
    }
}

fn message_json(m: &Message) -> Json {
    Json::Object(m.fields().map(|(k, v)| (k.to_owned(), plain(v))).collect())
}

/// Whether two plain values are equal, numbers by value (1 and 1.0 alike).
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Every message of `bag` equals rosbags' reading, in `expected`.
fn reads_as_rosbags(bag: &str, expected: &str) -> usize {
    let bag = Bag::open(data(bag)).unwrap();
    assert!(bag.damage().is_empty(), "{:?}", bag.damage());
    let text = std::fs::read_to_string(data("expected").join(expected)).unwrap();
    let expected: Json = serde_json::from_str(&text).unwrap();
    let topics = expected["topics"].as_object().unwrap();
    let mut compared = 0;
    assert_eq!(
        bag.topics().keys().copied().collect::<Vec<_>>(),
        topics.keys().map(String::as_str).collect::<Vec<_>>()
    );
    for (name, want) in topics {
        let topic = bag.topic(name).unwrap();
        assert_eq!(
            topic.message_type(),
            want["type"].as_str().unwrap(),
            "{name}"
        );
        let times: Vec<u64> = topic.log_times_ns().collect();
        let want_times: Vec<u64> = (want["log_time_ns"].as_array().unwrap().iter())
            .map(|t| t.as_u64().unwrap())
            .collect();
        assert_eq!(times, want_times, "{name}: log times");
        let messages = want["messages"].as_array().unwrap();
        assert_eq!(topic.len(), messages.len(), "{name}");
        for (i, message) in messages.iter().enumerate() {
            let got = message_json(&topic.get(i).unwrap());
            assert!(
                same(&got, message),
                "{name}[{i}]:\n adl     {got}\n rosbags {message}"
            );
            compared += 1;
        }
    }
    compared
}

#[test]
fn a_standalone_mcap_reads_as_rosbags_reads_it() {
    assert!(reads_as_rosbags("flight.mcap", "flight.mcap.json") > 300);
}

#[test]
fn a_rosbag2_in_mcap_storage_reads_as_rosbags_reads_it() {
    assert!(reads_as_rosbags("flight_mcap", "flight_mcap.json") > 300);
}

#[test]
fn a_rosbag2_in_sqlite_storage_reads_as_rosbags_reads_it() {
    assert!(reads_as_rosbags("flight_sqlite", "flight_sqlite.json") > 300);
}

#[test]
fn a_rosbag2_compressed_by_file_reads_as_rosbags_reads_it() {
    assert!(reads_as_rosbags("flight_zstd", "flight_zstd.json") > 300);
}

#[test]
fn a_ros1_bag_reads_as_rosbags_reads_it() {
    for (bag, expected) in [
        ("flight.bag", "flight.bag.json"),
        ("flight_bz2.bag", "flight_bz2.bag.json"),
        ("flight_plain.bag", "flight_plain.bag.json"),
    ] {
        assert!(reads_as_rosbags(bag, expected) > 300, "{bag}");
    }
}

/// A ROS 1 bag written by Debian's own writer (python3-rosbag, the ROS 1
/// library), bz2 chunks, reads as that library reads it back
/// (`make_debian_bag.py`).
#[test]
fn a_ros1_bag_of_debians_writer_reads_as_rosbag_reads_it() {
    assert!(reads_as_rosbags("flight_debian.bag", "flight_debian.bag.json") > 300);
}

/// A standalone MCAP in ROS 1 encoding (ros1msg schemas, lz4 chunks),
/// written by Foxglove's mcap-ros1-support, reads as its reader reads it
/// (`make_ros1_mcap.py`).
#[test]
fn an_mcap_of_ros1_messages_reads_as_its_writers_reader_reads_it() {
    assert!(reads_as_rosbags("flight_ros1.mcap", "flight_ros1.mcap.json") > 300);
}

/// A rosbag2 SQLite file without `message_definitions` (rosbag2 before
/// Iron) is decoded by the built-in definitions of the standard packages.
#[test]
fn a_bag_without_definitions_is_read_by_the_builtin_ones() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("old");
    std::fs::create_dir(&bag).unwrap();
    for name in ["metadata.yaml", "flight_sqlite.db3"] {
        std::fs::copy(data("flight_sqlite").join(name), bag.join(name)).unwrap();
    }
    let db = bag.join("flight_sqlite.db3");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("DROP TABLE message_definitions;")
        .unwrap();
    let old = Bag::open(&bag).unwrap();
    let new = Bag::open(data("flight_sqlite")).unwrap();
    for name in new.topics().keys() {
        let (a, b) = (old.topic(name).unwrap(), new.topic(name).unwrap());
        for i in 0..b.len() {
            assert_eq!(a.get(i).unwrap(), b.get(i).unwrap(), "{name}[{i}]");
        }
    }
}

/// A bag cut short, as a recording that stopped: no summary, the last
/// chunk incomplete. The messages before the cut are kept, each as
/// rosbags reads it from the whole file, and the damage is named.
#[test]
fn a_cut_bag_keeps_the_messages_before_the_cut() {
    for bag in [
        "flight.mcap",
        "flight.bag",
        "flight_bz2.bag",
        "flight_plain.bag",
    ] {
        cut_keeps_what_comes_before(bag);
    }
}

fn cut_keeps_what_comes_before(file: &str) {
    let whole = std::fs::read(data(file)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join(format!("cut-{file}"));
    std::fs::write(&cut, &whole[..whole.len() * 2 / 3]).unwrap();
    let bag = Bag::open(&cut).unwrap();
    let damage = bag.damage().join("; ");
    assert!(
        damage.contains("cut-") && damage.contains("damaged at byte"),
        "{file}: {damage}"
    );
    let full = Bag::open(data(file)).unwrap();
    let mut kept = 0;
    for name in full.topics().keys() {
        let n = bag.message_count(name);
        kept += n;
        if n == 0 {
            continue;
        }
        let (part, whole) = (bag.topic(name).unwrap(), full.topic(name).unwrap());
        for i in 0..n {
            assert_eq!(
                part.get(i).unwrap(),
                whole.get(i).unwrap(),
                "{file} {name}[{i}]"
            );
        }
    }
    assert!(kept > 50 && kept < 308, "{file}: {kept} kept");
}

/// Bytes changed anywhere in a bag give errors naming the file, never a
/// panic: opening, listing and reading every message.
#[test]
fn a_damaged_bag_never_panics() {
    for bag in [
        "flight.mcap",
        "flight.bag",
        "flight_bz2.bag",
        "flight_plain.bag",
    ] {
        damage_never_panics(bag);
    }
}

fn damage_never_panics(name: &str) {
    let whole = std::fs::read(data(name)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("damaged-{name}"));
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..60 {
        let mut bytes = whole.clone();
        for _ in 0..(1 + round % 8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % bytes.len() as u64) as usize;
            bytes[at] = bytes[at].wrapping_add(1 + (state >> 32) as u8 % 255);
        }
        std::fs::write(&path, &bytes).unwrap();
        let Ok(bag) = Bag::open(&path) else { continue };
        for name in bag.topics().keys() {
            if let Ok(topic) = bag.topic(name) {
                for i in 0..topic.len() {
                    if let Err(e) = topic.get(i) {
                        assert!(format!("{e:#}").contains("damaged-"), "{e:#}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_missing_topic_or_an_unknown_path_is_an_error_naming_it() {
    let bag = Bag::open(data("flight.mcap")).unwrap();
    let err = bag.topic("/nope").unwrap_err();
    assert!(err.to_string().contains("/nope"), "{err}");
    let err = Bag::open(data("make_bags.py")).unwrap_err();
    assert!(err.to_string().contains("make_bags.py"), "{err}");
    let err = Bag::open(data("absent.mcap")).unwrap_err();
    assert!(err.to_string().contains("absent.mcap"), "{err}");
}

#[test]
fn a_topic_is_a_sensor_timed_by_log_time_or_header_stamp() {
    let bag = Bag::open(data("flight.mcap")).unwrap();
    let imu = bag.topic("/imu").unwrap();
    assert_eq!(imu.name(), "/imu");
    let first = imu.metadata().timestamps()[0];
    assert!(first > 1.7e9, "{first}");
    let stamped = imu.clone().stamped_by_header().unwrap();
    assert_eq!(stamped.len(), imu.len());
    let message = imu.get(3).unwrap();
    let sec = message.at("header.stamp.sec").unwrap().as_f64().unwrap();
    let nanosec = message
        .at("header.stamp.nanosec")
        .unwrap()
        .as_f64()
        .unwrap();
    assert_eq!(stamped.metadata().timestamps()[3], sec + nanosec * 1e-9);
    let err = message.at("header.nope").unwrap_err();
    assert!(err.to_string().contains("`nope`"), "{err}");
}

mod views {
    use adl::Sensor;
    use adl::files::ros::views::{Fix, Imu, Pose, Scan, point_columns};
    use adl::files::ros::{Bag, Numbers, Value};
    use adl::interpolate::Quaternion;
    use adl::ndarray::{Array2, Array3, s};
    use adl::{Interpolated, Metadata};

    use super::data;

    fn bytes(value: &Value) -> Vec<u8> {
        match value {
            Value::Array(Numbers::U8(v)) => v.clone(),
            other => panic!("not bytes: {other:?}"),
        }
    }

    #[test]
    fn images_are_hwc_arrays_by_encoding() {
        let bag = Bag::open(data("flight.mcap")).unwrap();
        let raw = bag.topic("/camera/image").unwrap();
        let message = raw.get(2).unwrap();
        let (h, w) = (24, 32);
        let data = bytes(message.field("data").unwrap());
        let rgb = raw.clone().view::<Array3<u8>>().unwrap().get(2).unwrap();
        assert_eq!(rgb.shape(), &[h, w, 3]);
        let step = message.number("step").unwrap() as usize;
        for (y, x, c) in [(0, 0, 0), (5, 7, 1), (23, 31, 2)] {
            assert_eq!(
                rgb[[y, x, c]],
                data[y * step + x * 3 + c],
                "({y}, {x}, {c})"
            );
        }
        let mono = bag
            .topic("/camera/mono")
            .unwrap()
            .view::<Array3<u8>>()
            .unwrap();
        assert_eq!(mono.get(0).unwrap().shape(), &[h, w, 1]);
        let depth = bag.topic("/camera/depth").unwrap();
        let first = depth.get(1).unwrap();
        let raw16 = bytes(first.field("data").unwrap());
        let depth = depth.view::<Array3<u16>>().unwrap().get(1).unwrap();
        assert_eq!(depth.shape(), &[h, w, 1]);
        assert_eq!(
            depth[[3, 4, 0]],
            u16::from_le_bytes([raw16[(3 * w + 4) * 2], raw16[(3 * w + 4) * 2 + 1]])
        );
        let err = bag
            .topic("/camera/depth")
            .unwrap()
            .view::<Array3<u8>>()
            .unwrap()
            .get(0)
            .unwrap_err();
        assert!(format!("{err:#}").contains("Array3<u16>"), "{err:#}");
    }

    /// The JPEG of a frame decodes to within JPEG's error of its raw
    /// pixels.
    #[test]
    fn compressed_images_decode_to_their_raw_frames() {
        let bag = Bag::open(data("flight.mcap")).unwrap();
        let raw = bag
            .topic("/camera/image")
            .unwrap()
            .view::<Array3<u8>>()
            .unwrap();
        let jpeg = bag
            .topic("/camera/compressed")
            .unwrap()
            .view::<Array3<u8>>()
            .unwrap();
        assert_eq!(raw.len(), jpeg.len());
        for i in 0..raw.len() {
            let (a, b) = (raw.get(i).unwrap(), jpeg.get(i).unwrap());
            assert_eq!(a.shape(), b.shape());
            let diff: f64 = a
                .iter()
                .zip(b.iter())
                .map(|(&x, &y)| f64::from(x.abs_diff(y)))
                .sum();
            let mean = diff / a.len() as f64;
            assert!(mean < 8.0, "frame {i}: mean difference {mean}");
        }
    }

    #[test]
    fn point_clouds_are_n_by_c_arrays() {
        let bag = Bag::open(data("flight.bag")).unwrap();
        let topic = bag.topic("/lidar").unwrap();
        let message = topic.get(0).unwrap();
        let n = (message.number("width").unwrap() * message.number("height").unwrap()) as usize;
        let data = bytes(message.field("data").unwrap());
        let step = message.number("point_step").unwrap() as usize;
        assert_eq!(
            point_columns(&message).unwrap(),
            ["x", "y", "z", "intensity"]
        );
        let points: Array2<f32> = topic.view::<Array2<f32>>().unwrap().get(0).unwrap();
        assert_eq!(points.shape(), &[n, 4]);
        for p in [0, n / 2, n - 1] {
            let x = f32::from_le_bytes(data[p * step..p * step + 4].try_into().unwrap());
            assert_eq!(points[[p, 0]], x);
        }
        assert!(points.slice(s![.., 3]).iter().all(|v| v.is_finite()));
    }

    #[test]
    fn motion_messages_have_views_that_interpolate() {
        let bag = Bag::open(data("flight_sqlite")).unwrap();
        let imu = bag.topic("/imu").unwrap();
        let message = imu.get(4).unwrap();
        let view: Imu = imu.clone().view::<Imu>().unwrap().get(4).unwrap();
        assert_eq!(
            view.angular_velocity[2],
            message.at("angular_velocity.z").unwrap().as_f64().unwrap()
        );
        let q = message.message("orientation").unwrap();
        let want = Quaternion::new(
            q.number("x").unwrap(),
            q.number("y").unwrap(),
            q.number("z").unwrap(),
            q.number("w").unwrap(),
        )
        .unwrap();
        assert_eq!(view.orientation, want);

        let fix: Fix = bag
            .topic("/gps")
            .unwrap()
            .view::<Fix>()
            .unwrap()
            .get(0)
            .unwrap();
        assert!(
            fix.latitude.abs() > 1.0 && fix.latitude.abs() <= 90.0,
            "{fix:?}"
        );
        let scan: Scan = bag
            .topic("/scan")
            .unwrap()
            .view::<Scan>()
            .unwrap()
            .get(0)
            .unwrap();
        assert_eq!(scan.ranges.len(), 90);
        for topic in ["/pose", "/odom", "/tf"] {
            let pose: Pose = bag
                .topic(topic)
                .unwrap()
                .view::<Pose>()
                .unwrap()
                .get(0)
                .unwrap();
            assert!(pose.position.iter().all(|v| v.is_finite()), "{topic}");
        }
        let err = bag.topic("/gps").unwrap().view::<Pose>().unwrap_err();
        assert!(
            err.to_string().contains("sensor_msgs/msg/NavSatFix"),
            "{err}"
        );

        // The pose at each camera frame's stamp, interpolated.
        let camera = bag.topic("/camera/image").unwrap();
        let pose = bag.topic("/pose").unwrap().view::<Pose>().unwrap();
        let at = Interpolated::new(pose.clone(), camera.metadata().timestamps(), 0.5).unwrap();
        let times = pose.metadata().timestamps().to_vec();
        for i in 0..camera.len() {
            let t = camera.metadata().timestamps()[i];
            let got = at.get(i).unwrap();
            if !got.valid {
                continue;
            }
            let k = times.partition_point(|&s| s <= t).saturating_sub(1);
            let (a, b) = (
                pose.get(k).unwrap(),
                pose.get((k + 1).min(times.len() - 1)).unwrap(),
            );
            for d in 0..3 {
                let (lo, hi) = (
                    a.position[d].min(b.position[d]),
                    a.position[d].max(b.position[d]),
                );
                assert!(got.value.position[d] >= lo - 1e-9 && got.value.position[d] <= hi + 1e-9);
            }
        }
    }
}

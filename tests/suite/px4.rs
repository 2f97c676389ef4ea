//! The PX4 ULog reader on the two real flight logs of `tests/data/px4`
//! (see NOTICE.md there), and on broken files.
#![cfg(feature = "px4")]

use std::path::PathBuf;

use adl::files::px4::{Completeness, Px4Log, TopicSensor};
use adl::sync::Nearest;
use adl::{Dataset, Error, Metadata, Recording, Sensor, Timestamps};

const PIXHAWK: &str = "pixhawk4-sample-small.ulg";
const CUBE: &str = "cube-orange-vtol-small.ulg";

fn data(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/px4")
        .join(file)
}

fn open(file: &str) -> Px4Log {
    Px4Log::open(data(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// A file under the system temp dir, unique to this test process.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("adl-px4-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn assert_rate(log: &Px4Log, name: &str, min_samples: usize, hz: (f64, f64)) {
    let sensor = log.sensor(name).unwrap();
    let rate = sensor.framerate().unwrap();
    assert!(
        sensor.len() >= min_samples,
        "{name}: {} samples",
        sensor.len()
    );
    assert!(
        hz.0 <= rate && rate <= hz.1,
        "{name}: {rate} Hz not in {hz:?}"
    );
}

#[test]
fn both_logs_open_completely() {
    for (file, sensors, with_data) in [(PIXHAWK, 107, 107), (CUBE, 69, 70)] {
        let log = open(file);
        assert_eq!(log.completeness(), &Completeness::Complete, "{file}");
        assert_eq!(log.sensors().len(), sensors, "{file}");
        // NOTICE.md counts the topic instances that logged data.
        let empty = log
            .rejected()
            .iter()
            .filter(|(_, e)| matches!(e, Error::EmptySensor { .. }))
            .count();
        assert_eq!(
            log.sensors().len() + log.rejected().len() - empty,
            with_data,
            "{file}"
        );
    }
}

#[test]
fn counts_and_rates_match_the_notice() {
    let log = open(PIXHAWK);
    assert_rate(&log, "sensor_combined", 3600, (195.0, 200.0));
    assert_rate(&log, "vehicle_attitude", 360, (19.0, 21.0));
    assert_rate(&log, "vehicle_local_position", 180, (9.9, 10.1));
    assert_rate(&log, "vehicle_gps_position", 35, (1.9, 2.1));
    let imu = log.sensor("sensor_combined").unwrap();
    assert!((18.0..19.0).contains(&imu.duration()), "{}", imu.duration());

    let log = open(CUBE);
    assert_rate(&log, "sensor_combined", 1290, (198.0, 202.0));
    assert_rate(&log, "airspeed", 590, (88.0, 94.0));
    assert_rate(&log, "vehicle_gps_position", 30, (4.9, 5.1));
    assert_rate(&log, "vehicle_attitude", 1290, (198.0, 202.0));
    assert_rate(&log, "vehicle_local_position", 630, (95.0, 100.0));
    let imu = log.sensor("sensor_combined").unwrap();
    assert!((6.0..7.0).contains(&imu.duration()), "{}", imu.duration());
}

#[test]
fn every_sensor_has_valid_timestamps_and_instance_names() {
    for file in [PIXHAWK, CUBE] {
        let log = open(file);
        let mut names = Vec::new();
        for sensor in log.sensors() {
            let t = sensor.metadata().timestamps();
            assert!(!t.is_empty(), "{}", sensor.name());
            Timestamps::validate(sensor.name(), t).unwrap();
            assert!(t[0] > 0.0, "{}", sensor.name());
            assert_eq!(
                sensor.name(),
                TopicSensor::sensor_name(sensor.topic(), sensor.instance())
            );
            for name in sensor.field_names() {
                assert_eq!(sensor.field(name).unwrap().nrows(), sensor.len());
            }
            names.push(sensor.name());
        }
        let mut sorted = names.clone();
        sorted.sort_by_key(|n| {
            let (topic, instance) = n.split_once('/').unwrap_or((n, "0"));
            (topic.to_owned(), instance.parse::<u8>().unwrap())
        });
        assert_eq!(
            names, sorted,
            "{file}: sensors sorted by topic then instance"
        );
        // Rejected topics are not sensors.
        for (name, _) in log.rejected() {
            assert!(log.sensor(name).is_err(), "{name}");
        }
    }
    let log = open(PIXHAWK);
    let second = log.sensor("estimator_attitude/1").unwrap();
    assert_eq!(
        (second.topic(), second.instance()),
        ("estimator_attitude", 1)
    );
}

#[test]
fn rejected_topics_carry_their_errors() {
    let log = open(CUBE);
    let reason = |name: &str| {
        &log.rejected()
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} not rejected"))
            .1
    };
    // test_motor is logged once, stamped 0: a clock that never started.
    assert!(matches!(
        reason("test_motor"),
        Error::ConstantTimestamps { value, .. } if *value == 0.0
    ));
    assert!(matches!(reason("sensor_mag/2"), Error::EmptySensor { .. }));
    assert!(
        reason("sensor_mag/2")
            .to_string()
            .contains("`sensor_mag/2`")
    );

    let log = open(PIXHAWK);
    assert!(!log.rejected().is_empty());
    assert!(
        log.rejected()
            .iter()
            .all(|(_, e)| matches!(e, Error::EmptySensor { .. }))
    );
}

#[test]
fn samples_have_the_right_fields() {
    let log = open(PIXHAWK);
    let imu = log.sensor("sensor_combined").unwrap();
    assert!(!imu.field_names().iter().any(|n| n == "timestamp"));
    let sample = imu.get(100).unwrap();
    assert_eq!(sample.names(), imu.field_names());
    assert_eq!(sample["gyro_rad"].len(), 3);
    assert_eq!(sample["accelerometer_m_s2"].len(), 3);
    assert_eq!(sample["gyro_integral_dt"].len(), 1);
    assert!(sample.values().iter().flatten().all(|v| v.is_finite()));
    // Gravity: the specific force is about 9.8 m/s² in level flight or at rest.
    let norm = sample["accelerometer_m_s2"].mapv(|a| a * a).sum().sqrt();
    assert!((7.0..13.0).contains(&norm), "{norm}");
    // The row is the column's.
    assert_eq!(
        imu.value(100, "gyro_rad").unwrap(),
        imu.field("gyro_rad").unwrap().row(100)
    );

    let attitude = log.sensor("vehicle_attitude").unwrap();
    for i in [0, attitude.len() / 2, attitude.len() - 1] {
        let q = &attitude.get(i).unwrap()["q"];
        assert_eq!(q.len(), 4);
        let norm = q.mapv(|a| a * a).sum().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "quaternion norm {norm}");
    }

    let gps = open(CUBE);
    let gps = gps.sensor("vehicle_gps_position").unwrap();
    let fix = gps.get(0).unwrap();
    for field in ["lat", "lon", "alt"] {
        assert_eq!(fix[field].len(), 1, "{field}");
    }
    assert!(fix["lat"][0] != 0.0);

    let err = imu.get(imu.len()).unwrap_err();
    assert!(matches!(err, Error::IndexOutOfRange { .. }), "{err}");
    let err = log.sensor("no_such_topic").unwrap_err();
    assert!(matches!(err, Error::UnknownSensor { .. }), "{err}");
    assert!(err.to_string().contains("sensor_combined"));
}

#[test]
fn nearest_trace_of_four_topics_is_within_tolerance() {
    for (file, tolerance) in [(PIXHAWK, 0.05), (CUBE, 0.006)] {
        let log = open(file);
        let names = [
            "sensor_combined",
            "vehicle_attitude",
            "vehicle_local_position",
            "vehicle_gps_position",
        ];
        let sensors: Vec<&TopicSensor> = names.iter().map(|n| log.sensor(n).unwrap()).collect();
        let sync = Nearest::new("vehicle_gps_position", tolerance).unwrap();
        let trace = Recording::new(file, sensors, &sync).unwrap();
        let gps = log.sensor("vehicle_gps_position").unwrap();
        assert!(
            trace.len() >= gps.len() * 3 / 4,
            "{file}: {} rows",
            trace.len()
        );
        assert!(trace.len() <= gps.len());

        let indices = trace.indices().unwrap();
        let reference = indices.column("vehicle_gps_position").unwrap();
        let t_ref = gps.metadata().timestamps();
        for name in names {
            let t = log.sensor(name).unwrap().metadata().timestamps();
            let column = indices.column(name).unwrap();
            for (&i, &r) in column.iter().zip(reference) {
                let gap = (t[i as usize] - t_ref[r as usize]).abs();
                assert!(
                    gap < tolerance,
                    "{file}: {name} is {gap} s from the reference"
                );
            }
        }
        let row = trace.get(trace.len() / 2).unwrap();
        assert_eq!(row["sensor_combined"]["gyro_rad"].len(), 3);
        assert_eq!(row["vehicle_attitude"]["q"].len(), 4);
    }
}

#[test]
fn unreadable_files_are_source_errors() {
    let missing = data("no-such-log.ulg");
    let err = Px4Log::open(&missing).unwrap_err();
    assert!(
        matches!(&err, Error::Source { path, .. } if path.contains("no-such-log.ulg")),
        "{err}"
    );

    let garbage = temp_file("garbage.ulg", b"this is not a flight log, just some text\n");
    let err = Px4Log::open(&garbage).unwrap_err();
    assert!(
        matches!(&err, Error::Source { reason, .. } if reason.contains("not a ULog")),
        "{err}"
    );

    let empty = temp_file("empty.ulg", b"");
    let err = Px4Log::open(&empty).unwrap_err();
    assert!(matches!(err, Error::Source { .. }), "{err}");

    let dir = Px4Log::open(std::env::temp_dir()).unwrap_err();
    assert!(matches!(dir, Error::Source { .. }), "{dir}");

    for path in [garbage, empty] {
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn truncated_logs_give_an_error_or_a_partial_log() {
    let bytes = std::fs::read(data(CUBE)).unwrap();
    let full = open(CUBE).sensor("sensor_combined").unwrap().len();
    let cuts = [
        7,
        16,
        17,
        100,
        2_000,
        bytes.len() / 4,
        bytes.len() / 2,
        bytes.len() - 7,
        bytes.len() - 1,
    ];
    let mut partial = 0;
    for cut in cuts {
        let path = temp_file(&format!("cut-{cut}.ulg"), &bytes[..cut]);
        match Px4Log::open(&path) {
            Err(Error::Source { reason, .. }) => assert!(!reason.is_empty()),
            Err(other) => panic!("cut at {cut}: unexpected error {other}"),
            Ok(log) => {
                partial += 1;
                assert!(cut > 17, "cut at {cut} opened");
                if let Ok(imu) = log.sensor("sensor_combined") {
                    assert!(imu.len() <= full);
                }
                for sensor in log.sensors() {
                    Timestamps::validate(sensor.name(), sensor.metadata().timestamps()).unwrap();
                }
                if cut == bytes.len() - 1 {
                    assert_eq!(log.completeness(), &Completeness::Truncated);
                }
            }
        }
        std::fs::remove_file(path).unwrap();
    }
    assert!(partial >= 3, "the larger prefixes read as partial logs");
}

#[test]
fn corrupted_logs_do_not_panic() {
    // Random bytes overwritten, in the definitions and anywhere in the file
    // (deterministic xorshift). The reader gives an error that says where,
    // or a log cut at the broken record; never a panic (px4-ulog 0.6, the
    // reader adl used before its own, panicked on some of these).
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as usize
    };
    for file in [PIXHAWK, CUBE] {
        let bytes = std::fs::read(data(file)).unwrap();
        for k in 0..40 {
            let mut broken = bytes.clone();
            let span = if k % 2 == 0 { 5_000 } else { broken.len() - 16 };
            for _ in 0..1 + next() % 16 {
                broken[16 + next() % span] = next() as u8;
            }
            let path = temp_file(&format!("corrupt-{file}-{k}.ulg"), &broken);
            match Px4Log::open(&path) {
                Ok(log) => {
                    for sensor in log.sensors() {
                        Timestamps::validate(sensor.name(), sensor.metadata().timestamps())
                            .unwrap();
                        sensor.get(sensor.len() - 1).unwrap();
                    }
                }
                Err(e) => assert!(matches!(e, Error::Source { .. }), "{e}"),
            }
            std::fs::remove_file(path).unwrap();
        }
    }
}

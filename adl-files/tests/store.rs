//! The file-backed sensors over object storage, against a real S3 API
//! server (moto's, started by `s3::S3Server`): the same samples and the
//! same refusals as from local files, and the failures of a network:
//! missing objects and buckets named, transient failures retried and
//! counted, nothing hanging.

mod common;
mod s3;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::source_error;
use s3::flaky::{Fault, Flaky};
use s3::{BUCKET, S3Server, options_for};

use adl::files::{Location, Npy, RetryPolicy, Store, StoreOptions, Table, read_timestamps};
use adl::loader::Loader;
use adl::ndarray::{Array, Array2, Ix1, Ix2, IxDyn};
use adl::{Error, Sensor, SensorDataset};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The IMU table the tests put beside the radar.
const IMU: &str = "# an IMU\nt, ax, gz\n0.000, 1.5, -2\n0.005, 2.5, -3\n0.010, 3.5, -4\n";

/// The moto server, its bucket holding the fixtures: `drive/radar/` (a
/// sensor folder: `data.npy`, `ts.npy`), `drive/imu.csv`, `drive/ts.txt`,
/// `bad/*.npy` (the bad files of `tests/data`), `bad/nots/data.npy` (a
/// sensor folder without timestamps); and the store of the bucket shared
/// by URL strings.
fn server() -> &'static S3Server {
    static FIXTURES: OnceLock<()> = OnceLock::new();
    let server = S3Server::shared();
    FIXTURES.get_or_init(|| {
        let file = |name: &str| std::fs::read(data(name)).unwrap();
        server.put("drive/radar/data.npy", &file("radar.npy"));
        server.put("drive/radar/ts.npy", &file("radar_ts.npy"));
        server.put("drive/ts.txt", &file("radar_ts.txt"));
        server.put("drive/imu.csv", IMU.as_bytes());
        for bad in [
            "radar_truncated.npy",
            "radar_big_endian.npy",
            "not_npy.npy",
            "radar_fortran.npy",
            "ts_unsorted.npy",
        ] {
            server.put(&format!("bad/{bad}"), &file(bad));
        }
        server.put("bad/nots/data.npy", &file("radar.npy"));
        server.put("bad/empty.npy", b"");
        // A sensor folder readable over plain HTTP.
        server.put_public("public/radar/data.npy", &file("radar.npy"));
        server.put_public("public/radar/ts.txt", &file("radar_ts.txt"));
        // URL strings in the bucket read through a store on this server.
        server.store().share();
    });
    server
}

fn radar_times() -> adl::Timestamps {
    read_timestamps("radar", data("radar_ts.npy")).unwrap()
}

/// `radar[i]` as tests/data/make.py writes it.
fn expected(i: usize) -> Array2<f32> {
    Array::from_shape_fn((2, 3), |(r, c)| (i * 6 + r * 3 + c) as f32 / 4.0)
}

/// A policy that retries quickly, `retries` times.
fn quick(retries: u32) -> RetryPolicy {
    RetryPolicy::new(
        retries,
        Duration::from_millis(20),
        Duration::from_millis(100),
    )
}

#[test]
fn an_npy_sensor_in_s3_reads_as_the_local_file_with_a_request_per_sample() {
    let store = server().store();
    let url = format!("s3://{BUCKET}/drive/radar/data.npy");
    let remote: Npy<f32, Ix2> =
        Npy::open("radar", store.at("drive/radar/data.npy"), radar_times()).unwrap();
    let local: Npy<f32, Ix2> = Npy::open("radar", data("radar.npy"), radar_times()).unwrap();
    assert_eq!(remote.location().to_string(), url);
    assert_eq!(remote.sample_shape(), local.sample_shape());
    // Opening: one ranged GET for the header (the whole small file).
    let size = std::fs::metadata(data("radar.npy")).unwrap().len();
    let opened = store.stats();
    assert_eq!(
        (opened.requests, opened.retries, opened.bytes),
        (1, 0, size)
    );
    for i in 0..5 {
        assert_eq!(remote.get(i).unwrap(), local.get(i).unwrap());
        assert_eq!(remote.get(i).unwrap(), expected(i));
    }
    // Then one ranged GET of a row (24 bytes) per sample.
    let read = store.stats();
    assert_eq!((read.requests, read.retries, read.failures), (11, 0, 0));
    assert_eq!(read.bytes, size + 10 * 24);
    assert!(matches!(
        remote.get(5),
        Err(Error::IndexOutOfRange {
            index: 5,
            len: 5,
            ..
        })
    ));

    // A URL string, read through the shared store of its bucket.
    let any: Npy<f32> = Npy::open("radar", url.as_str(), radar_times()).unwrap();
    assert_eq!(any.get(4).unwrap(), expected(4).into_dyn());
    assert_eq!(
        Store::shared(&url).unwrap().root(),
        format!("s3://{BUCKET}")
    );
}

#[test]
fn a_sensor_folder_url_is_read_by_its_layout() {
    let server = server();
    for folder in [
        Location::from(format!("s3://{BUCKET}/drive/radar/")),
        server.store().at("drive/radar"),
    ] {
        let radar: Npy<f32, Ix2> = Npy::in_folder(&folder).unwrap();
        assert_eq!(radar.name(), "radar");
        assert_eq!(radar.metadata().as_slice(), radar_times().as_slice());
        assert_eq!(radar.get(3).unwrap(), expected(3));
    }
    let folder = format!("s3://{BUCKET}/bad/nots");
    let message = source_error(Npy::<f32, Ix2>::in_folder(folder.as_str()), &folder);
    assert!(
        message.contains("(sensor `nots`): no timestamps file: a sensor folder has one of ts.npy"),
        "{message}"
    );
}

#[test]
fn a_sensor_folder_is_read_from_a_plain_http_server() {
    let server = server();
    let folder = format!("{}/{BUCKET}/public/radar", server.endpoint());
    let radar: Npy<f32, Ix2> = Npy::in_folder(folder.as_str()).unwrap();
    assert_eq!(radar.location().to_string(), format!("{folder}/data.npy"));
    assert_eq!(radar.metadata().as_slice(), radar_times().as_slice());
    for i in 0..5 {
        assert_eq!(radar.get(i).unwrap(), expected(i));
    }
    // Found by asking for each timestamps file in turn: ts.npy and
    // timestamps.npy are not there, ts.txt is; then the text, the header
    // and five rows.
    let stats = Store::shared(&folder).unwrap().stats();
    assert_eq!(
        (stats.requests, stats.retries, stats.failures),
        (10, 0, 2),
        "{stats:?}"
    );
    let missing = format!("{}/{BUCKET}/public/nothing.csv", server.endpoint());
    let message = source_error(Table::open("imu", missing.as_str(), "t"), &missing);
    assert!(
        message.contains("(sensor `imu`): no such object"),
        "{message}"
    );
}

#[test]
fn tables_and_timestamps_are_read_whole_from_s3() {
    server();
    let imu = Table::open("imu", format!("s3://{BUCKET}/drive/imu.csv"), "t").unwrap();
    assert_eq!(imu.columns(), &["ax", "gz"]);
    assert_eq!(imu.metadata().as_slice(), &[0.0, 0.005, 0.01]);
    assert_eq!(imu.get(2).unwrap(), adl::ndarray::array![3.5, -4.0]);
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("imu.csv");
    std::fs::write(&local, IMU).unwrap();
    let local = Table::open("imu", &local, "t").unwrap();
    assert_eq!(local.metadata().as_slice(), imu.metadata().as_slice());
    for i in 0..3 {
        assert_eq!(local.get(i).unwrap(), imu.get(i).unwrap());
    }

    let text = read_timestamps("radar", format!("s3://{BUCKET}/drive/ts.txt")).unwrap();
    let npy = read_timestamps("radar", format!("s3://{BUCKET}/drive/radar/ts.npy")).unwrap();
    assert_eq!(text.as_slice(), radar_times().as_slice());
    assert_eq!(npy.as_slice(), radar_times().as_slice());

    let url = format!("s3://{BUCKET}/bad/ts_unsorted.npy");
    let message = source_error(read_timestamps("imu", url.as_str()), &url);
    assert!(
        message.contains("sensor `imu`") && message.contains("not sorted"),
        "{message}"
    );
    let url = format!("s3://{BUCKET}/bad/empty.npy");
    let message = source_error(read_timestamps("imu", url.as_str()), &url);
    assert!(
        message.ends_with("(sensor `imu`): the object is empty"),
        "{message}"
    );
}

#[test]
fn bad_objects_are_refused_with_the_words_of_bad_files() {
    server();
    let cases = [
        (
            "radar_truncated.npy",
            "truncated: 10 bytes of the data its header describes are missing",
        ),
        ("radar_big_endian.npy", "other byte order"),
        ("not_npy.npy", "not a NumPy .npy file"),
        ("empty.npy", "the object is empty"),
    ];
    for (file, words) in cases {
        let url = format!("s3://{BUCKET}/bad/{file}");
        let message = source_error(
            Npy::<f32, Ix2>::open("radar", url.as_str(), radar_times()),
            &url,
        );
        assert!(
            message.contains("(sensor `radar`)") && message.contains(words),
            "{file}: {message}"
        );
    }
    let url = format!("s3://{BUCKET}/bad/radar_fortran.npy");
    let message = source_error(
        Npy::<f32, Ix1>::open("radar", url.as_str(), radar_times()),
        &url,
    );
    assert!(message.contains("Fortran order"), "{message}");
    let url = format!("s3://{BUCKET}/drive/radar/data.npy");
    let message = source_error(
        Npy::<f64, Ix2>::open("radar", url.as_str(), radar_times()),
        &url,
    );
    assert!(
        message.ends_with("(sensor `radar`): holds elements of type '<f4', not f64"),
        "{message}"
    );
    let message = source_error(
        Npy::<f32, Ix1>::open("radar", url.as_str(), radar_times()),
        &url,
    );
    assert!(
        message.contains("shape [5, 2, 3]; a sample of this sensor has 1 axes"),
        "{message}"
    );
    let four = adl::Timestamps::new("radar", vec![0.0, 1.0, 2.0, 3.0]).unwrap();
    let message = source_error(Npy::<f32, Ix2>::open("radar", url.as_str(), four), &url);
    assert!(
        message.contains("holds 5 samples (shape [5, 2, 3]) for 4 timestamps"),
        "{message}"
    );
}

#[test]
fn a_missing_object_or_bucket_is_named_and_not_retried() {
    let server = server();
    let store = server.store();
    let message = source_error(
        Npy::<f32, Ix2>::open("radar", store.at("nowhere/data.npy"), radar_times()),
        "nowhere/data.npy",
    );
    assert!(
        message.starts_with(&format!(
            "s3://{BUCKET}/nowhere/data.npy (sensor `radar`): no such object"
        )),
        "{message}"
    );
    let message = source_error(
        Table::open("imu", store.at("nowhere.csv"), "t"),
        "nowhere.csv",
    );
    assert!(
        message.contains("(sensor `imu`): no such object"),
        "{message}"
    );
    let missing = Store::open_with("s3://no-such-bucket", &server.options(quick(3))).unwrap();
    let message = source_error(missing.get("radar/data.npy"), "radar/data.npy");
    assert!(
        message.starts_with("s3://no-such-bucket/radar/data.npy: no such bucket or container"),
        "{message}"
    );
    for stats in [store.stats(), missing.stats()] {
        assert_eq!(stats.retries, 0, "{stats:?}");
        assert!(stats.failures >= 1, "{stats:?}");
    }
}

#[test]
fn access_denied_is_named_with_the_credentials_to_check() {
    let server = server();
    let denying = Flaky::start(
        &server.address,
        Fault::Answer {
            status: 403,
            times: usize::MAX,
        },
    );
    let store = Store::open_with(
        &format!("s3://{BUCKET}"),
        &options_for(&denying.endpoint(), quick(3)),
    )
    .unwrap();
    let message = source_error(store.get("drive/imu.csv"), "drive/imu.csv");
    assert!(
        message.starts_with(&format!("s3://{BUCKET}/drive/imu.csv: access denied: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")),
        "{message}"
    );
    assert_eq!((store.stats().requests, store.stats().retries), (1, 0));
}

#[test]
fn an_unreachable_endpoint_is_retried_as_configured_then_named() {
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let options = options_for(&format!("http://{closed}"), quick(3));
    let store = Store::open_with(&format!("s3://{BUCKET}"), &options).unwrap();
    let start = Instant::now();
    let err = Npy::<f32, Ix2>::open("radar", store.at("drive/radar/data.npy"), radar_times())
        .unwrap_err();
    let elapsed = start.elapsed();
    let message = source_error(Err::<(), _>(err), "drive/radar/data.npy");
    assert!(
        message.starts_with(&format!("s3://{BUCKET}/drive/radar/data.npy (sensor `radar`): unreachable: still failing after 3 retries")),
        "{message}"
    );
    // Opening is one request, tried 4 times.
    let stats = store.stats();
    assert_eq!(
        (stats.requests, stats.retries, stats.failures, stats.bytes),
        (4, 3, 1, 0)
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[test]
fn a_refused_connection_is_retried_until_the_server_is_up() {
    let server = server();
    let late = Flaky::start(
        &server.address,
        Fault::ClosedFor(Duration::from_millis(300)),
    );
    let patient = RetryPolicy::new(10, Duration::from_millis(50), Duration::from_millis(400));
    let store = Store::open_with(
        &format!("s3://{BUCKET}"),
        &options_for(&late.endpoint(), patient),
    )
    .unwrap();
    let radar: Npy<f32, Ix2> =
        Npy::open("radar", store.at("drive/radar/data.npy"), radar_times()).unwrap();
    assert_eq!(radar.get(2).unwrap(), expected(2));
    let stats = store.stats();
    assert!(stats.retries >= 1, "{stats:?}");
    assert_eq!(stats.requests, stats.retries + 2, "{stats:?}");
    assert_eq!(stats.failures, 0, "{stats:?}");
}

#[test]
fn server_errors_are_retried_and_each_retry_counted() {
    let server = server();
    let failing = Flaky::start(
        &server.address,
        Fault::Answer {
            status: 503,
            times: 2,
        },
    );
    let store = Store::open_with(
        &format!("s3://{BUCKET}"),
        &options_for(&failing.endpoint(), quick(3)),
    )
    .unwrap();
    let bytes = store.get("drive/imu.csv").unwrap();
    assert_eq!(&bytes[..], IMU.as_bytes());
    assert_eq!(failing.answered(), 2);
    let stats = store.stats();
    assert_eq!((stats.requests, stats.retries, stats.failures), (3, 2, 0));
    assert_eq!(stats.bytes, IMU.len() as u64);

    // More failures than retries: given up on, the status named.
    let failing = Flaky::start(
        &server.address,
        Fault::Answer {
            status: 500,
            times: 10,
        },
    );
    let store = Store::open_with(
        &format!("s3://{BUCKET}"),
        &options_for(&failing.endpoint(), quick(2)),
    )
    .unwrap();
    let message = source_error(store.size("drive/imu.csv"), "drive/imu.csv");
    assert!(
        message.contains("unreachable: still failing after 2 retries: the server answered 500"),
        "{message}"
    );
    assert_eq!(
        (
            store.stats().requests,
            store.stats().retries,
            store.stats().failures
        ),
        (3, 2, 1)
    );
}

#[test]
fn a_server_that_never_answers_times_out() {
    let server = server();
    let silent = Flaky::start(&server.address, Fault::Silent);
    let options =
        options_for(&silent.endpoint(), quick(1)).with_timeout(Duration::from_millis(300));
    let store = Store::open_with(&format!("s3://{BUCKET}"), &options).unwrap();
    let start = Instant::now();
    let message = source_error(store.get_range("drive/imu.csv", 0..10), "drive/imu.csv");
    assert!(
        message.contains("still failing after 1 retry") && message.contains("timed out"),
        "{message}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(store.stats().requests, 2);
}

#[test]
fn reads_from_loader_workers_and_from_inside_a_tokio_runtime() {
    server();
    let url = format!("s3://{BUCKET}/drive/radar/data.npy");
    let radar: Npy<f32, IxDyn> = Npy::open("radar", url.as_str(), radar_times()).unwrap();
    let loader = Loader::new(
        SensorDataset::new(radar),
        adl::pipeline! { collate: default },
    )
    .batch_size(2)
    .workers(2)
    .build()
    .unwrap();
    for _ in 0..3 {
        let rows: Vec<Array<f32, IxDyn>> =
            loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[1].index_axis(adl::ndarray::Axis(0), 1),
            expected(3).into_dyn()
        );
    }
    // A sensor read on a thread of the program's own runtime.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let sensor: Npy<f32, Ix2> = Npy::open("radar", url.as_str(), radar_times()).unwrap();
    let row = runtime.block_on(async { sensor.get(1) }).unwrap();
    assert_eq!(row, expected(1));
}

#[test]
fn store_settings_are_checked_when_it_is_opened() {
    let options = StoreOptions::default().with_config("aws_no_such_setting", "1");
    let err = Store::open_with("s3://bucket", &options)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("s3://bucket: cannot open its store: setting `aws_no_such_setting`"),
        "{err}"
    );
    let err = Store::open("ftp://host/file").unwrap_err().to_string();
    assert!(err.contains("not the URL of an object store"), "{err}");
    let err = Npy::<f32, Ix2>::open("radar", "ftp://host/data.npy", radar_times()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("ftp://host/data.npy (sensor `radar`): not the URL"),
        "{err}"
    );
}

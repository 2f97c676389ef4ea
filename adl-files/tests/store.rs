//! The file-backed sensors over object storage, against a real S3 API
//! server (SeaweedFS's, started by `s3::S3Server`): the same samples and the
//! same refusals as from local files, and the failures of a network:
//! missing objects and buckets named, transient failures retried and
//! counted, nothing hanging. Its modules `az` and `gcs` read every reader's
//! fixtures from Azure's emulator and through the GCS client;
//! `lerobot_store` and `rover_store` read LeRobot datasets and a roverd
//! trace from this binary's S3 server.

// The `az://` tests against Azurite, the `gs://` tests against this
// binary's S3 server, and the LeRobot and roverd readers' S3 tests, here
// for the build (and the server) they share with the S3 tests.
#[cfg(feature = "azure")]
mod az;
#[cfg(feature = "azure")]
mod azure;
mod common;
#[cfg(feature = "gcs")]
mod gcs;
#[cfg(feature = "lerobot")]
mod lerobot_store;
mod rover_store;
mod s3;
mod same_files;
mod same_logs;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::source_error;
use s3::flaky::{Fault, Flaky};
use s3::{BUCKET, KEY_ID, S3Server, options_for};
use same_logs::{same_bag, same_px4_log};

use adl::files::{
    Images, Location, Npy, NpyFiles, RetryPolicy, Store, StoreOptions, Table, read_timestamps,
};
use adl::graph::loader::Loader;
use adl::ndarray::{Array, Array1, Array2, Array4, Axis, Ix1, Ix2, IxDyn};
use adl::transform::ImageLayout;
use adl::{Error, Sensor, SensorDataset, SensorOrigin};
use ndarray_npy::WriteNpyExt;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The servers' venvs made where they are not (SeaweedFS's; Azurite's,
/// with Node and npm's packages: a minute or so of downloads): the tests
/// that start a server make it first otherwise. `cargo xtask test` runs
/// this test alone once the tests are built, beside the test binaries
/// that run before this one, so that this binary's tests do not wait for
/// the downloads.
#[test]
fn the_servers_venvs_are_made() {
    assert!(s3::venv_weed().is_file());
    #[cfg(feature = "azure")]
    assert!(azure::venv().join("azurite/node_modules/azurite").is_dir());
}

/// The IMU table the tests put beside the radar.
const IMU: &str = "# an IMU\nt, ax, gz\n0.000, 1.5, -2\n0.005, 2.5, -3\n0.010, 3.5, -4\n";

/// The S3 server, its bucket holding the fixtures: `drive/radar/` (a
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
        // Sensors with a file per sample: a camera (JPEG, then PNG) and a
        // lidar, with what their folders' listings pass over beside them.
        for frame in [
            "frame_1.jpg",
            "frame_2.jpg",
            "frame_9.jpg",
            "frame_10.jpg",
            "ts.txt",
        ] {
            server.put(
                &format!("drive/camera/{frame}"),
                &file(&format!("camera/{frame}")),
            );
        }
        server.put("drive/camera/.frame_0.jpg", &file("corrupt.jpg"));
        server.put("drive/camera/notes.txt", b"not a frame");
        server.put("drive/camera/old/frame_0.jpg", &file("corrupt.jpg"));
        for frame in (0..7).map(|k| format!("f{k}.png")).chain(["ts.txt".into()]) {
            server.put(
                &format!("drive/png/{frame}"),
                &file(&format!("png/{frame}")),
            );
        }
        for (k, name) in SCANS.iter().enumerate() {
            server.put(&format!("drive/lidar/{name}"), &npy_bytes(&scan(k)));
        }
        server.put("drive/lidar/ts.npy", &npy_bytes(&lidar_times()));
        // A camera whose second frame is corrupt, a lidar whose second
        // scan is not an array.
        server.put("bad/camera/frame_1.jpg", &file("camera/frame_1.jpg"));
        server.put("bad/camera/frame_2.jpg", &file("corrupt.jpg"));
        server.put("bad/camera/ts.txt", b"0.0\n0.1\n");
        server.put("bad/lidar/0.npy", &npy_bytes(&scan(0)));
        server.put("bad/lidar/1.npy", &file("not_npy.npy"));
        server.put("bad/lidar/ts.txt", b"0.0\n0.1\n");
        // URL strings in the bucket read through a store on this server.
        server.store().share();
    });
    server
}

/// The lidar's scans in `drive/lidar/`, in natural order (not the
/// lexical order, `scan_10` before `scan_2`); one empty.
const SCANS: [&str; 5] = [
    "scan_1.npy",
    "scan_2.npy",
    "scan_9.npy",
    "scan_10.npy",
    "scan_11.NPY",
];

/// Scan `k` of the lidar: `[n_k, 4]`, every value telling its scan, point
/// and column.
fn scan(k: usize) -> Array2<f32> {
    let n = [3, 7, 1, 0, 12][k];
    Array::from_shape_fn((n, 4), |(p, c)| (k * 1000 + p * 10 + c) as f32 + 0.25)
}

fn lidar_times() -> Array1<f64> {
    Array1::from_iter((0..SCANS.len()).map(|k| k as f64 * 0.1))
}

/// `array` as a `.npy` file.
fn npy_bytes<D: adl::ndarray::Dimension>(
    array: &Array<impl ndarray_npy::WritableElement, D>,
) -> Vec<u8> {
    let mut bytes = Vec::new();
    array.write_npy(&mut bytes).unwrap();
    bytes
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

    // Under a loader, each row is read ahead by the read stage (a ranged
    // GET each), then made an array by the worker: no second read.
    let store = server().store();
    let remote: Npy<f32, Ix2> =
        Npy::open("radar", store.at("drive/radar/data.npy"), radar_times()).unwrap();
    let loader = Loader::new(
        SensorDataset::new(remote),
        adl::pipeline! { collate: default },
    )
    .batch_size(5)
    .workers(2)
    // The requests of one epoch: none for the next one's reads ahead.
    .read_next_epoch(false)
    .build()
    .unwrap();
    let batch: Array<f32, adl::ndarray::Ix3> =
        loader.epoch(0).next().unwrap().unwrap().into_inner();
    for i in 0..5 {
        assert_eq!(batch.index_axis(Axis(0), i), expected(i));
    }
    let reads = loader.statistics().reads;
    assert_eq!((reads.reads, reads.failed, reads.bytes), (5, 0, 5 * 24));
    assert_eq!(store.stats().requests, 1 + 5);

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

/// A server that checks credentials (SeaweedFS with one identity): the
/// right ones read; wrong ones, or none, are refused by the server
/// itself, named with the object and the credentials to check, and not
/// retried.
#[test]
fn wrong_or_missing_credentials_are_named_with_the_object_and_what_to_check() {
    let server = S3Server::start_checking_credentials();
    server.put("drive/imu.csv", IMU.as_bytes());
    let right = Store::open_with(&format!("s3://{BUCKET}"), &server.options(quick(3))).unwrap();
    let imu = Table::open("imu", right.at("drive/imu.csv"), "t").unwrap();
    assert_eq!(imu.len(), 3);
    let wrong = StoreOptions::default()
        .with_retry(quick(3))
        .with_config("aws_endpoint", server.endpoint())
        .with_config("aws_allow_http", "true")
        .with_config("aws_access_key_id", KEY_ID)
        .with_config("aws_secret_access_key", "not-the-secret")
        .with_config("aws_region", "us-east-1");
    let missing = StoreOptions::default()
        .with_retry(quick(3))
        .with_config("aws_endpoint", server.endpoint())
        .with_config("aws_allow_http", "true")
        .with_config("aws_skip_signature", "true")
        .with_config("aws_region", "us-east-1");
    for options in [wrong, missing] {
        let store = Store::open_with(&format!("s3://{BUCKET}"), &options).unwrap();
        let message = source_error(store.get("drive/imu.csv"), "drive/imu.csv");
        assert!(
            message.starts_with(&format!(
                "s3://{BUCKET}/drive/imu.csv: access denied: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
            )),
            "{message}"
        );
        assert_eq!(store.stats().retries, 0, "{:?}", store.stats());
    }
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

/// `s3://BUCKET/key`.
fn url(key: &str) -> String {
    format!("s3://{BUCKET}/{key}")
}

/// `n` timestamps of sensor `sensor`, 0.1 s apart.
fn times(sensor: &str, n: usize) -> adl::Timestamps {
    adl::Timestamps::new(sensor, (0..n).map(|k| k as f64 / 10.0).collect()).unwrap()
}

/// A local copy of `drive/lidar/`.
fn local_lidar() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("lidar");
    std::fs::create_dir(&folder).unwrap();
    for (k, name) in SCANS.iter().enumerate() {
        std::fs::write(folder.join(name), npy_bytes(&scan(k))).unwrap();
    }
    std::fs::write(folder.join("ts.npy"), npy_bytes(&lidar_times())).unwrap();
    (dir, folder)
}

#[test]
fn an_images_folder_in_s3_decodes_as_the_local_folder() {
    let store = server().store();
    let local = Images::in_folder(data("camera")).unwrap();
    let remote = Images::in_folder(store.at("drive/camera")).unwrap();
    assert_eq!(remote.name(), "camera");
    assert_eq!(remote.metadata().as_slice(), local.metadata().as_slice());
    // In natural order; the hidden file, the text file and the subfolder
    // passed over.
    let frames: Vec<String> = remote.frames().iter().map(|f| f.to_string()).collect();
    let expected = ["frame_1.jpg", "frame_2.jpg", "frame_9.jpg", "frame_10.jpg"]
        .map(|frame| url(&format!("drive/camera/{frame}")));
    assert_eq!(frames, expected);
    assert_eq!(remote.frame_size(), local.frame_size());
    // Opened with the folder listed (for its timestamps file, then for its
    // frames), ts.txt and the first frame read.
    let opened = store.stats();
    assert_eq!((opened.requests, opened.retries), (4, 0), "{opened:?}");
    for i in 0..local.len() {
        assert_eq!(remote.get(i).unwrap(), local.get(i).unwrap(), "frame {i}");
    }
    // Then a GET per frame.
    let read = store.stats();
    assert_eq!((read.requests, read.retries, read.failures), (8, 0, 0));
    let origin = SensorOrigin::of(&remote, 3);
    assert_eq!(origin.file.as_deref(), Some(expected[3].as_str()));
    assert_eq!(origin.row, None);

    // PNG frames of every kind, from a URL string, channels first and
    // downscaled.
    let shrunk = |camera: Images| camera.layout(ImageLayout::Chw).downscale(2).unwrap();
    let local_png = shrunk(Images::in_folder(data("png")).unwrap());
    let remote_png = shrunk(Images::in_folder(url("drive/png/")).unwrap());
    assert_eq!(remote_png.len(), 7);
    for i in 0..7 {
        assert_eq!(
            remote_png.get(i).unwrap(),
            local_png.get(i).unwrap(),
            "png {i}"
        );
    }

    // A list of objects, in its order: URL strings or a store's locations.
    let listed = Images::from_files(
        "camera",
        [
            url("drive/camera/frame_10.jpg"),
            url("drive/camera/frame_1.jpg"),
        ],
        times("camera", 2),
    )
    .unwrap();
    assert_eq!(listed.get(0).unwrap(), local.get(3).unwrap());
    assert_eq!(listed.get(1).unwrap(), local.get(0).unwrap());
    let listed = Images::from_files(
        "camera",
        [store.at("drive/camera/frame_9.jpg")],
        times("camera", 1),
    )
    .unwrap();
    assert_eq!(listed.get(0).unwrap(), local.get(2).unwrap());
}

#[test]
fn npy_files_in_s3_read_as_the_local_files() {
    server();
    let (_dir, folder) = local_lidar();
    let local: NpyFiles<f32, Ix2> = NpyFiles::in_folder(&folder).unwrap();
    let remote: NpyFiles<f32, Ix2> = NpyFiles::in_folder(url("drive/lidar")).unwrap();
    assert_eq!(remote.name(), "lidar");
    assert_eq!(remote.metadata().as_slice(), local.metadata().as_slice());
    let names: Vec<&str> = remote
        .files()
        .iter()
        .map(|f| f.file_name().unwrap())
        .collect();
    assert_eq!(names, SCANS);
    for k in 0..SCANS.len() {
        assert_eq!(remote.get(k).unwrap(), local.get(k).unwrap(), "scan {k}");
        assert_eq!(remote.get(k).unwrap(), scan(k), "scan {k}");
    }
    assert_eq!(
        SensorOrigin::of(&remote, 4).file.as_deref(),
        Some(url("drive/lidar/scan_11.NPY").as_str())
    );
    let listed = NpyFiles::<f32, IxDyn>::from_files(
        "lidar",
        [
            url("drive/lidar/scan_10.npy"),
            url("drive/lidar/scan_2.npy"),
        ],
        times("lidar", 2),
    )
    .unwrap();
    assert_eq!(listed.get(0).unwrap(), scan(3).into_dyn());
    assert_eq!(listed.get(1).unwrap(), scan(1).into_dyn());
    let message = source_error(
        NpyFiles::<f64, Ix2>::in_folder(url("drive/lidar")),
        "drive/lidar/scan_1.npy",
    );
    assert!(
        message.ends_with("(sensor `lidar`, sample 0): holds elements of type '<f4', not f64"),
        "{message}"
    );
}

#[test]
fn a_file_fetched_ahead_is_read_with_one_request_and_parsed_by_its_get() {
    let store = server().store();
    let local = Images::in_folder(data("camera")).unwrap();
    let camera = Images::in_folder(store.at("drive/camera")).unwrap();
    let lidar: NpyFiles<f32, Ix2> = NpyFiles::in_folder(store.at("drive/lidar")).unwrap();
    let opened = store.stats().requests;
    assert!(camera.storage().is_some() && lidar.storage().is_some());

    let size = std::fs::metadata(data("camera/frame_9.jpg")).unwrap().len();
    let read = camera.storage().unwrap().fetch(2).unwrap();
    assert_eq!(read.bytes(), size);
    assert_eq!(store.stats().requests, opened + 1);
    assert_eq!(camera.get_fetched(2, read).unwrap(), local.get(2).unwrap());
    assert_eq!(store.stats().requests, opened + 1);
    // A get without the read reads again, as does a get after the read
    // was dropped: nothing is kept in the sensor.
    assert_eq!(camera.get(2).unwrap(), local.get(2).unwrap());
    drop(camera.storage().unwrap().fetch(1).unwrap());
    assert_eq!(camera.get(1).unwrap(), local.get(1).unwrap());
    assert_eq!(store.stats().requests, opened + 4);

    let size = npy_bytes(&scan(1)).len() as u64;
    let read = lidar.storage().unwrap().fetch(1).unwrap();
    assert_eq!(read.bytes(), size);
    assert_eq!(lidar.get_fetched(1, read).unwrap(), scan(1));
    assert_eq!(store.stats().requests, opened + 5);
}

#[test]
fn a_missing_or_corrupt_object_is_named_with_the_sensor_and_the_sample() {
    let server = server();
    let camera = Images::in_folder(url("bad/camera")).unwrap();
    assert_eq!(camera.get(0).unwrap().shape(), &[24, 32, 3]);
    let corrupt = url("bad/camera/frame_2.jpg");
    let message = source_error(camera.get(1), &corrupt);
    assert!(
        message.starts_with(&format!("{corrupt} (sensor `camera`, sample 1): ")),
        "{message}"
    );
    // The same once read ahead: the object is there, its pixels are not.
    camera.storage().unwrap().fetch(1).unwrap();
    assert_eq!(source_error(camera.get(1), &corrupt), message);

    let missing = url("bad/camera/frame_3.jpg");
    let camera = Images::from_files(
        "camera",
        [url("bad/camera/frame_1.jpg"), missing.clone()],
        times("camera", 2),
    )
    .unwrap();
    let no_such = format!("{missing} (sensor `camera`, sample 1): no such object");
    for message in [
        source_error(camera.storage().unwrap().fetch(1), &missing),
        source_error(camera.get(1), &missing),
    ] {
        assert!(message.starts_with(&no_such), "{message}");
    }
    // The first frame is read when the sensor is opened.
    let message = source_error(
        Images::from_files("camera", [missing.as_str()], times("camera", 1)),
        &missing,
    );
    assert!(
        message.starts_with(&format!(
            "{missing} (sensor `camera`, sample 0): no such object"
        )),
        "{message}"
    );

    let lidar: NpyFiles<f32, Ix2> = NpyFiles::in_folder(url("bad/lidar")).unwrap();
    let scan = url("bad/lidar/1.npy");
    let message = source_error(lidar.get(1), &scan);
    assert!(
        message.starts_with(&format!(
            "{scan} (sensor `lidar`, sample 1): not a NumPy .npy file"
        )),
        "{message}"
    );

    // A folder with no frames, and one on a server that cannot list.
    let empty = url("nowhere/camera");
    let message = source_error(
        Images::open("camera", empty.as_str(), times("camera", 1)),
        &empty,
    );
    assert_eq!(
        message,
        format!("{empty} (sensor `camera`): holds no frames: no file named *.jpg, *.jpeg, *.png")
    );
    let http = format!("{}/{BUCKET}/drive/camera", server.endpoint());
    let message = source_error(
        Images::open("camera", http.as_str(), times("camera", 4)),
        &http,
    );
    assert!(
        message.starts_with(&format!(
            "{http} (sensor `camera`): a folder on a plain HTTP server cannot be listed"
        )),
        "{message}"
    );
}

#[test]
fn frames_are_read_through_server_errors_each_retry_counted() {
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
    let lidar: NpyFiles<f32, Ix2> = NpyFiles::in_folder(store.at("drive/lidar")).unwrap();
    for k in 0..SCANS.len() {
        assert_eq!(lidar.get(k).unwrap(), scan(k), "scan {k}");
    }
    // Two listings, ts.npy and the first scan, then a GET per scan, and
    // the two failures retried.
    assert_eq!(failing.answered(), 2);
    let stats = store.stats();
    assert_eq!(
        (stats.requests, stats.retries, stats.failures),
        (11, 2, 0),
        "{stats:?}"
    );
}

#[test]
fn a_camera_in_s3_is_read_ahead_by_a_loaders_read_stage() {
    server();
    let local = Images::in_folder(data("camera")).unwrap();
    let camera = Images::in_folder(url("drive/camera")).unwrap();
    let loader = Loader::new(
        SensorDataset::new(camera),
        adl::pipeline! { collate: default },
    )
    .batch_size(4)
    .workers(2)
    .build()
    .unwrap();
    let batches: Vec<Array4<u8>> = loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(batches.len(), 1);
    for i in 0..4 {
        assert_eq!(batches[0].index_axis(Axis(0), i), local.get(i).unwrap());
    }
    // Each frame's object read once by the read stage, then decoded.
    let stats = loader.statistics();
    assert_eq!((stats.reads.reads, stats.reads.failed), (4, 0));
    let on_disk: u64 = local
        .frames()
        .iter()
        .map(|f| std::fs::metadata(f.as_path().unwrap()).unwrap().len())
        .sum();
    assert_eq!(stats.reads.bytes, on_disk);
}

/// `tests/data/ros/NAME`: the robot-log test bags.
fn ros_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/ros")
        .join(name)
}

/// Robot logs in S3 read as the local files: an MCAP file indexed by
/// ranged reads (its footer, summary and message indexes, not its
/// chunks), each chunk then read once; a ROS 1 bag indexed by ranged reads
/// too, and one cut off read whole; rosbag2 folders in both storages (a
/// SQLite file compressed whole among them).
#[test]
fn bags_in_s3_read_as_the_local_files() {
    use adl::files::ros::Bag;
    let server = server();
    for name in [
        "flight.mcap",
        "flight.bag",
        "flight_mcap/metadata.yaml",
        "flight_mcap/flight_mcap.mcap",
        "flight_sqlite/metadata.yaml",
        "flight_sqlite/flight_sqlite.db3",
        "flight_zstd/metadata.yaml",
        "flight_zstd/flight_zstd.db3.zstd",
    ] {
        server.put(
            &format!("ros/{name}"),
            &std::fs::read(ros_data(name)).unwrap(),
        );
    }

    let store = server.store();
    let size = std::fs::metadata(ros_data("flight.mcap")).unwrap().len();
    let remote = Bag::open(store.at("ros/flight.mcap")).unwrap();
    let opened = store.stats();
    assert!(
        opened.bytes < size / 4,
        "opening read {} of {size} bytes",
        opened.bytes
    );
    let local = Bag::open(ros_data("flight.mcap")).unwrap();
    assert_eq!(same_bag(&remote, &local), 308);
    let read = store.stats();
    assert!(read.bytes <= opened.bytes + size, "{read:?}");
    assert_eq!(read.failures, 0);

    // A ROS 1 bag is indexed by ranges too: its bag header, its
    // connection and chunk-info records, each chunk's header and index
    // records; its chunks are read as their messages are.
    let store = server.store();
    let size = std::fs::metadata(ros_data("flight.bag")).unwrap().len();
    let remote = Bag::open(store.at("ros/flight.bag")).unwrap();
    let opened = store.stats();
    assert!(
        opened.bytes < size / 4,
        "opening read {} of {size} bytes",
        opened.bytes
    );
    let local = Bag::open(ros_data("flight.bag")).unwrap();
    assert_eq!(same_bag(&remote, &local), 308);
    let read = store.stats();
    assert!(read.bytes <= opened.bytes + size, "{read:?}");
    assert_eq!(read.failures, 0);

    for name in ["flight.bag", "flight_mcap", "flight_sqlite", "flight_zstd"] {
        let remote = Bag::open(url(&format!("ros/{name}"))).unwrap();
        let local = Bag::open(ros_data(name)).unwrap();
        assert_eq!(same_bag(&remote, &local), 308, "{name}");
    }

    // A ROS 1 bag cut off before its index records is read whole and
    // scanned, as the same bytes on disk are.
    let whole = std::fs::read(ros_data("flight.bag")).unwrap();
    let cut = &whole[..whole.len() * 3 / 5];
    server.put("ros/cut.bag", cut);
    let scratch = tempfile::tempdir().unwrap();
    std::fs::write(scratch.path().join("cut.bag"), cut).unwrap();
    let remote = Bag::open(url("ros/cut.bag")).unwrap();
    let local = Bag::open(scratch.path().join("cut.bag")).unwrap();
    assert!(same_bag(&remote, &local) > 0);
    assert_eq!(remote.damage().len(), 1, "{:?}", remote.damage());

    let err = Bag::open(url("ros/absent.mcap")).unwrap_err();
    assert!(err.to_string().contains("ros/absent.mcap"), "{err}");
}

/// The variable under which this test binary, run again as a child,
/// only opens the bag at the URL it holds.
const CHILD_OPENS: &str = "ADL_TEST_CHILD_OPENS";

/// Indexing a bag by ranged reads shows its progress on a terminal (the
/// bytes read so far): the test binary run again as a child that only
/// opens the bag, with `script` giving it a terminal; piped, nothing.
#[test]
fn a_bag_indexed_by_ranged_reads_shows_its_progress_on_a_terminal() {
    if let Ok(url) = std::env::var(CHILD_OPENS) {
        adl::files::ros::Bag::open(url.as_str()).unwrap();
        return;
    }
    let server = server();
    server.put(
        "ros/progress.mcap",
        &std::fs::read(ros_data("flight.mcap")).unwrap(),
    );
    let exe = std::env::current_exe().unwrap();
    let child = format!(
        "{} --exact a_bag_indexed_by_ranged_reads_shows_its_progress_on_a_terminal --nocapture",
        exe.display()
    );
    let run = |on_terminal: bool| {
        let mut command = if on_terminal {
            let mut script = std::process::Command::new("script");
            script.args(["-q", "-e", "-c", &child, "/dev/null"]);
            script
        } else {
            let mut direct = std::process::Command::new(&exe);
            direct.args([
                "--exact",
                "a_bag_indexed_by_ranged_reads_shows_its_progress_on_a_terminal",
                "--nocapture",
            ]);
            direct
        };
        // The child's store from the AWS variables, as a user's would be.
        let out = command
            .env(CHILD_OPENS, url("ros/progress.mcap"))
            .env("ADL_PROGRESS", "1")
            .env_remove("ADL_QUIET")
            .env("AWS_ENDPOINT_URL", server.endpoint())
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_ACCESS_KEY_ID", KEY_ID)
            .env("AWS_SECRET_ACCESS_KEY", s3::SECRET)
            .env("AWS_REGION", "us-east-1")
            .output()
            .expect("`script` (util-linux) runs the child on a terminal");
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{text}");
        text
    };
    let shown = run(true);
    assert!(
        shown.contains("indexing progress.mcap by ranged reads"),
        "{shown}"
    );
    // Cleared when done: the line erased after the bar.
    assert!(shown.contains("\x1b[2K"), "{shown}");
    let piped = run(false);
    assert!(!piped.contains("ranged reads"), "{piped}");
}

/// A lidar of `n` scans, 64 KiB each (`[4096, 4]`, scan `k` filled with
/// `k`), put in `server`'s bucket under `prefix/` as `000.npy`, ... and
/// `ts.npy`.
fn put_scans(server: &S3Server, prefix: &str, n: usize) {
    for k in 0..n {
        let scan = Array2::<f32>::from_elem((4096, 4), k as f32);
        server.put(&format!("{prefix}/{k:03}.npy"), &npy_bytes(&scan));
    }
    let times = Array1::from_iter((0..n).map(|k| k as f64 / 10.0));
    server.put(&format!("{prefix}/ts.npy"), &npy_bytes(&times));
}

/// A batch of scans: `[batch, 4096, 4]`.
type Scans = Array<f32, adl::ndarray::Ix3>;

/// The scans' loader: batches of 4, two workers, at most 256 KiB read
/// ahead (so that most of the epoch is still to read when the server
/// goes).
fn scans_loader(
    store: &Store,
    prefix: &str,
) -> Loader<
    SensorDataset<NpyFiles<f32, Ix2>>,
    impl adl::Pipeline<Array2<f32>, Processed = Scans> + use<>,
> {
    let lidar: NpyFiles<f32, Ix2> = NpyFiles::in_folder(store.at(prefix)).unwrap();
    Loader::new(
        SensorDataset::new(lidar),
        adl::pipeline! { collate: default },
    )
    .batch_size(4)
    .workers(2)
    .batches_ahead(1)
    .read_bound(256 << 10)
    .build()
    .unwrap()
}

/// Each batch's scans by the value they are filled with.
fn scans_of(batch: &Scans) -> Vec<usize> {
    batch
        .axis_iter(Axis(0))
        .map(|scan| {
            let k = scan[[0, 0]];
            assert!(scan.iter().all(|&v| v == k), "a scan of one value");
            k as usize
        })
        .collect()
}

#[test]
fn a_server_killed_mid_epoch_and_restarted_loses_and_repeats_no_sample() {
    const N: usize = 48;
    let mut server = S3Server::start();
    server.create_bucket(BUCKET);
    put_scans(&server, "killed/lidar", N);
    // Retries for long enough to cover the restart (SeaweedFS starts in
    // a few seconds, more on a busy machine): 240 of at most 500 ms.
    let retry = RetryPolicy::new(240, Duration::from_millis(50), Duration::from_millis(500));
    let store = Store::open_with(&format!("s3://{BUCKET}"), &server.options(retry)).unwrap();
    let loader = scans_loader(&store, "killed/lidar");
    let mut epoch = loader.epoch(0);
    let mut seen: Vec<usize> = Vec::new();
    for _ in 0..2 {
        seen.extend(scans_of(&epoch.next().unwrap().unwrap()));
    }
    server.kill();
    let restarted = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        server.restart();
        server
    });
    for batch in epoch {
        seen.extend(scans_of(&batch.unwrap()));
    }
    let _server = restarted.join().unwrap();
    assert_eq!(seen, (0..N).collect::<Vec<_>>());
    let stats = store.stats();
    assert!(stats.retries > 0 && stats.failures == 0, "{stats:?}");
}

#[test]
fn a_server_that_stays_down_stops_the_epoch_naming_the_object_and_a_resume_equals_the_rest() {
    const N: usize = 32;
    let mut server = S3Server::start();
    server.create_bucket(BUCKET);
    put_scans(&server, "down/lidar", N);
    let store = Store::open_with(&format!("s3://{BUCKET}"), &server.options(quick(2))).unwrap();
    let loader = scans_loader(&store, "down/lidar");
    let mut epoch = loader.epoch(0);
    let mut seen = scans_of(&epoch.next().unwrap().unwrap());
    let state = epoch.state();
    server.kill();
    let failed = loop {
        match epoch.next() {
            Some(Ok(batch)) => seen.extend(scans_of(&batch)), // read before it went
            Some(Err(error)) => break error,
            None => panic!("the epoch ended without the server"),
        }
    };
    let message = format!("{failed:#}");
    let mut source: Option<&dyn std::error::Error> = Some(&failed);
    let mut chain = String::new();
    while let Some(error) = source {
        chain += &format!("{error}\n");
        source = error.source();
    }
    assert!(
        chain.contains(&format!("s3://{BUCKET}/down/lidar/")) && chain.contains(".npy"),
        "the error names the object: {message}\n{chain}"
    );
    assert!(chain.contains("after 2 retries"), "{chain}");
    drop(epoch);
    // The server back, the run resumed from the state before the failure:
    // the rest of the epoch, as an uninterrupted run reads it.
    server.restart();
    let resumed: Vec<usize> = loader
        .resume(&state)
        .unwrap()
        .flat_map(|batch| scans_of(&batch.unwrap()))
        .collect();
    assert_eq!(resumed, (4..N).collect::<Vec<_>>());
    let whole: Vec<usize> = loader
        .epoch(0)
        .flat_map(|batch| scans_of(&batch.unwrap()))
        .collect();
    assert_eq!([&seen[..4], &resumed[..]].concat(), whole);
}

#[test]
fn px4_logs_in_s3_read_as_the_local_files() {
    use adl::files::px4::Px4Log;
    let server = server();
    let px4 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/px4");
    for name in ["cube-orange-vtol-small.ulg", "pixhawk4-sample-small.ulg"] {
        let file = px4.join(name);
        server.put(&format!("px4/{name}"), &std::fs::read(&file).unwrap());
        let store = server.store();
        let remote = Px4Log::open_at(store.at(&format!("px4/{name}"))).unwrap();
        let local = Px4Log::open(&file).unwrap();
        assert_eq!(remote.path(), Path::new(&url(&format!("px4/{name}"))));
        let samples = same_px4_log(&remote, &local);
        assert!(samples > 100, "{name}: {samples} samples");
        // Read whole, in one request.
        assert_eq!(store.stats().requests, 1);
        assert_eq!(store.stats().bytes, std::fs::metadata(&file).unwrap().len());
    }
    // A missing log, and an object that is not one, named.
    server.put("px4/not-a-log.ulg", b"hello");
    let message = source_error(
        Px4Log::open_at(url("px4/not-a-log.ulg")),
        "px4/not-a-log.ulg",
    );
    assert!(message.contains("not a ULog file"), "{message}");
    let missing = Px4Log::open_at(url("px4/missing.ulg")).unwrap_err();
    assert!(
        format!("{missing:#}").contains("px4/missing.ulg"),
        "{missing:#}"
    );
}

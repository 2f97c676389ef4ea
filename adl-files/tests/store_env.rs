//! A store configured by the standard environment variables alone, as a
//! user's program meets it: `AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ALLOW_HTTP`, and sensors
//! opened from URL strings.
//!
//! One test in its own binary: it sets the process's environment, which
//! is sound only while no other thread reads it.

mod s3;

use std::path::Path;

use adl::Sensor;
use adl::files::{Npy, Store, Table, read_timestamps};
use adl::ndarray::Ix2;
use s3::{BUCKET, KEY_ID, S3Server, SECRET};

#[test]
fn urls_are_read_with_the_settings_of_the_environment() {
    let server = S3Server::shared();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    server.put(
        "env/radar/data.npy",
        &std::fs::read(data.join("radar.npy")).unwrap(),
    );
    server.put(
        "env/radar/ts.txt",
        &std::fs::read(data.join("radar_ts.txt")).unwrap(),
    );
    server.put("env/imu.csv", b"t,ax\n0.0,1.0\n0.5,2.0\n");

    let url = format!("s3://{BUCKET}/env/radar");
    let settings = [
        ("AWS_ENDPOINT_URL", server.endpoint()),
        ("AWS_ACCESS_KEY_ID", KEY_ID.to_string()),
        ("AWS_SECRET_ACCESS_KEY", SECRET.to_string()),
        ("AWS_REGION", "us-east-1".to_string()),
        ("AWS_ALLOW_HTTP", "true".to_string()),
    ];
    for (name, value) in settings {
        // SAFETY: this binary's only test, and the server's process is
        // started: no other thread of this process reads the environment
        // now (the shared store runtime starts with the first read below).
        unsafe { std::env::set_var(name, value) };
    }

    let radar: Npy<f32, Ix2> = Npy::in_folder(url.as_str()).unwrap();
    assert_eq!(radar.name(), "radar");
    assert_eq!(radar.len(), 5);
    assert_eq!(radar.get(4).unwrap()[[1, 2]], 29.0 / 4.0);
    let times = read_timestamps("radar", format!("{url}/ts.txt")).unwrap();
    assert_eq!(times.as_slice(), radar.metadata().as_slice());
    let imu = Table::open("imu", format!("s3://{BUCKET}/env/imu.csv"), "t").unwrap();
    assert_eq!(imu.get(1).unwrap().to_vec(), [2.0]);

    let shared = Store::shared(&url).unwrap();
    let stats = shared.stats();
    // A LIST for the folder, the timestamps read twice, the header, a row,
    // the table.
    assert_eq!(
        (stats.requests, stats.retries, stats.failures),
        (6, 0, 0),
        "{stats:?}"
    );
}

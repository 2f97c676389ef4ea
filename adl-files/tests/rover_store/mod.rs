//! `RoverSensor` over object storage, against a real S3 API server
//! (SeaweedFS's, started by `s3::S3Server`): the roverd fixture trace put in a
//! bucket reads as the local folders do, every channel format (ranged
//! requests for `raw`, `lzmaf` frames and the AVI's chunks; whole objects
//! for `lzma`, `ts`, offsets and blobs).

use std::path::{Path, PathBuf};

use super::s3::{BUCKET, S3Server};
use adl::Sensor;
use adl::files::rover::{RoverOptions, RoverSensor};

fn trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/rover/trace")
}

#[test]
fn a_rover_trace_in_s3_reads_as_the_local_one() {
    let server = S3Server::shared();
    server.put_tree("rover", &trace(), |_| false);
    server.store().share();

    for (sensor, options) in [
        ("radar", RoverOptions::default().window(1, 1)),
        ("lidar", RoverOptions::default()),
        ("imu", RoverOptions::default()),
        ("camera", RoverOptions::default().downscale(2)),
        ("blobs", RoverOptions::default()),
    ] {
        let url = format!("s3://{BUCKET}/rover/{sensor}/");
        let remote = RoverSensor::open(url.as_str(), &options).unwrap();
        let local = RoverSensor::open(trace().join(sensor), &options).unwrap();
        assert_eq!(remote.name(), sensor);
        assert_eq!(remote.metadata(), local.metadata());
        for i in 1..local.len() - 1 {
            assert_eq!(
                remote.get(i).unwrap(),
                local.get(i).unwrap(),
                "{sensor} {i}"
            );
        }
    }

    // A missing object is named by its URL.
    let err = super::common::source_error(
        RoverSensor::open(
            format!("s3://{BUCKET}/rover/nowhere/").as_str(),
            &RoverOptions::default(),
        ),
        "meta.json",
    );
    assert!(
        err.starts_with(&format!(
            "s3://{BUCKET}/rover/nowhere/meta.json (sensor `nowhere`)"
        )),
        "{err}"
    );
}

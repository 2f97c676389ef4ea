//! `LeRobot` over object storage, against a real S3 API server (SeaweedFS's,
//! started by `s3::S3Server`): the LeRobot datasets of tests/data/lerobot
//! put in a bucket read as the local folders do, item by item, frame by
//! frame (the tables read whole, each video's index with ranged reads,
//! then its pictures a group at a time), and a missing video is named by
//! its URL; and MP4 videos of each codec read from the bucket as the
//! local files.

use std::path::{Path, PathBuf};

use super::s3::{BUCKET, S3Server};
use adl::Dataset;
use adl::files::lerobot::{Field, LeRobot};

fn root(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/lerobot")
        .join(name)
}

/// `field` as an array to compare: frames decoded.
fn decoded(field: &Field) -> String {
    match field {
        Field::Frames(frames) => format!("{:?}", frames.decode().unwrap()),
        other => format!("{other:?}"),
    }
}

#[test]
fn a_lerobot_dataset_in_s3_reads_as_the_local_one() {
    let server = S3Server::shared();
    for name in ["v30_h264", "v21"] {
        server.put_tree(&format!("lerobot/{name}"), &root(name), |_| false);
    }
    // A dataset whose wrist camera's video is missing.
    server.put_tree("lerobot/broken", &root("v30_av1"), |key| {
        key.contains("observation.images.wrist")
    });
    server.store().share();

    for name in ["v21", "v30_h264"] {
        let url = format!("s3://{BUCKET}/lerobot/{name}");
        let remote = LeRobot::options()
            .delta_timestamps([("observation.images.front", vec![-0.1, 0.0])])
            .open(url.as_str())
            .unwrap();
        let local = LeRobot::options()
            .delta_timestamps([("observation.images.front", vec![-0.1, 0.0])])
            .open(root(name))
            .unwrap();
        assert_eq!(remote.len(), local.len());
        assert_eq!(remote.keys(), local.keys());
        for i in 0..local.len() {
            let (a, b) = (remote.get(i).unwrap(), local.get(i).unwrap());
            for ((key, a), b) in a.names().iter().zip(a.values()).zip(b.values()) {
                assert_eq!(decoded(a), decoded(b), "{name} item {i} `{key}`");
            }
        }
    }

    let err = format!(
        "{:#}",
        LeRobot::open(format!("s3://{BUCKET}/lerobot/broken").as_str()).unwrap_err()
    );
    assert!(
        err.starts_with(&format!(
            "trace `episode 0 of s3://{BUCKET}/lerobot/broken`: "
        )) && err.contains(&format!(
            "s3://{BUCKET}/lerobot/broken/videos/observation.images.wrist/chunk-000/file-000.mp4 \
                 (sensor `observation.images.wrist`)"
        )),
        "{err}"
    );
}

/// The MP4 videos of tests/data/video, each codec adl decodes, read from
/// the S3 server as from the local files: their times, and every frame.
#[test]
fn videos_in_s3_decode_as_the_local_files() {
    use adl::Sensor;
    use adl::files::Video;

    let server = S3Server::shared();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/video");
    server.put_tree("video", &folder, |key| !key.ends_with(".mp4"));
    let store = server.store();
    for codec in ["h264", "hevc", "av1", "vp9"] {
        let local = Video::open(folder.join(format!("{codec}.mp4"))).unwrap();
        let remote = Video::open(store.at(&format!("video/{codec}.mp4"))).unwrap();
        assert_eq!(remote.metadata(), local.metadata(), "{codec}");
        let order: Vec<usize> = (0..local.len()).rev().collect();
        assert_eq!(
            remote.read(&order).unwrap(),
            local.read(&order).unwrap(),
            "{codec}"
        );
    }
    assert_eq!(store.stats().failures, 0);
}

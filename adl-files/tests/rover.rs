//! `RoverSensor` over the roverd trace written by roverd's own writer
//! (`tests/data/rover/make_fixture.py`), compared with what roverd's own
//! readers give (`expected.npz`, written by the same script); every kind
//! of damaged channel refused with an error that names the file, the
//! sensor, the sample and the frame; no panic on damaged bytes; the
//! sensors under the loader.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use adl::files::rover::{ChannelArray, RoverOptions, RoverSample, RoverSensor};
use adl::graph::loader::Loader;
use adl::ndarray::{ArrayD, Axis, Slice};
use adl::{Error, Sensor, SensorDataset};
use common::source_error;
use ndarray_npy::{NpzReader, ReadableElement};
use num_complex::Complex32;

fn trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/rover/trace")
}

/// The array `key` of `expected.npz` (roverd's reads).
fn expected<T: ReadableElement>(key: &str) -> ArrayD<T> {
    let path = trace().join("../expected.npz");
    let mut npz = NpzReader::new(fs::File::open(path).unwrap()).unwrap();
    npz.by_name(&format!("{key}.npy")).unwrap()
}

fn open(sensor: &str, options: &RoverOptions) -> RoverSensor {
    RoverSensor::open(trace().join(sensor), options).unwrap()
}

/// Frames `first..first + count` of `all` (a channel's frames).
fn frames<T: Clone>(all: &ArrayD<T>, first: usize, count: usize) -> ArrayD<T> {
    all.slice_axis(Axis(0), Slice::from(first..first + count))
        .to_owned()
}

/// The array of `channel` in `sample`, of the type its variant holds.
macro_rules! channel {
    ($sample:expr, $name:expr, $variant:ident) => {
        match $sample.get($name) {
            Some(ChannelArray::$variant(array)) => array.clone(),
            other => panic!(
                "channel {} is not {}: {:?}",
                $name,
                stringify!($variant),
                other.map(|a| a.element())
            ),
        }
    };
}

/// The largest and the mean absolute difference of two `uint8` arrays.
fn difference(a: &ArrayD<u8>, b: &ArrayD<u8>) -> (u8, f64) {
    assert_eq!(a.shape(), b.shape());
    let diffs: Vec<u8> = a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).collect();
    let max = diffs.iter().copied().max().unwrap_or(0);
    (
        max,
        diffs.iter().map(|&d| f64::from(d)).sum::<f64>() / diffs.len() as f64,
    )
}

#[test]
fn every_array_channel_is_what_roverds_readers_give() {
    let options = RoverOptions::default();
    for name in ["radar", "lidar", "imu", "blobs"] {
        let sensor = open(name, &options);
        assert_eq!(sensor.name(), name);
        assert_eq!(
            sensor.metadata().as_slice(),
            expected::<f64>(&format!("{name}@timestamps"))
                .as_slice()
                .unwrap()
        );
        let ts = expected::<f64>(&format!("{name}/ts"));
        for i in 0..sensor.len() {
            let sample: RoverSample = sensor.get(i).unwrap();
            assert_eq!(channel!(sample, "ts", F64), frames(&ts, i, 1));
            match name {
                "radar" => {
                    let iq = expected::<i16>("radar/iq");
                    assert_eq!(channel!(sample, "iq", I16), frames(&iq, i, 1));
                    assert_eq!(channel!(sample, "iq", I16).shape(), &[1, 4, 2, 3, 8]);
                    let valid = expected::<u8>("radar/valid");
                    assert_eq!(channel!(sample, "valid", U8), frames(&valid, i, 1));
                    let count = expected::<i32>("radar/count");
                    assert_eq!(channel!(sample, "count", I32), frames(&count, i, 1));
                }
                "lidar" => {
                    let rng = expected::<u16>("lidar/rng");
                    assert_eq!(channel!(sample, "rng", U16), frames(&rng, i, 1));
                    let rfl = expected::<u8>("lidar/rfl");
                    assert_eq!(channel!(sample, "rfl", U8), frames(&rfl, i, 1));
                }
                "imu" => {
                    let acc = expected::<f32>("imu/acc");
                    assert_eq!(channel!(sample, "acc", F32), frames(&acc, i, 1));
                    let rot = expected::<f64>("imu/rot");
                    assert_eq!(channel!(sample, "rot", F64), frames(&rot, i, 1));
                    let phase = expected::<Complex32>("imu/phase");
                    assert_eq!(channel!(sample, "phase", C64), frames(&phase, i, 1));
                }
                _ => {
                    let arrays = expected::<f32>("blobs/arrays");
                    assert_eq!(channel!(sample, "arrays", F32), frames(&arrays, i, 1));
                }
            }
        }
        // A sample's channels in meta.json's order, `ts` first.
        let sample = sensor.get(0).unwrap();
        let names: Vec<&str> = sample.iter().map(|(n, _)| n).collect();
        let declared: Vec<&str> = sensor.channels().iter().map(|c| c.name()).collect();
        assert_eq!(names, declared);
        assert_eq!(names[0], "ts");
    }
}

/// The largest difference allowed between a frame adl decodes and the
/// same JPEG decoded by libjpeg-turbo (OpenCV's `imdecode`): none with
/// adl's feature `libjpeg-turbo` (the same library, its defaults); with
/// zune-jpeg, its IDCT and chroma upsampling's few values.
fn from_libjpeg() -> i32 {
    if adl::files::libjpeg_turbo_decodes() {
        0
    } else {
        8
    }
}

/// The largest difference allowed from roverd's video frames: OpenCV's
/// `VideoCapture` decodes MJPEG with FFmpeg, whose YUV to RGB conversion
/// is not libjpeg's (11 values at most between the two on this video).
fn from_ffmpeg() -> i32 {
    from_libjpeg() + 12
}

#[test]
fn video_frames_are_the_files_frames_as_libjpeg_decodes_them() {
    let camera = open("camera", &RoverOptions::default().channels(["video.avi"]));
    assert_eq!(camera.len(), 7);
    let libjpeg = expected::<u8>("camera/video.avi@libjpeg");
    let stream = expected::<u8>("camera/video.avi@stream");
    let indexed = expected::<u8>("camera/video.avi");
    for i in 0..camera.len() {
        let frame = channel!(camera.get(i).unwrap(), "video.avi", U8);
        assert_eq!(frame.shape(), &[1, 48, 64, 3]);
        let (max, mean) = difference(&frame, &frames(&libjpeg, i, 1));
        assert!(
            i32::from(max) <= from_libjpeg(),
            "frame {i}: {max} from libjpeg's (mean {mean})"
        );
        let (max, mean) = difference(&frame, &frames(&stream, i, 1));
        assert!(
            i32::from(max) <= from_ffmpeg() && mean < 4.0,
            "frame {i}: {max} from roverd's stream (mean {mean})"
        );
        // roverd's indexed read gives the file's frame i - 1 for i > 0
        // (it seeks OpenCV to `start - 1`): adl's frame i is its i + 1.
        assert_eq!(
            frames(&indexed, i, 1),
            frames(&stream, i.saturating_sub(1), 1)
        );
    }
}

#[test]
fn jpeg_blobs_are_what_roverds_opencv_reads() {
    let blobs = open("blobs", &RoverOptions::default().channels(["frames"]));
    let roverd = expected::<u8>("blobs/frames");
    for i in 0..blobs.len() {
        let frame = channel!(blobs.get(i).unwrap(), "frames", U8);
        let (max, mean) = difference(&frame, &frames(&roverd, i, 1));
        assert!(
            i32::from(max) <= from_libjpeg(),
            "frame {i}: {max} (mean {mean})"
        );
    }
}

#[test]
fn images_are_downscaled_to_libjpegs_sizes() {
    for (factor, video, blob) in [
        (2, [24, 32, 3], [20, 28, 3]),
        (4, [12, 16, 3], [10, 14, 3]),
        (8, [6, 8, 3], [5, 7, 3]),
    ] {
        let options = RoverOptions::default().downscale(factor);
        let camera = open("camera", &options);
        let small = channel!(camera.get(3).unwrap(), "video.avi", U8);
        assert_eq!(&small.shape()[1..], &video);
        assert_eq!(camera.channel("video.avi").unwrap().frame_shape(), &video);
        // Each pixel near the mean of its box in the whole frame.
        let whole = channel!(
            open("camera", &RoverOptions::default()).get(3).unwrap(),
            "video.avi",
            U8
        );
        let (h, w) = (video[0], video[1]);
        let mut worst = 0f64;
        for y in 0..h {
            for x in 0..w {
                for c in 0..3 {
                    let block = whole.slice(adl::ndarray::s![
                        0,
                        y * factor..((y + 1) * factor).min(48),
                        x * factor..((x + 1) * factor).min(64),
                        c
                    ]);
                    let mean =
                        block.iter().map(|&v| f64::from(v)).sum::<f64>() / block.len() as f64;
                    worst = worst.max((mean - f64::from(small[[0, y, x, c]])).abs());
                }
            }
        }
        assert!(
            worst < 24.0,
            "downscale {factor}: {worst} from a box's mean"
        );
        let blobs = open("blobs", &options.clone().channels(["frames"]));
        assert_eq!(
            &channel!(blobs.get(0).unwrap(), "frames", U8).shape()[1..],
            &blob
        );
    }
    let err = RoverSensor::open(
        trace().join("camera"),
        &RoverOptions::default().downscale(3),
    )
    .unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { .. }), "{err}");
}

#[test]
fn a_window_holds_the_frames_around_each_sample() {
    let lidar = open(
        "lidar",
        &RoverOptions::default().channels(["rng", "ts"]).window(1, 2),
    );
    let rng = expected::<u16>("lidar/rng");
    let sample = lidar.get(1).unwrap();
    assert_eq!(channel!(sample, "rng", U16), frames(&rng, 0, 4));
    assert_eq!(channel!(sample, "ts", F64).shape(), &[4]);
    let names: Vec<&str> = sample.iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["rng", "ts"], "the channels in the order asked");
    for outside in [0, 3, 4] {
        let err = lidar.get(outside).unwrap_err().to_string();
        assert!(err.contains("runs outside the sensor's 5 samples"), "{err}");
    }
    let err = lidar.get(5).unwrap_err();
    assert!(matches!(err, Error::IndexOutOfRange { .. }), "{err}");
    let err = RoverSensor::open(
        trace().join("lidar"),
        &RoverOptions::default().window(3, usize::MAX),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("are more than its 5 samples"),
        "{err}"
    );

    let camera = open("camera", &RoverOptions::default().window(1, 0).downscale(2));
    let pair = channel!(camera.get(2).unwrap(), "video.avi", U8);
    assert_eq!(pair.shape(), &[2, 24, 32, 3]);
    let one = channel!(
        open("camera", &RoverOptions::default().downscale(2))
            .get(1)
            .unwrap(),
        "video.avi",
        U8
    );
    assert_eq!(frames(&pair, 0, 1), one);
}

#[test]
fn a_missing_channel_is_refused_naming_those_there_are() {
    let err = RoverSensor::open(
        trace().join("lidar"),
        &RoverOptions::default().channels(["rng", "nir"]),
    );
    let err = source_error(err, "meta.json");
    assert!(
        err.ends_with(
            "meta.json (sensor `lidar`): has no channel `nir`; its channels are [ts, rng, rfl]"
        ),
        "{err}"
    );
}

#[test]
fn a_channel_asked_for_twice_is_refused_as_such() {
    let err = RoverSensor::open(
        trace().join("lidar"),
        &RoverOptions::default().channels(["rng", "rng"]),
    );
    let err = source_error(err, "meta.json");
    assert!(
        err.ends_with("meta.json (sensor `lidar`): channel `rng` is asked for twice"),
        "{err}"
    );
}

#[test]
fn the_loader_reads_rover_sensors_on_its_workers() {
    let rng = expected::<u16>("lidar/rng");
    let run = |workers: usize| {
        let lidar =
            open("lidar", &RoverOptions::default().channels(["rng"])).try_map(
                |sample| match sample.into_channels().pop() {
                    Some((_, ChannelArray::U16(rng))) => Ok(rng.index_axis_move(Axis(0), 0)),
                    _ => Err(Error::internal("test", "rng is uint16")),
                },
            );
        let loader = Loader::new(
            SensorDataset::new(lidar),
            adl::pipeline! { collate: default },
        )
        .batch_size(2)
        .workers(workers)
        .build()
        .unwrap();
        loader
            .epoch(0)
            .map(|b| b.unwrap().into_inner())
            .collect::<Vec<ArrayD<u16>>>()
    };
    let batches = run(2);
    assert_eq!(batches, run(0));
    assert_eq!(batches.len(), 3);
    assert_eq!(batches[0], frames(&rng, 0, 2));
    assert_eq!(batches[2], frames(&rng, 4, 1));
}

/// A copy of the fixture trace's sensor `sensor` in a temporary folder,
/// to be damaged.
fn copy(sensor: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join(sensor);
    copy_dir(&trace().join(sensor), &to);
    (dir, to)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The file's bytes, changed by `change`.
fn damage(path: &Path, change: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = fs::read(path).unwrap();
    change(&mut bytes);
    fs::write(path, bytes).unwrap();
}

fn refused(folder: &Path, options: &RoverOptions, file: &str) -> String {
    source_error(RoverSensor::open(folder, options), file)
}

#[test]
fn a_bad_meta_json_is_refused_naming_it() {
    let all = RoverOptions::default();
    let (_dir, radar) = copy("radar");
    fs::remove_file(radar.join("meta.json")).unwrap();
    let err = refused(&radar, &all, "meta.json");
    assert!(
        err.contains("(sensor `radar`): cannot read (a roverd sensor folder has a meta.json): "),
        "{err}"
    );

    fs::write(radar.join("meta.json"), r#"{"iq": {"format": "raw","#).unwrap();
    let err = refused(&radar, &all, "meta.json");
    assert!(err.contains("not a roverd meta.json"), "{err}");

    fs::write(
        radar.join("meta.json"),
        r#"{"ts": {"format": "raw", "type": "f8", "shape": []},
            "iq": {"format": "zstd", "type": "i2", "shape": [4, 2, 3, 8]}}"#,
    )
    .unwrap();
    let err = refused(&radar, &all, "meta.json");
    assert!(err.contains("channel `iq`: unknown format `zstd`"), "{err}");

    fs::write(
        radar.join("meta.json"),
        r#"{"ts": {"format": "lzma", "type": "f8", "shape": []}}"#,
    )
    .unwrap();
    let err = refused(&radar, &all, "meta.json");
    assert!(err.contains("channel `ts` is declared lzma"), "{err}");
}

#[test]
fn a_truncated_channel_or_timestamps_file_is_refused_naming_the_counts() {
    let all = RoverOptions::default();
    let (_dir, radar) = copy("radar");
    damage(&radar.join("iq"), |b| b.truncate(b.len() - 100));
    let err = refused(&radar, &all, "iq");
    assert!(
        err.ends_with("iq (sensor `radar`): holds 5 frames and 284 bytes of another (a frame is 384 bytes) for 6 timestamps: truncated"),
        "{err}"
    );

    let (_dir, lidar) = copy("lidar");
    damage(&lidar.join("ts"), |b| b.truncate(b.len() - 3));
    let err = refused(&lidar, &all, "ts");
    assert!(
        err.contains("not a whole number of float64 timestamps"),
        "{err}"
    );

    let (_dir, imu) = copy("imu");
    damage(&imu.join("ts"), |b| {
        let first: [u8; 8] = b[0..8].try_into().unwrap();
        b[8..16].copy_from_slice(&first);
        b[0..8].copy_from_slice(&(f64::from_le_bytes(first) + 1.0).to_le_bytes());
    });
    let err = refused(&imu, &all, "ts");
    assert!(err.contains("sensor `imu`"), "{err}");
}

#[test]
fn offsets_that_disagree_with_the_data_are_refused_naming_the_index() {
    let all = RoverOptions::default();
    let (_dir, lidar) = copy("lidar");
    damage(&lidar.join("rng"), |b| b.truncate(b.len() - 10));
    let err = refused(&lidar, &all, "rng_i");
    assert!(
        err.contains("(sensor `lidar`): the frames end at byte 1360 of")
            && err.contains("which holds 1350 bytes"),
        "{err}"
    );

    let (_dir, lidar) = copy("lidar");
    damage(&lidar.join("rfl_i"), |b| {
        b[16..24].copy_from_slice(&5u64.to_le_bytes())
    });
    let err = refused(&lidar, &all, "rfl_i");
    assert!(err.contains("frame 1 ends at byte"), "{err}");

    let (_dir, lidar) = copy("lidar");
    damage(&lidar.join("rfl_i"), |b| b.truncate(b.len() - 3));
    let err = refused(&lidar, &all, "rfl_i");
    assert!(
        err.contains("not a whole number of 8-byte offsets"),
        "{err}"
    );

    let (_dir, lidar) = copy("lidar");
    damage(&lidar.join("rfl_i"), |b| b.truncate(b.len() - 8));
    let err = refused(&lidar, &all, "rfl_i");
    assert!(
        err.contains("holds 4 frames for 5 timestamps: truncated"),
        "{err}"
    );
}

#[test]
fn a_corrupt_lzma_frame_is_refused_naming_the_frame_and_its_bytes() {
    let (_dir, lidar) = copy("lidar");
    let offsets: Vec<u64> = fs::read(lidar.join("rng_i"))
        .unwrap()
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let (start, end) = (offsets[2], offsets[3]);
    damage(&lidar.join("rng"), |b| {
        b[(start + end) as usize / 2] ^= 0x5A;
    });
    let sensor = open_at(&lidar, &RoverOptions::default().channels(["rng"]));
    for fine in [0, 1, 3, 4] {
        sensor.get(fine).unwrap();
    }
    let err = source_error(sensor.get(2), "rng");
    assert!(
        err.contains(&format!(
            "rng (sensor `lidar`, sample 2): frame 2 (bytes {start}..{end}): "
        )),
        "{err}"
    );

    // The whole-channel lzma, damaged: refused when it is opened.
    let (_dir, imu) = copy("imu");
    damage(&imu.join("acc"), |b| {
        let middle = b.len() / 2;
        b[middle] ^= 0x5A;
    });
    let err = refused(&imu, &RoverOptions::default(), "acc");
    assert!(
        err.contains("(sensor `imu`): cannot decompress the channel: "),
        "{err}"
    );
    let (_dir, imu) = copy("imu");
    damage(&imu.join("rot"), |b| b.truncate(b.len() - 30));
    let err = refused(&imu, &RoverOptions::default(), "rot");
    assert!(err.contains("cannot decompress the channel"), "{err}");
}

fn open_at(folder: &Path, options: &RoverOptions) -> RoverSensor {
    RoverSensor::open(folder, options).unwrap()
}

#[test]
fn a_bad_avi_is_refused_naming_the_file_and_where() {
    let all = RoverOptions::default();
    let (_dir, camera) = copy("camera");
    let avi = camera.join("video.avi");
    damage(&avi, |b| b[0..4].copy_from_slice(b"RIFX"));
    let err = refused(&camera, &all, "video.avi");
    assert!(
        err.contains("not an AVI file (it starts with bytes 52 49 46 58"),
        "{err}"
    );

    // Cut inside its index.
    let (_dir, camera) = copy("camera");
    let avi = camera.join("video.avi");
    damage(&avi, |b| b.truncate(b.len() - 40));
    let err = refused(&camera, &all, "video.avi");
    assert!(
        err.contains("the chunk `idx1` at byte") && err.contains("truncated"),
        "{err}"
    );

    // Without its index, the frames are found in the `movi` list.
    let (_dir, camera) = copy("camera");
    let avi = camera.join("video.avi");
    damage(&avi, |b| {
        let at = b.windows(4).position(|w| w == b"idx1").unwrap();
        b.truncate(at);
    });
    let walked = open_at(&camera, &all);
    let indexed = open("camera", &all);
    for i in 0..7 {
        assert_eq!(walked.get(i).unwrap(), indexed.get(i).unwrap());
    }

    // A frame's JPEG damaged: that frame's read names it and its bytes.
    let (_dir, camera) = copy("camera");
    let avi = camera.join("video.avi");
    let mut at = 0;
    damage(&avi, |b| {
        let movi = b.windows(4).position(|w| w == b"movi").unwrap();
        let chunks: Vec<usize> = b
            .windows(4)
            .enumerate()
            .filter(|&(i, w)| i > movi && w == b"00dc")
            .map(|(i, _)| i)
            .collect();
        at = chunks[4] + 8;
        // Its scan's end: cut short, the rest zeros.
        let len = u32::from_le_bytes(b[chunks[4] + 4..chunks[4] + 8].try_into().unwrap()) as usize;
        for byte in &mut b[at + len / 2..at + len] {
            *byte = 0;
        }
    });
    let video = open_at(&camera, &all);
    video.get(3).unwrap();
    let err = source_error(video.get(4), "video.avi");
    assert!(
        err.contains(&format!(
            "video.avi (sensor `camera`, sample 4): frame 4 (bytes {at}.."
        )),
        "{err}"
    );

    // A frame the file says is larger than the file declares: refused.
    let (_dir, camera) = copy("camera");
    fs::write(
        camera.join("meta.json"),
        r#"{"ts": {"format": "raw", "type": "f8", "shape": []},
            "video.avi": {"format": "mjpg", "type": "u1", "shape": [480, 640, 3]}}"#,
    )
    .unwrap();
    let err = refused(&camera, &all, "video.avi");
    assert!(
        err.contains("frame 0: its first frame is 64 x 48 pixels (width x height), RGB [48, 64, 3], but meta.json declares the shape [480, 640, 3]"),
        "{err}"
    );
}

#[test]
fn a_missing_or_bad_blob_is_refused_naming_its_file_and_sample() {
    let (_dir, blobs) = copy("blobs");
    fs::remove_file(blobs.join("frames/000002.jpg")).unwrap();
    damage(&blobs.join("arrays/000001.npz"), |b| {
        b.truncate(b.len() / 2)
    });
    let sensor = open_at(&blobs, &RoverOptions::default());
    sensor.get(0).unwrap();
    let err = source_error(sensor.get(2), "000002.jpg");
    assert!(
        err.contains("(sensor `blobs`, sample 2): cannot read:"),
        "{err}"
    );
    let err = source_error(sensor.get(1), "000001.npz");
    assert!(
        err.contains("(sensor `blobs`, sample 1): not a NumPy .npz file"),
        "{err}"
    );

    // An array of another type than the channel's.
    fs::write(
        blobs.join("meta.json"),
        r#"{"ts": {"format": "raw", "type": "f8", "shape": []},
            "arrays": {"format": "npz", "type": "f8", "shape": [5, 2]}}"#,
    )
    .unwrap();
    let sensor = open_at(&blobs, &RoverOptions::default());
    let err = source_error(sensor.get(0), "000000.npz");
    assert!(
        err.contains("array `data`: holds elements of type '<f4'; the channel's type is float64"),
        "{err}"
    );
}

/// A tiny deterministic generator (xorshift), for the damage below.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn damaged_bytes_anywhere_give_errors_never_a_panic() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for sensor in ["camera", "lidar", "imu"] {
        for round in 0..60 {
            let (_dir, folder) = copy(sensor);
            let files: Vec<PathBuf> = fs::read_dir(&folder)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file() && !p.ends_with("meta.json"))
                .collect();
            let file = &files[xorshift(&mut state) as usize % files.len()];
            damage(file, |b| {
                if b.is_empty() {
                    return;
                }
                if round % 3 == 0 {
                    let keep = xorshift(&mut state) as usize % b.len();
                    b.truncate(keep);
                } else {
                    for _ in 0..1 + round % 8 {
                        let at = xorshift(&mut state) as usize % b.len();
                        b[at] = xorshift(&mut state) as u8;
                    }
                }
            });
            let Ok(opened) = RoverSensor::open(&folder, &RoverOptions::default().window(0, 0))
            else {
                continue;
            };
            for i in 0..opened.len() {
                // An error or a sample, as the damage has it.
                let _ = opened.get(i);
            }
        }
    }
}

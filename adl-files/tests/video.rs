//! `Video` over the MP4 files of tests/data/video (written by
//! make_videos.py with PyAV), against PyAV's own decoding of them
//! (expected.npz): every frame's time, and its pixels. PyAV bundles a
//! newer FFmpeg than the system's that adl links; their pixels were found
//! equal, and are held within 1.

use std::path::{Path, PathBuf};

use adl::files::Video;
use adl::ndarray::{Array1, Array4, ArrayView3, Axis};
use adl::transform::ImageLayout;
use adl::{Sensor, Timestamps};
use ndarray_npy::NpzReader;

/// The videos with PyAV's readings in expected.npz.
const VIDEOS: [&str; 5] = ["h264", "hevc", "av1", "vp9", "h264_bt709_full"];

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/video")
        .join(name)
}

fn open(name: &str) -> Video {
    Video::open(data(&format!("{name}.mp4"))).unwrap()
}

/// PyAV's reading of video `name`: each frame's time and pixels.
fn expected(name: &str) -> (Array1<f64>, Array4<u8>) {
    let file = std::fs::File::open(data("expected.npz")).unwrap();
    let mut npz = NpzReader::new(file).unwrap();
    let times = npz.by_name(&format!("{name}.pts_seconds.npy")).unwrap();
    let rgb = npz.by_name(&format!("{name}.rgb.npy")).unwrap();
    (times, rgb)
}

fn max_difference(a: ArrayView3<u8>, b: ArrayView3<u8>) -> u8 {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

/// A fixed shuffle of `0..n` with every index twice.
fn shuffled_twice(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..2 * n).map(|i| (i * 7 + 3) % n).collect();
    order.rotate_left(n / 3);
    order
}

#[test]
fn every_frame_is_at_pyavs_time_with_pyavs_pixels() {
    for name in VIDEOS {
        let video = open(name);
        let (times, rgb) = expected(name);
        assert_eq!(
            video.metadata().as_slice(),
            times.as_slice().unwrap(),
            "{name}"
        );
        assert_eq!(video.sample_shape(), [48, 64, 3]);
        for i in 0..video.len() {
            let frame = video.get(i).unwrap();
            let worst = max_difference(frame.view(), rgb.index_axis(Axis(0), i));
            assert!(worst <= 1, "{name} frame {i}: off by {worst}");
        }
    }
}

#[test]
fn a_read_of_many_frames_in_any_order_equals_each_frame_read_alone() {
    for name in VIDEOS {
        let video = open(name);
        let order = shuffled_twice(video.len());
        let many = video.read(&order).unwrap();
        for (k, &i) in order.iter().enumerate() {
            assert_eq!(
                many.index_axis(Axis(0), k),
                video.get(i).unwrap(),
                "{name} frame {i}"
            );
        }
    }
}

#[test]
fn threads_decode_with_decoders_of_their_own() {
    let video = open("h264");
    let alone: Vec<_> = (0..video.len()).map(|i| video.get(i).unwrap()).collect();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (video, alone) = (&video, &alone);
            scope.spawn(move || {
                for round in 0..3 {
                    for k in 0..video.len() {
                        let i = (k * 5 + t + round) % video.len();
                        assert_eq!(video.get(i).unwrap(), alone[i]);
                    }
                }
            });
        }
    });
}

#[test]
fn channels_first_and_resized_frames() {
    let video = open("av1");
    let hwc = video.get(7).unwrap();
    let chw = video.clone().layout(ImageLayout::Chw).get(7).unwrap();
    assert_eq!(chw.shape(), &[3, 48, 64]);
    assert_eq!(chw, hwc.view().permuted_axes([2, 0, 1]));
    let half = video.clone().resize(24, 32).unwrap();
    assert_eq!(half.sample_shape(), [24, 32, 3]);
    // As PyAV scales with libswscale's area filter.
    let small = half.get(7).unwrap();
    let file = std::fs::File::open(data("expected.npz")).unwrap();
    let area: Array4<u8> = NpzReader::new(file)
        .unwrap()
        .by_name("av1.area_24x32.rgb.npy")
        .unwrap();
    let worst = max_difference(small.view(), area.index_axis(Axis(0), 7));
    assert!(worst <= 1, "off by {worst}");
    assert!(video.resize(0, 10).is_err());
}

#[test]
fn frames_by_time_are_checked_within_their_tolerance() {
    let video = open("h264");
    assert_eq!(video.frame_at(0.31, 0.02).unwrap(), 3);
    let times = Timestamps::new("front", vec![0.0, 0.2, 0.4]).unwrap();
    // The frames of a second episode in the file, 0.5 s in.
    let front = video.at_times("front", times, 0.5, 1e-4).unwrap();
    assert_eq!(front.file_frames(), [5, 7, 9]);
    assert_eq!(front.metadata().as_slice(), [0.0, 0.2, 0.4]);
    assert_eq!(front.get(1).unwrap(), video.get(7).unwrap());
    let late = Timestamps::new("front", vec![0.0, 0.2, 0.6]).unwrap();
    let err = video
        .at_times("front", late, 1.0, 0.02)
        .unwrap_err()
        .to_string();
    let file = data("h264.mp4").display().to_string();
    assert_eq!(
        err,
        format!(
            "{file} (sensor `front`, sample 2): no frame within 0.02 s of 1.6 s: the nearest, \
             frame 15, is at 1.5 s, 0.100000 s away (its frames span 0 s to 1.5 s)"
        )
    );
    let picked = video.frames("picked", vec![0, 3, 15]).unwrap();
    assert_eq!(picked.metadata().as_slice(), [0.0, 0.3, 1.5]);
    assert_eq!(picked.get(2).unwrap(), video.get(15).unwrap());
    assert!(video.frames("picked", vec![16]).is_err());
    // A sensor's times go forward.
    assert!(video.frames("picked", vec![3, 0]).is_err());
}

#[test]
fn a_file_cut_short_or_missing_is_an_error_naming_it() {
    let missing = data("missing.mp4");
    let err = format!("{:#}", Video::open(&missing).unwrap_err());
    assert!(
        err.starts_with(&format!(
            "{} (sensor `missing`): cannot open: No such file",
            missing.display()
        )),
        "{err}"
    );
    let cut = data("truncated_index.mp4");
    let err = Video::open(&cut).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "{} (sensor `truncated_index`): it is cut short: its moov box",
            cut.display()
        )),
        "{err}"
    );
    let not_video = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/camera/frame_1.jpg");
    let err = Video::open(&not_video).unwrap_err().to_string();
    assert!(err.contains("(sensor `frame_1`): "), "{err}");
    // Its index whole, its last pictures gone: the first frames decode, the
    // last are errors naming the file, the sensor and the sample.
    let video = Video::open(data("truncated_data.mp4")).unwrap();
    let whole = open("h264");
    assert_eq!(video.get(0).unwrap(), whole.get(0).unwrap());
    let last = video.len() - 1;
    let err = video.get(last).unwrap_err().to_string();
    let file = data("truncated_data.mp4").display().to_string();
    assert!(
        err.starts_with(&format!(
            "{file} (sensor `truncated_data`, sample {last}): samples "
        )) && err.contains("past the file's end"),
        "{err}"
    );
    // The decoder of a failed read is not kept: the thread decodes the
    // first frames again.
    assert_eq!(video.get(1).unwrap(), whole.get(1).unwrap());
}

#[test]
fn a_frame_out_of_range_is_an_error() {
    let video = open("vp9");
    let err = video.get(16).unwrap_err().to_string();
    assert_eq!(
        err,
        "index 16 is out of range for sensor `vp9` of length 16"
    );
    let mut out = vec![0u8; 10];
    assert!(video.read_into(&[0], &mut out).is_err());
}

/// This process's resident memory, in kB.
fn resident_kb() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .unwrap()
}

#[test]
fn resident_memory_stays_flat_over_thousands_of_files() {
    // 3,000 videos opened apart (each its own file to the decoders), a
    // frame read from each on one thread: the thread's decoders stay
    // within their bound, and no file stays mapped or open.
    let videos: Vec<Video> = (0..3_000).map(|_| open("av1")).collect();
    let mut after = Vec::new();
    for (k, video) in videos.iter().enumerate() {
        video.get(k % 16).unwrap();
        if (k + 1) % 1_000 == 0 {
            after.push(resident_kb());
        }
    }
    // After the first thousand: the decoders at their bound; the next two
    // thousand files may not add to it (allocator noise aside).
    assert!(
        after[2] <= after[0] + 16 * 1024,
        "resident memory after 1,000, 2,000 and 3,000 files: {after:?} kB"
    );
}

#[test]
fn a_video_that_is_not_there_keeps_its_io_error_as_the_source() {
    use std::error::Error as _;
    let err = Video::open(data("missing.mp4")).unwrap_err();
    let io = err
        .source()
        .and_then(|e| e.downcast_ref::<std::io::Error>());
    assert_eq!(
        io.map(std::io::Error::kind),
        Some(std::io::ErrorKind::NotFound)
    );
}

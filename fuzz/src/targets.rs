//! The target bodies: bytes in, a file written, the parser driven through
//! adl's public API, every sample read. Where a target needs settings (an
//! element type, a number of timestamps), the input's first bytes choose
//! them, so that the fuzzer explores them too.

use std::path::Path;

use adl::Sensor;
use adl::files::px4::Px4Log;
use adl::files::ros::{Bag, Topic};
use adl::files::video::Frames;
use adl::files::{CropDecoder, Images, Npy, NpyElement, NpyFiles, Table, Video, read_timestamps};
use adl::graph::loader::{Loader, LoaderState};
use adl::ndarray::IxDyn;
use adl::pipeline::Stages;
use adl::transform::{ImageLayout, RandomResizedCrop, Region};

use crate::{Scratch, named};

/// Read every sample of `sensor`, each error checked to name `path`.
fn read_all<S: Sensor>(sensor: &S, path: &Path) {
    for index in 0..sensor.len() {
        if let Err(e) = sensor.get(index) {
            named(&e, path);
        }
    }
}

/// Read every sample of the sensor that `opened`, or check that the error
/// refusing it names `path`.
fn read_or_named<S: Sensor>(opened: adl::Result<S>, path: &Path) {
    match opened {
        Ok(sensor) => read_all(&sensor, path),
        Err(e) => named(&e, path),
    }
}

/// `count` timestamps 10 ms apart, for sensor `name`.
fn times(name: &str, count: usize) -> adl::Timestamps {
    let values = (0..count).map(|i| i as f64 * 0.01).collect();
    adl::Timestamps::new(name, values).expect("evenly spaced times are valid")
}

/// Split off the first byte (the target's settings); `None` for no input.
fn settings(data: &[u8]) -> Option<(u8, &[u8])> {
    data.split_first().map(|(s, rest)| (*s, rest))
}

/// Split off the first two bytes: an element type and a number of
/// timestamps.
fn element_and_count(data: &[u8]) -> Option<(u8, usize, &[u8])> {
    let (element, rest) = settings(data)?;
    let (count, file) = settings(rest)?;
    Some((element, usize::from(count), file))
}

/// Run `body::<T>` for the element type `selector` picks among eight.
macro_rules! by_element {
    ($selector:expr, $body:ident, $($arg:expr),*) => {
        match $selector % 8 {
            0 => $body::<f32>($($arg),*),
            1 => $body::<f64>($($arg),*),
            2 => $body::<u8>($($arg),*),
            3 => $body::<i8>($($arg),*),
            4 => $body::<u16>($($arg),*),
            5 => $body::<i32>($($arg),*),
            6 => $body::<i64>($($arg),*),
            _ => $body::<u64>($($arg),*),
        }
    };
}

/// A PX4 ULog flight log: the whole input is the file. Every sensor the
/// log yields is read whole.
pub fn px4(data: &[u8]) {
    let path = Scratch::get().write("flight.ulg", data);
    match Px4Log::open(&path) {
        Ok(log) => {
            for sensor in log.sensors() {
                read_all(sensor, &path);
            }
            // The topics it rejected are typed verdicts on an opened log
            // (which names its file: `Px4Log::path`); their messages are
            // formatted, as a report of them would.
            for (_, error) in log.rejected() {
                let _ = error.to_string();
            }
        }
        Err(e) => named(&e, &path),
    }
}

/// A robot log: byte 0 picks the format (even: an `.mcap`, odd: a ROS 1
/// `.bag`); the rest is the file. Every topic is opened and every message
/// read, and read again through the typed view of its type where adl has
/// one (images, point clouds, IMU, fixes, scans, poses).
pub fn ros_bag(data: &[u8]) {
    let Some((format, file)) = settings(data) else {
        return;
    };
    let name = if format % 2 == 0 {
        "flight.mcap"
    } else {
        "flight.bag"
    };
    let path = Scratch::get().write(name, file);
    let bag = match Bag::open(&path) {
        Ok(bag) => bag,
        Err(e) => return named(&e, &path),
    };
    for topic in bag.topics().keys() {
        match bag.topic(topic) {
            Ok(topic) => {
                read_all(&topic, &path);
                read_views(&topic, &path);
            }
            Err(e) => named(&e, &path),
        }
    }
}

/// Read every message of `topic` through each view that reads its type.
fn read_views(topic: &Topic, path: &Path) {
    use adl::files::ros::views::{Fix, Imu, Pose, Scan};
    use adl::ndarray::{Array2, Array3};
    macro_rules! through {
        ($($view:ty),*) => {$(
            if let Ok(view) = topic.clone().view::<$view>() {
                read_all(&view, path);
            }
        )*};
    }
    through!(
        Array3<u8>,
        Array3<u16>,
        Array3<f32>,
        Array2<f32>,
        Imu,
        Fix,
        Scan,
        Pose
    );
}

/// A `.npy` array read a row per sample (memory-mapped). Byte 0 picks the
/// element type, byte 1 the number of timestamps; the rest is the file.
pub fn npy_rows(data: &[u8]) {
    let Some((element, count, file)) = element_and_count(data) else {
        return;
    };
    let path = Scratch::get().write("data.npy", file);
    by_element!(element, rows, &path, count);
}

fn rows<T: NpyElement>(path: &Path, count: usize) {
    let opened = Npy::<T, IxDyn>::open("radar", path, times("radar", count));
    read_or_named(opened, path);
}

/// A `.npy` file read whole as one sample. Byte 0 picks the element type;
/// the rest is the file.
pub fn npy_files(data: &[u8]) {
    let Some((element, file)) = settings(data) else {
        return;
    };
    let path = Scratch::get().write("000000.npy", file);
    by_element!(element, whole, &path);
}

fn whole<T: NpyElement>(path: &Path) {
    let opened = NpyFiles::<T, IxDyn>::from_files("lidar", [path], times("lidar", 1));
    read_or_named(opened, path);
}

/// The array `x` of an `.npz` archive (stored or deflated), a row per
/// sample. Byte 0 picks the element type, byte 1 the number of
/// timestamps; the rest is the archive.
pub fn npz(data: &[u8]) {
    let Some((element, count, file)) = element_and_count(data) else {
        return;
    };
    let path = Scratch::get().write("rig.npz", file);
    by_element!(element, member, &path, count);
}

fn member<T: NpyElement>(path: &Path, count: usize) {
    let opened = Npy::<T, IxDyn>::from_npz("imu", path, "x", times("imu", count));
    read_or_named(opened, path);
}

/// A JPEG or PNG frame. Byte 0 picks the settings: bit 0 the layout (HWC
/// or CHW), bit 1 strict decoding, bits 2-3 the downscale factor (1, 2, 4
/// or 8), bit 4 whether its crop (the middle half) is decoded exactly or
/// scaled by [`CropDecoder`] (with libjpeg-turbo: in part, by
/// `csrc/jpeg_region.c`); the rest is the file.
pub fn images(data: &[u8]) {
    let Some((options, file)) = settings(data) else {
        return;
    };
    let name = if file.starts_with(b"\x89PNG") {
        "frame.png"
    } else {
        "frame.jpg"
    };
    let path = Scratch::get().write(name, file);
    let layout = if options & 1 == 0 {
        ImageLayout::Hwc
    } else {
        ImageLayout::Chw
    };
    let factor = 1 << ((options >> 2) & 3);
    let opened = Images::from_files("camera", [&path], times("camera", 1)).and_then(|camera| {
        camera
            .layout(layout)
            .strict(options & 2 != 0)
            .downscale(factor)
    });
    read_or_named(opened, &path);
    let strict = options & 2 != 0;
    let Ok(camera) = Images::from_files("camera", [&path], times("camera", 1)) else {
        return;
    };
    let (height, width) = camera.frame_size();
    let middle = Region {
        top: height / 4,
        left: width / 4,
        height: height / 2,
        width: width / 2,
    };
    let decoder = CropDecoder::new(RandomResizedCrop::with_size(16, 12).layout(layout));
    let decoder = if options & 16 == 0 {
        decoder
    } else {
        decoder.exact()
    };
    let cropped = camera
        .strict(strict)
        .encoded()
        .get(0)
        .and_then(|frame| decoder.decode(&frame, middle));
    if let Err(e) = cropped {
        named(&e, &path);
    }
}

/// An MP4 video, through adl's reader of its index and FFmpeg's
/// decoders. Byte 0 picks the settings: bit 0 the layout (HWC or CHW),
/// bit 1 a resize to half the size, bit 2 whether every frame is read
/// alone or four at a time in one read (grouped by group of pictures),
/// bit 3 batches of two windows of two frames through the collate (at
/// the start and at the end); the rest is the file.
pub fn video(data: &[u8]) {
    let Some((options, file)) = settings(data) else {
        return;
    };
    let path = Scratch::get().write("clip.mp4", file);
    let layout = if options & 1 == 0 {
        ImageLayout::Hwc
    } else {
        ImageLayout::Chw
    };
    let opened = Video::open(&path).map(|video| video.layout(layout));
    let opened = match opened {
        Ok(video) if options & 2 != 0 => {
            let (height, width) = video.frame_size();
            video.resize(height.div_ceil(2), width.div_ceil(2))
        }
        other => other,
    };
    let video = match opened {
        Ok(video) => video,
        Err(e) => return named(&e, &path),
    };
    // Four frames at most in one array: a frame may have 2^26 pixels
    // (192 MiB), and the allocation limit is 1 GiB.
    if options & 4 == 0 {
        read_all(&video, &path);
    } else {
        let all: Vec<usize> = (0..video.len()).rev().collect();
        for four in all.chunks(4) {
            if let Err(e) = video.read(four) {
                named(&e, &path);
            }
        }
    }
    if options & 8 != 0 && video.len() >= 2 {
        use adl::Collate;
        // A batch of two windows of two frames, through the collate,
        // from each end of the video.
        for last in [1, video.len() - 1] {
            let first = last.saturating_sub(2).max(1);
            let windows: adl::Result<Vec<Frames>> = (first..=last)
                .take(2)
                .map(|i| Frames::window(&video, &[i - 1, i]))
                .collect();
            if let Err(e) = windows.and_then(|w| adl::collate::DefaultCollate.collate(w)) {
                named(&e, &path);
            }
        }
    }
}

/// A CSV table whose time column is `t`: the whole input is the file.
pub fn table(data: &[u8]) {
    let path = Scratch::get().write("imu.csv", data);
    read_or_named(Table::open("imu", &path, "t"), &path);
}

/// A timestamps file: byte 0's low bit picks `ts.npy` (float64 seconds) or
/// `ts.txt` (a number per line); the rest is the file.
pub fn timestamps(data: &[u8]) {
    let Some((kind, file)) = settings(data) else {
        return;
    };
    let name = if kind & 1 == 0 { "ts.npy" } else { "ts.txt" };
    let path = Scratch::get().write(name, file);
    if let Err(e) = read_timestamps("lidar", &path) {
        named(&e, &path);
    }
}

/// The loader a saved state (`state` target) is resumed on: 1000 indices,
/// batches of 8, shuffled with seed 7, on the caller's thread.
pub fn state_loader() -> adl::Result<Loader<adl::IndexRange, Stages>> {
    Loader::new(adl::IndexRange::new(1000), Stages::new())
        .batch_size(8)
        .shuffle(7)
        .workers(0)
        .build()
}

/// A saved loader state (a checkpoint's `state.json`): the whole input is
/// the file. A state that loads is resumed on [`state_loader`] and what is
/// left of its epoch read; a state the loader refuses is an
/// `Error::Resume` that says why (it was read from a file the call does
/// not see: it names no file).
pub fn state(data: &[u8]) {
    let path = Scratch::get().write("state.json", data);
    let state = match LoaderState::load(&path) {
        Ok(state) => state,
        Err(e) => return named(&e, &path),
    };
    let loader = state_loader().expect("the state target's loader");
    match loader.resume(&state) {
        Ok(epoch) => {
            let mut seen = 0usize;
            for batch in epoch {
                seen += batch.expect("a batch of indices").len();
            }
            assert!(seen <= 1000, "{seen} samples read from an epoch of 1000");
        }
        Err(adl::Error::Resume { .. }) => {}
        Err(other) => panic!("a state refused with another error than Resume: {other}"),
    }
}

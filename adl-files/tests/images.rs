//! `Images` over JPEG and PNG files written by Pillow
//! (`tests/data/make_images.py`), compared with Pillow's own decoding; the
//! errors of every kind of bad frame; and the image nodes
//! `RandomResizedCrop` and `RandomFlip` on the decoded frames, alone and
//! in a loader.

mod common;

use std::path::{Path, PathBuf};

use common::source_error;

use adl::exec::{NodeId, SampleRng, Sequential};
use adl::files::Images;
use adl::graph::loader::Loader;
use adl::ndarray::{Array2, Array3, Array4, Axis, s};
use adl::transform::{ImageLayout, RandomFlip, RandomResizedCrop, Region, resized_crop};
use adl::{Error, Origin, Sensor, SensorDataset, Timestamps, Transform};
use ndarray_npy::read_npy;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn times(n: usize) -> Timestamps {
    Timestamps::new("camera", (0..n).map(|i| i as f64 / 10.0).collect()).unwrap()
}

fn camera() -> Images {
    Images::in_folder(data("camera")).unwrap()
}

/// The largest and the mean absolute difference of two images.
fn difference(a: &Array3<u8>, b: &Array3<u8>) -> (u8, f64) {
    assert_eq!(a.shape(), b.shape());
    let diffs: Vec<u8> = a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).collect();
    let max = diffs.iter().copied().max().unwrap_or(0);
    let mean = diffs.iter().map(|&d| f64::from(d)).sum::<f64>() / diffs.len() as f64;
    (max, mean)
}

/// `image` (`[H, W, 3]`) shrunk by `factor`: each pixel the rounded mean
/// of its box, the last boxes what is left.
fn box_mean(image: &Array3<u8>, factor: usize) -> Array3<u8> {
    let (h, w, c) = image.dim();
    Array3::from_shape_fn((h.div_ceil(factor), w.div_ceil(factor), c), |(y, x, c)| {
        let block = image.slice(s![
            y * factor..((y + 1) * factor).min(h),
            x * factor..((x + 1) * factor).min(w),
            c
        ]);
        let n = block.len() as u32;
        ((block.iter().map(|&v| u32::from(v)).sum::<u32>() + n / 2) / n) as u8
    })
}

fn chw(image: &Array3<u8>) -> Array3<u8> {
    image
        .view()
        .permuted_axes([2, 0, 1])
        .as_standard_layout()
        .into_owned()
}

#[test]
fn jpeg_frames_decode_in_natural_order_as_pillow_decodes_them() {
    let camera = camera();
    let names: Vec<_> = camera
        .frames()
        .iter()
        .map(|p| p.file_name().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        ["frame_1.jpg", "frame_2.jpg", "frame_9.jpg", "frame_10.jpg"]
    );
    assert_eq!(camera.frame_size(), (24, 32));
    assert_eq!(camera.sample_shape(), [24, 32, 3]);
    let pillow: Array4<u8> = read_npy(data("camera_pillow.npy")).unwrap();
    let mut worst = 0;
    for i in 0..camera.len() {
        let frame = camera.get(i).unwrap();
        let (max, mean) = difference(&frame, &pillow.index_axis(Axis(0), i).to_owned());
        if adl::files::libjpeg_turbo_decodes() {
            // The same library, with the same defaults, as Pillow's.
            assert_eq!(max, 0, "frame {i}: mean {mean}");
        } else {
            // zune-jpeg's IDCT and chroma upsampling are not
            // libjpeg-turbo's: a few values apart at most, and rarely apart
            // at all.
            assert!(max <= 6 && mean < 1.0, "frame {i}: max {max}, mean {mean}");
        }
        worst = worst.max(max);
    }
    println!("adl's decoder vs Pillow (libjpeg-turbo): largest difference {worst}");
}

#[test]
fn a_gray_jpeg_becomes_rgb() {
    let gray = Images::from_files("gray", [data("gray.jpg")], times(1)).unwrap();
    let frame = gray.get(0).unwrap();
    assert_eq!(frame.shape(), &[24, 32, 3]);
    let pillow: Array2<u8> = read_npy(data("gray_pillow.npy")).unwrap();
    for c in 0..3 {
        let channel = frame.index_axis(Axis(2), c).to_owned();
        let (max, _) = difference(
            &channel.insert_axis(Axis(2)),
            &pillow.clone().insert_axis(Axis(2)),
        );
        assert!(max <= 2, "channel {c}: {max}");
    }
}

#[test]
fn png_frames_of_every_kind_become_rgb() {
    let png = Images::in_folder(data("png")).unwrap();
    let expected: Array4<u8> = read_npy(data("png_expected.npy")).unwrap();
    assert_eq!(png.len(), 7);
    // RGB, gray, RGBA, palette, gray + alpha, 16-bit RGB, 16-bit gray.
    for i in 0..7 {
        assert_eq!(
            png.get(i).unwrap(),
            expected.index_axis(Axis(0), i),
            "png/f{i}.png"
        );
    }
}

#[test]
fn channels_first_is_the_same_frame_transposed() {
    for folder in ["camera", "png"] {
        let hwc = Images::in_folder(data(folder)).unwrap();
        let planes = hwc.clone().layout(ImageLayout::Chw);
        let [h, w, _] = hwc.sample_shape();
        assert_eq!(planes.sample_shape(), [3, h, w]);
        for i in 0..hwc.len() {
            assert_eq!(
                planes.get(i).unwrap(),
                chw(&hwc.get(i).unwrap()),
                "{folder} {i}"
            );
        }
    }
}

#[test]
fn downscaling_averages_boxes_or_scales_as_libjpeg_turbo_decodes() {
    let camera = camera();
    let pillow: Array4<u8> = read_npy(data("camera_pillow.npy")).unwrap();
    let drafts: ndarray::Array5<u8> = read_npy(data("camera_pillow_draft.npy")).unwrap();
    for (factor, shape) in [
        (1, [24, 32, 3]),
        (2, [12, 16, 3]),
        (4, [6, 8, 3]),
        (8, [3, 4, 3]),
    ] {
        let small = camera.clone().downscale(factor).unwrap();
        assert_eq!(small.sample_shape(), shape);
        for i in 0..camera.len() {
            let full = camera.get(i).unwrap();
            let frame = small.get(i).unwrap();
            let planes = small.clone().layout(ImageLayout::Chw).get(i).unwrap();
            assert_eq!(planes, chw(&frame));
            if adl::files::libjpeg_turbo_decodes() {
                // Scaled in the DCT domain as it is decoded, as Pillow's
                // `draft` scales.
                if factor > 1 {
                    let slot = [2, 4, 8].iter().position(|&f| f == factor).unwrap();
                    let [h, w, _] = shape;
                    let draft = drafts.slice(s![slot, i, ..h, ..w, ..]).to_owned();
                    assert_eq!(frame, draft, "factor {factor}, frame {i}");
                }
            } else {
                assert_eq!(frame, box_mean(&full, factor), "factor {factor}, frame {i}");
                let of_pillow = box_mean(&pillow.index_axis(Axis(0), i).to_owned(), factor);
                assert!(difference(&frame, &of_pillow).0 <= 6);
            }
        }
    }
    // 14 x 20 by 4: boxes of 2 rows and of 4 columns at the bottom.
    let png = Images::in_folder(data("png"))
        .unwrap()
        .downscale(4)
        .unwrap();
    assert_eq!(png.sample_shape(), [4, 5, 3]);
    let expected: Array4<u8> = read_npy(data("png_expected.npy")).unwrap();
    for i in 0..png.len() {
        let whole = expected.index_axis(Axis(0), i).to_owned();
        assert_eq!(png.get(i).unwrap(), box_mean(&whole, 4), "png/f{i}.png");
    }

    let err = camera.downscale(3).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidParameter { .. })
            && err.to_string().contains("3; the factors are 1, 2, 4 and 8"),
        "{err}"
    );
}

/// A copy of the camera folder, in a folder of its own named `camera`.
fn camera_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let camera = dir.path().join("camera");
    std::fs::create_dir(&camera).unwrap();
    for entry in std::fs::read_dir(data("camera")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, camera.join(path.file_name().unwrap())).unwrap();
    }
    (dir, camera)
}

/// The message of `result`'s error, which must be a source error naming
/// `file`, the sensor `camera` and sample `index`.
fn frame_error<T: std::fmt::Debug>(result: adl::Result<T>, file: &str, index: usize) -> String {
    let message = source_error(result, file);
    assert!(
        message.contains(&format!("(sensor `camera`, sample {index})")),
        "{message}"
    );
    message
}

#[test]
fn a_bad_frame_is_refused_naming_the_file_the_sensor_and_the_sample() {
    let (_dir, folder) = camera_copy();
    std::fs::copy(data("corrupt.jpg"), folder.join("frame_9.jpg")).unwrap();
    std::fs::write(folder.join("frame_2.jpg"), "not an image\n").unwrap();
    std::fs::copy(data("png/f0.png"), folder.join("frame_10.jpg")).unwrap();
    let camera = Images::in_folder(&folder).unwrap();
    assert_eq!(camera.get(0).unwrap().shape(), &[24, 32, 3]);

    let message = frame_error(camera.get(1), "frame_2.jpg", 1);
    assert!(
        message.ends_with(
            "neither a JPEG nor a PNG file (it starts with bytes 6e 6f 74 20 61 6e 20 69; a JPEG starts with ff d8 ff, a PNG with 89 50 4e 47)"
        ),
        "{message}"
    );

    let message = frame_error(camera.get(2), "frame_9.jpg", 2);
    assert!(
        message.ends_with("truncated: its last scan ends without the end-of-image marker (ff d9)"),
        "{message}"
    );
    // Lenient, the truncated frame decodes, its missing part filled in.
    let lenient = camera.clone().strict(false).get(2).unwrap();
    assert_eq!(lenient.shape(), &[24, 32, 3]);

    // A PNG (of another size) named .jpg: read as the PNG it is.
    let message = frame_error(camera.get(3), "frame_10.jpg", 3);
    assert!(
        message.contains("is 20 x 14 pixels (width x height), but the sensor's first frame, ")
            && message.contains("frame_1.jpg, is 32 x 24: the frames of a sensor share one size"),
        "{message}"
    );

    std::fs::remove_file(folder.join("frame_9.jpg")).unwrap();
    let message = frame_error(camera.get(2), "frame_9.jpg", 2);
    assert!(message.contains("cannot read: "), "{message}");

    let err = camera.get(4).unwrap_err();
    assert!(
        matches!(
            err,
            Error::IndexOutOfRange {
                index: 4,
                len: 4,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn frames_and_timestamps_are_checked_when_opened() {
    let (_dir, folder) = camera_copy();
    // One frame fewer than timestamps.
    std::fs::remove_file(folder.join("frame_10.jpg")).unwrap();
    let message = source_error(Images::in_folder(&folder), "camera");
    assert!(
        message.ends_with("camera (sensor `camera`): holds 3 frames for 4 timestamps"),
        "{message}"
    );
    let message = source_error(
        Images::from_files("camera", [folder.join("frame_1.jpg")], times(2)),
        "camera",
    );
    assert!(
        message.ends_with("holds 1 frames for 2 timestamps"),
        "{message}"
    );

    // A first frame that is no image: its header is read at opening.
    std::fs::write(folder.join("frame_1.jpg"), b"\xff\xd8\xff\xe0 truncated").unwrap();
    let message = frame_error(Images::open("camera", &folder, times(3)), "frame_1.jpg", 0);
    assert!(message.contains("cannot decode it as a JPEG"), "{message}");

    // No frames: only the timestamps and files of other kinds.
    for name in ["frame_1.jpg", "frame_2.jpg", "frame_9.jpg"] {
        std::fs::remove_file(folder.join(name)).unwrap();
    }
    std::fs::write(folder.join("notes.txt"), "not a frame").unwrap();
    std::fs::write(folder.join(".hidden.jpg"), "not a frame either").unwrap();
    let message = source_error(Images::in_folder(&folder), "camera");
    assert!(
        message.ends_with(
            "camera (sensor `camera`): holds no frames: no file named *.jpg, *.jpeg, *.png"
        ),
        "{message}"
    );
    let err = Images::from_files("camera", Vec::<PathBuf>::new(), times(1)).unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { .. }), "{err}");

    let message = source_error(Images::in_folder(folder.join("absent")), "absent");
    assert!(message.contains("no timestamps file"), "{message}");
}

/// Every way of cutting a JPEG or a PNG short is refused; flipped bits
/// give a frame or an error, never a panic (a caught one would say so).
#[test]
fn corrupt_files_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SampleRng::new(1, 0, 0, NodeId(0));
    for (kind, good, first) in [
        ("jpg", "camera/frame_2.jpg", "camera/frame_1.jpg"),
        ("png", "png/f5.png", "png/f0.png"),
    ] {
        let bytes = std::fs::read(data(good)).unwrap();
        let path = dir.path().join(format!("bad.{kind}"));
        // A good first frame (the sensor's size), the bad one second.
        let camera = Images::from_files("camera", [data(first), path.clone()], times(2)).unwrap();
        for cut in 0..bytes.len() {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let message = frame_error(camera.get(1), &format!("bad.{kind}"), 1);
            assert!(!message.contains("panicked"), "cut to {cut}: {message}");
        }
        let mut refused = 0;
        for _ in 0..300 {
            let mut flipped = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len() as u64) as usize;
                flipped[at] ^= 1 << rng.below(8);
            }
            std::fs::write(&path, &flipped).unwrap();
            match camera.get(1) {
                Ok(frame) => assert_eq!(frame.shape(), &camera.sample_shape()),
                Err(err) => {
                    let message = frame_error(Err::<(), _>(err), &format!("bad.{kind}"), 1);
                    assert!(!message.contains("panicked"), "{message}");
                    refused += 1;
                }
            }
        }
        // PNG chunks have checksums; JPEG data has none, and most flips in
        // it decode to other pixels.
        assert!(refused >= 50, "{kind}: {refused} of 300 refused");
    }
}

#[test]
fn resized_crops_match_pillow_within_one() {
    let pillow: Array4<u8> = read_npy(data("camera_pillow.npy")).unwrap();
    let first = pillow.index_axis(Axis(0), 0).to_owned();
    let expected: Array4<u8> = read_npy(data("resize_pillow.npy")).unwrap();
    let regions = [
        Region::whole(24, 32),
        Region {
            top: 2,
            left: 3,
            height: 17,
            width: 20,
        },
        Region {
            top: 5,
            left: 4,
            height: 6,
            width: 5,
        },
    ];
    for (k, region) in regions.into_iter().enumerate() {
        let out = resized_crop(first.view(), ImageLayout::Hwc, region, 12, 12).unwrap();
        let (max, _) = difference(&out, &expected.index_axis(Axis(0), k).to_owned());
        assert!(max <= 1, "{region:?}: {max}");
        let planes = resized_crop(chw(&first).view(), ImageLayout::Chw, region, 12, 12).unwrap();
        assert_eq!(planes, chw(&out));
    }
    let outside = Region {
        top: 20,
        left: 0,
        height: 5,
        width: 4,
    };
    let err = resized_crop(first.view(), ImageLayout::Hwc, outside, 12, 12).unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { .. }), "{err}");
}

#[test]
fn a_random_resized_crop_is_drawn_per_seed_epoch_and_index() {
    let frame = camera().get(0).unwrap();
    let crop = RandomResizedCrop::new(16);
    let at = |seed, epoch, index| Sequential::new().seeded(seed, epoch).at(index);
    let out = crop.apply_in(&at(3, 0, 5), frame.clone()).unwrap();
    assert_eq!(out.shape(), &[16, 16, 3]);
    assert_eq!(out, crop.apply_in(&at(3, 0, 5), frame.clone()).unwrap());
    for other in [at(4, 0, 5), at(3, 1, 5), at(3, 0, 6)] {
        // Another seed, epoch or index: another region (these three differ).
        assert_ne!(out, crop.apply_in(&other, frame.clone()).unwrap());
    }
    let planes = crop.layout(ImageLayout::Chw);
    assert_eq!(
        planes.apply_in(&at(3, 0, 5), chw(&frame)).unwrap(),
        chw(&out)
    );
    let wide = RandomResizedCrop::with_size(8, 20)
        .apply(frame.clone())
        .unwrap();
    assert_eq!(wide.shape(), &[8, 20, 3]);

    // Regions within the scale and ratio ranges, or the fallback.
    let crop = RandomResizedCrop::new(16).scale(0.25, 0.5).ratio(0.5, 2.0);
    for index in 0..200 {
        let r = crop.draw(24, 32, &mut SampleRng::new(0, 0, index, NodeId(0)));
        assert!(r.fits(24, 32), "{r:?}");
        let area = (r.height * r.width) as f64 / (24.0 * 32.0);
        assert!((0.2..=0.56).contains(&area), "{r:?}: {area}");
    }
    // No region of ratio 3 to 4 and 99% of a square's area fits: 10
    // misses, then the centered crop of ratio 3, as torchvision's.
    let thin = RandomResizedCrop::new(16).scale(0.99, 1.0).ratio(3.0, 4.0);
    let r = thin.draw(30, 30, &mut SampleRng::new(0, 0, 0, NodeId(0)));
    assert_eq!(
        r,
        Region {
            top: 10,
            left: 0,
            height: 10,
            width: 30
        }
    );

    for bad in [
        RandomResizedCrop::new(0),
        RandomResizedCrop::new(16).scale(0.5, 0.1),
        RandomResizedCrop::new(16).ratio(0.0, 1.0),
        RandomResizedCrop::new(16).scale(f64::NAN, 1.0),
    ] {
        let err = bad.apply(frame.clone()).unwrap_err();
        assert!(matches!(err, Error::InvalidParameter { .. }), "{err}");
    }
}

#[test]
fn a_flip_mirrors_the_width_axis() {
    let frame = camera().get(0).unwrap();
    let mirrored = frame.slice(s![.., ..;-1, ..]).to_owned();
    let always = RandomFlip::horizontal().probability(1.0);
    assert_eq!(always.apply(frame.clone()).unwrap(), mirrored);
    let planes = always.layout(ImageLayout::Chw);
    assert_eq!(planes.apply(chw(&frame)).unwrap(), chw(&mirrored));
    // A view in another memory order is flipped the same.
    let transposed = chw(&frame).permuted_axes([1, 2, 0]);
    assert!(!transposed.is_standard_layout());
    assert_eq!(always.apply(transposed).unwrap(), mirrored);
    let never = RandomFlip::horizontal().probability(0.0);
    assert_eq!(never.apply(frame.clone()).unwrap(), frame);

    // p = 0.5: a coin per (seed, epoch, index), some heads, some tails.
    let coin = RandomFlip::horizontal();
    let flips: Vec<bool> = (0..64)
        .map(|i| {
            let cx = Sequential::new().seeded(9, 2).at(i);
            let out = coin.apply_in(&cx, frame.clone()).unwrap();
            assert_eq!(out, coin.apply_in(&cx, frame.clone()).unwrap());
            assert!(out == frame || out == mirrored);
            out == mirrored
        })
        .collect();
    let heads = flips.iter().filter(|&&f| f).count();
    assert!((16..=48).contains(&heads), "{heads} of 64");

    let err = RandomFlip::horizontal()
        .probability(1.5)
        .apply(frame)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { .. }), "{err}");
}

#[test]
fn a_camera_feeds_the_loader_through_crop_and_flip() {
    let run = |workers: usize| -> Vec<Array4<u8>> {
        let loader = Loader::new(
            SensorDataset::new(camera()),
            adl::pipeline! {
                sample: |x: Array3<u8>| x
                    -> RandomResizedCrop::new(16).scale(0.3, 1.0)
                    -> RandomFlip::horizontal(),
                collate: default,
            },
        )
        .batch_size(2)
        .workers(workers)
        .seed(11)
        .build()
        .unwrap();
        loader.epoch(0).map(|b| b.unwrap().into_inner()).collect()
    };
    let two = run(2);
    assert_eq!(two.len(), 2);
    for batch in &two {
        assert_eq!(batch.shape(), &[2, 16, 16, 3]);
    }
    assert_eq!(two, run(0), "the same draws with 2 workers and none");

    // Without augmentation, the batches are the frames.
    let loader = Loader::new(
        SensorDataset::new(camera().layout(ImageLayout::Chw)),
        adl::pipeline! { collate: default },
    )
    .batch_size(4)
    .workers(2)
    .build()
    .unwrap();
    let batches: Vec<Array4<u8>> = loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(batches.len(), 1);
    for i in 0..4 {
        assert_eq!(
            batches[0].index_axis(Axis(0), i),
            chw(&camera().get(i).unwrap())
        );
    }
    // The camera's files were read ahead by the loader's read stage, one
    // read per frame, then decoded by the workers.
    let stats = loader.statistics();
    assert_eq!(stats.reads.reads, 4);
    assert_eq!(stats.reads.failed, 0);
    let on_disk: u64 = camera()
        .frames()
        .iter()
        .map(|f| std::fs::metadata(f.as_path().unwrap()).unwrap().len())
        .sum();
    assert_eq!(stats.reads.bytes, on_disk);
    // A sample says which frame file it is.
    let origin = Origin::of(loader.dataset(), 2).unwrap();
    assert_eq!(
        origin.sensors[0].file.as_deref(),
        Some(camera().frames()[2].to_string().as_str())
    );
    assert_eq!(origin.sensors[0].row, None);
}

/// A valid JPEG whose chroma is sampled more finely than its luma (2x2
/// under 1x1) in progressive scans: libjpeg-turbo decodes it, zune-jpeg
/// cannot (it fails on such files, and panicked on a damaged one the
/// fuzzer made), so without libjpeg-turbo it is refused with the reason.
/// `fine_chroma_progressive.jpg` was written by libjpeg-turbo's own cjpeg
/// (`djpeg -ppm camera/frame_1.jpg | cjpeg -sample 1x1,2x2,1x1
/// -progressive -quality 90`), `fine_chroma_djpeg.npy` is what its djpeg
/// decodes from it (libjpeg-turbo 2.1.5).
#[test]
fn chroma_finer_than_luma_in_parts_is_decoded_by_libjpeg_turbo_or_refused() {
    let fine = Images::from_files("camera", [data("fine_chroma_progressive.jpg")], times(1));
    let read = fine.and_then(|fine| fine.get(0));
    if adl::files::libjpeg_turbo_decodes() {
        let frame = read.unwrap();
        let djpeg: Array3<u8> = read_npy(data("fine_chroma_djpeg.npy")).unwrap();
        let (most, _) = difference(&frame, &djpeg);
        assert!(most <= 1, "{most} from djpeg's pixels");
    } else {
        let message = frame_error(read, "fine_chroma_progressive.jpg", 0);
        assert!(
            message.contains("its component 2 is sampled 2x2, more finely than its first (1x1), in scans of one component at a time"),
            "{message}"
        );
    }
}

//! `CropDecoder` on `Images::encoded` frames: the crop decoded in part
//! equals the crop of the whole decode (every chroma sampling, gray,
//! progressive; regions on and off the blocks' edges), the scaled decode
//! stays close to it, the region is drawn as `RandomResizedCrop` draws
//! it, in a pipeline and a loader, and bad frames fail as `Images` fails.

mod common;

use std::path::{Path, PathBuf};

use adl::exec::Sequential;
use adl::files::{CropDecoder, EncodedImage, Images};
use adl::ndarray::Array3;
use adl::transform::{ImageLayout, RandomResizedCrop, Region, resized_crop};
use adl::{Sensor, Timestamps, Transform};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

const PICTURES: [&str; 5] = ["s420", "s422", "s444", "gray", "progressive"];

/// A sensor of one frame: `crops/{name}.jpg`.
fn picture(name: &str) -> Images {
    let times = Timestamps::new("camera", vec![0.0]).unwrap();
    Images::from_files("camera", [data(&format!("crops/{name}.jpg"))], times).unwrap()
}

/// Regions of a 237 x 317 frame: whole, one pixel, at each edge, on and
/// off the 8- and 16-pixel block grid, and a spread of sizes.
fn regions() -> Vec<Region> {
    let mut regions = vec![
        Region::whole(237, 317),
        Region {
            top: 0,
            left: 0,
            height: 1,
            width: 1,
        },
        Region {
            top: 236,
            left: 316,
            height: 1,
            width: 1,
        },
        Region {
            top: 16,
            left: 32,
            height: 64,
            width: 48,
        },
        Region {
            top: 15,
            left: 31,
            height: 66,
            width: 50,
        },
        Region {
            top: 17,
            left: 33,
            height: 63,
            width: 47,
        },
        Region {
            top: 200,
            left: 280,
            height: 37,
            width: 37,
        },
        Region {
            top: 0,
            left: 100,
            height: 237,
            width: 7,
        },
        Region {
            top: 100,
            left: 0,
            height: 9,
            width: 317,
        },
        Region {
            top: 1,
            left: 1,
            height: 235,
            width: 315,
        },
    ];
    // A spread drawn from a small generator (deterministic).
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..30 {
        let height = 1 + next(237);
        let width = 1 + next(317);
        regions.push(Region {
            top: next(237 - height + 1),
            left: next(317 - width + 1),
            height,
            width,
        });
    }
    regions
}

/// The peak signal-to-noise ratio of `b` against `a`, in dB.
fn psnr(a: &Array3<u8>, b: &Array3<u8>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    let mse = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum::<f64>()
        / a.len() as f64;
    10.0 * (255.0f64 * 255.0 / mse.max(1e-12)).log10()
}

#[test]
fn a_crop_decoded_in_part_is_the_crop_of_the_whole_frame() {
    for name in PICTURES {
        let camera = picture(name);
        let whole = camera.get(0).unwrap();
        let frame = camera.clone().encoded().get(0).unwrap();
        for region in regions() {
            for (height, width) in [(region.height, region.width), (24, 40), (7, 5)] {
                let decoder = CropDecoder::new(RandomResizedCrop::with_size(height, width)).exact();
                let expected =
                    resized_crop(whole.view(), ImageLayout::Hwc, region, height, width).unwrap();
                assert_eq!(
                    decoder.decode(&frame, region).unwrap(),
                    expected,
                    "{name}: {region:?} to {height} x {width}"
                );
            }
        }
    }
}

#[test]
fn a_scaled_decode_is_close_to_the_exact_one() {
    let mut scales = std::collections::BTreeSet::new();
    for name in PICTURES {
        let frame = picture(name).encoded().get(0).unwrap();
        for region in regions() {
            let crop = RandomResizedCrop::with_size(24, 32);
            let (exact, scaled) = (CropDecoder::new(crop).exact(), CropDecoder::new(crop));
            let factor = scaled.scale_for(region);
            scales.insert(factor);
            let (a, b) = (
                exact.decode(&frame, region).unwrap(),
                scaled.decode(&frame, region).unwrap(),
            );
            if factor == 1 {
                assert_eq!(a, b, "{name}: {region:?}");
            } else {
                let db = psnr(&a, &b);
                assert!(
                    db > 28.0,
                    "{name}: {region:?} at 1/{factor}: PSNR {db:.1} dB"
                );
            }
        }
    }
    // The regions reach every scale.
    assert_eq!(scales.into_iter().collect::<Vec<_>>(), [1, 2, 4, 8]);
}

#[test]
fn the_scale_is_the_largest_that_keeps_the_crop_at_least_the_output() {
    let decoder = CropDecoder::new(RandomResizedCrop::with_size(224, 224));
    let region = |height, width| Region {
        top: 0,
        left: 0,
        height,
        width,
    };
    assert_eq!(decoder.scale_for(region(447, 1000)), 1);
    assert_eq!(decoder.scale_for(region(448, 448)), 2);
    assert_eq!(decoder.scale_for(region(900, 897)), 4);
    assert_eq!(decoder.scale_for(region(1792, 1792)), 8);
    assert_eq!(decoder.scale_for(region(5000, 5000)), 8);
    assert_eq!(decoder.exact().scale_for(region(5000, 5000)), 1);
}

#[test]
fn the_region_is_the_one_random_resized_crop_draws() {
    let camera = picture("s420");
    let files = camera.clone().encoded();
    for layout in [ImageLayout::Hwc, ImageLayout::Chw] {
        let crop = RandomResizedCrop::new(20).layout(layout);
        for index in 0..20 {
            let at = Sequential::new().seeded(3, 1).at(index);
            let whole = camera.clone().layout(layout).get(0).unwrap();
            assert_eq!(
                CropDecoder::new(crop)
                    .exact()
                    .apply_in(&at, files.get(0).unwrap())
                    .unwrap(),
                crop.apply_in(&at, whole).unwrap(),
                "{layout:?}, sample {index}"
            );
        }
    }
}

#[test]
fn a_pipeline_decodes_crops_in_a_loader() {
    let camera = Images::in_folder(data("camera")).unwrap();
    let n = camera.len();
    let dataset: Vec<EncodedImage> = (0..n)
        .map(|i| camera.clone().encoded().get(i).unwrap())
        .collect();
    let pipe = adl::pipeline! {
        sample: |x: EncodedImage| x -> CropDecoder::new(RandomResizedCrop::new(8)),
        collate: default,
    };
    let batch = adl::pipeline::run(&pipe, dataset).unwrap();
    assert_eq!(batch.shape(), &[n, 8, 8, 3]);
}

#[test]
fn bad_frames_fail_as_images_fails_on_them() {
    let dir = tempfile::tempdir().unwrap();
    let camera = dir.path().join("camera");
    std::fs::create_dir(&camera).unwrap();
    let good = std::fs::read(data("crops/s420.jpg")).unwrap();
    std::fs::write(camera.join("f0.jpg"), &good).unwrap();
    // Cut in its entropy data: strict refuses it, crop or no crop.
    std::fs::write(camera.join("f1.jpg"), &good[..good.len() / 2]).unwrap();
    std::fs::write(camera.join("f2.jpg"), b"not a picture").unwrap();
    // A PNG of another size.
    std::fs::copy(data("png/f0.png"), camera.join("f3.jpg")).unwrap();
    // A JPEG of another size.
    std::fs::copy(data("camera/frame_1.jpg"), camera.join("f4.jpg")).unwrap();
    std::fs::write(camera.join("ts.txt"), "0\n1\n2\n3\n4\n").unwrap();
    let images = Images::in_folder(&camera).unwrap();
    let files = images.clone().encoded();
    let decoder = CropDecoder::new(RandomResizedCrop::new(16));
    let region = Region {
        top: 0,
        left: 0,
        height: 40,
        width: 40,
    };
    assert_eq!(
        decoder
            .decode(&files.get(0).unwrap(), region)
            .unwrap()
            .shape(),
        &[16, 16, 3]
    );
    for (index, file) in [(1, "f1.jpg"), (2, "f2.jpg"), (3, "f3.jpg"), (4, "f4.jpg")] {
        let whole = common::source_error(images.get(index), file);
        let in_part =
            common::source_error(decoder.decode(&files.get(index).unwrap(), region), file);
        assert_eq!(in_part, whole, "{file}");
        assert!(
            in_part.contains(&format!("(sensor `camera`, sample {index})")),
            "{in_part}"
        );
    }
    // The cut frame's top rows are there: lenient, its crop decodes.
    let lenient = images.strict(false).encoded();
    assert!(decoder.decode(&lenient.get(1).unwrap(), region).is_ok());
    // A region outside the frame.
    let outside = Region {
        top: 230,
        left: 0,
        height: 10,
        width: 10,
    };
    let message = common::source_error(decoder.decode(&files.get(0).unwrap(), outside), "f0.jpg");
    assert!(
        message.contains("outside its 237 x 317 pixels"),
        "{message}"
    );
}

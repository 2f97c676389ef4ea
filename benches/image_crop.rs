//! W4's image step, in frames per second: a 640 x 480 JPEG (W4's camera,
//! quality 90, 4:2:0) to a 224 x 224 random resized crop, three ways:
//!
//! - `whole`: the frame decoded whole (libjpeg-turbo), then
//!   `RandomResizedCrop`;
//! - `in part, exact`: `CropDecoder::exact`, the crop's rows and columns
//!   decoded;
//! - `in part, scaled`: `CropDecoder`, at 1/2 where the crop is twice the
//!   output;
//!
//! and the resize alone (`resized_crop` of a 400 x 380 region), the part
//! of the step that is not decoding.
//!
//! The frame is written here by libjpeg-turbo from a smooth synthetic
//! picture with noise (no dataset needed). Run: `cargo bench --bench
//! image_crop --features libjpeg-turbo`.

use std::hint::black_box;

use adl::exec::Sequential;
use adl::files::{CropDecoder, Images};
use adl::ndarray::Array3;
use adl::transform::{ImageLayout, RandomResizedCrop, Region, resized_crop};
use adl::{Sensor, Timestamps, Transform};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// A 480 x 640 picture: shading, edges and noise, as a photograph has.
fn picture() -> Array3<u8> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    Array3::from_shape_fn((480, 640, 3), |(y, x, c)| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let (fy, fx) = (y as f64, x as f64);
        let base = match c {
            0 => 120.0 + 90.0 * (fx / 37.0).sin() * (fy / 23.0).cos(),
            1 => 60.0 + 150.0 * fy / 480.0 + 30.0 * ((fx + 2.0 * fy) / 9.0).sin(),
            _ => 200.0 - 140.0 * fx / 640.0,
        };
        let edge = if (fx - 400.0).hypot(fy - 200.0) < 90.0 {
            80.0
        } else {
            0.0
        };
        (base + edge + (state % 13) as f64 - 6.0).clamp(0.0, 255.0) as u8
    })
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("frame.jpg");
    let image = picture();
    let jpeg = turbojpeg::compress(
        turbojpeg::Image {
            pixels: image.as_slice().expect("standard layout"),
            width: 640,
            pitch: 640 * 3,
            height: 480,
            format: turbojpeg::PixelFormat::RGB,
        },
        90,
        turbojpeg::Subsamp::Sub2x2,
    )
    .expect("libjpeg-turbo encodes it");
    std::fs::write(&path, &*jpeg).expect("the frame written");
    let times = Timestamps::new("camera", vec![0.0]).expect("one timestamp");
    let camera = Images::from_files("camera", [&path], times).expect("the frame opened");
    let files = camera.clone().encoded();
    let frame = files.get(0).expect("the frame read");
    let crop = RandomResizedCrop::new(224);

    let mut group = c.benchmark_group("w4_image");
    group.throughput(Throughput::Elements(1));
    let mut index = 0;
    let mut at = || {
        index += 1;
        Sequential::new().seeded(0, 0).at(index)
    };
    group.bench_function("whole", |b| {
        b.iter(|| {
            let whole = camera.get(0).expect("decodes");
            black_box(crop.apply_in(&at(), whole).expect("crops"))
        })
    });
    let exact = CropDecoder::new(crop).exact();
    group.bench_function("in part, exact", |b| {
        b.iter(|| black_box(exact.apply_in(&at(), frame.clone()).expect("decodes")))
    });
    let scaled = CropDecoder::new(crop);
    group.bench_function("in part, scaled", |b| {
        b.iter(|| black_box(scaled.apply_in(&at(), frame.clone()).expect("decodes")))
    });
    let region = Region {
        top: 40,
        left: 120,
        height: 400,
        width: 380,
    };
    group.bench_function("resize 400 x 380 to 224", |b| {
        b.iter(|| {
            black_box(
                resized_crop(image.view(), ImageLayout::Hwc, region, 224, 224).expect("resizes"),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

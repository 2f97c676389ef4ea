//! `crop_decode`: W4's image step over W4's camera frames, three ways, on
//! this thread, and the scaled decode's difference from the exact one:
//!
//! ```text
//! taskset -c 1 cargo run --release -p adl-bench --bin crop_decode -- DATA_DIR [--frames N] [--reps 3]
//! ```
//!
//! (`--frames 0`: every frame; 600 by default.)
//!
//! Each frame's crop is W4's (`RandomResizedCrop(224)`, drawn from the
//! generator of seed 0, epoch 0, the frame's number), taken three ways:
//!
//! - `whole`: `EncodedImage::decode` (the frame decoded whole by
//!   libjpeg-turbo, as `Images::get` decodes it), then `resized_crop`;
//! - `in_part_exact`: `CropDecoder::exact` on `Images::encoded`: the
//!   crop's rows and columns decoded, the same pixels (checked here on
//!   every frame);
//! - `in_part_scaled`: `CropDecoder`: at 1/2 (or less) where the crop is
//!   at least twice 224 on both sides.
//!
//! The files are read into memory first (no I/O is timed). One JSON line
//! per way (`frames_per_s`: the median of the reps), then one of the
//! scaled decode's quality: how many crops were scaled, and the PSNR of
//! their 224 x 224 images against the exact ones (min, median, mean), in
//! dB.

use std::process::ExitCode;
use std::time::Instant;

use adl::Sensor;
use adl::exec::{NodeId, SampleRng};
use adl::files::{CropDecoder, EncodedImage, Images};
use adl::ndarray::Array3;
use adl::transform::{ImageLayout, RandomResizedCrop, Region, resized_crop};
use adl_bench::frames::{FrameArgs, camera_folders};

const USAGE: &str = "usage: crop_decode DATA_DIR [--frames N] [--reps N]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("crop_decode: {message}");
            ExitCode::from(2)
        }
    }
}

/// The PSNR of `b` against `a`, in dB (infinite where they are equal).
fn psnr(a: &Array3<u8>, b: &Array3<u8>) -> f64 {
    let sum: f64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum();
    let mse = sum / a.len() as f64;
    10.0 * (255.0f64.powi(2) / mse).log10()
}

fn run(args: Vec<String>) -> Result<(), String> {
    let FrameArgs { data, frames, reps } = FrameArgs::parse(args, USAGE, 600)?;
    let frames = if frames == 0 { usize::MAX } else { frames };
    let err = |e: adl::Error| format!("{e:#}");
    // The frames, read into memory, and their crops.
    let crop = RandomResizedCrop::new(224);
    let mut cases: Vec<(EncodedImage, Region)> = Vec::new();
    'traces: for dir in camera_folders(&data)? {
        let files = Images::in_folder(&dir).map_err(err)?.encoded();
        for i in 0..files.len() {
            if cases.len() == frames {
                break 'traces;
            }
            let frame = files.get(i).map_err(err)?;
            let (h, w) = frame.size();
            let n = cases.len() as u64;
            let region = crop.draw(h, w, &mut SampleRng::new(0, 0, n, NodeId(0)));
            cases.push((frame, region));
        }
    }
    if cases.is_empty() {
        return Err("no camera frames".into());
    }
    let exact = CropDecoder::new(crop).exact();
    let scaled = CropDecoder::new(crop);
    let whole = |frame: &EncodedImage, region: Region| {
        let pixels = frame.decode().map_err(err)?;
        resized_crop(pixels.view(), ImageLayout::Hwc, region, 224, 224).map_err(err)
    };
    // The quality (and the exact decode's equality), outside the timing.
    let mut db = Vec::new();
    for (frame, region) in &cases {
        let reference = whole(frame, *region)?;
        let in_part = exact.decode(frame, *region).map_err(err)?;
        if in_part != reference {
            return Err(format!("{}: the exact crop differs", frame.location()));
        }
        if scaled.scale_for(*region) > 1 {
            db.push(psnr(
                &reference,
                &scaled.decode(frame, *region).map_err(err)?,
            ));
        }
    }
    for way in ["whole", "in_part_exact", "in_part_scaled"] {
        let mut rates = Vec::new();
        for _ in 0..reps {
            let start = Instant::now();
            for (frame, region) in &cases {
                let image = match way {
                    "whole" => whole(frame, *region)?,
                    "in_part_exact" => exact.decode(frame, *region).map_err(err)?,
                    _ => scaled.decode(frame, *region).map_err(err)?,
                };
                std::hint::black_box(image);
            }
            rates.push(cases.len() as f64 / start.elapsed().as_secs_f64());
        }
        rates.sort_by(f64::total_cmp);
        println!(
            "{{\"bench\": \"crop-decode\", \"way\": \"{way}\", \"frames\": {}, \"reps\": {reps}, \"frames_per_s\": {:.1}}}",
            cases.len(),
            rates[rates.len() / 2]
        );
    }
    db.sort_by(f64::total_cmp);
    let (min, median, mean) = if db.is_empty() {
        (0.0, 0.0, 0.0)
    } else {
        (
            db[0],
            db[db.len() / 2],
            db.iter().sum::<f64>() / db.len() as f64,
        )
    };
    println!(
        "{{\"bench\": \"crop-decode-quality\", \"frames\": {}, \"scaled\": {}, \"psnr_db_min\": {min:.2}, \"psnr_db_median\": {median:.2}, \"psnr_db_mean\": {mean:.2}}}",
        cases.len(),
        db.len()
    );
    Ok(())
}

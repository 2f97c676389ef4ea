//! `jpeg_decode`: JPEG decoding alone with adl's decoder (`adl::files::Images`,
//! with its feature `libjpeg-turbo`, as the benchmarks build it), over W4's camera frames: the twin of
//! `bench/peer/w4/decode_bench.py`, which times Pillow's libjpeg-turbo on
//! the same frames.
//!
//! ```text
//! taskset -c 1 cargo run --release -p adl-bench --bin jpeg_decode -- DATA_DIR [--frames N] [--reps 3]
//! ```
//!
//! Every frame's file is read ahead into memory first (the sensor's
//! `fetch`: no I/O is timed), then each rep decodes every frame once, in
//! file order, on this thread (pin it to one core with `taskset`, as the
//! peer pins itself). Modes, one JSON line each:
//!
//! - `decode_to_array`: `Images::get`, the frame decoded into a new
//!   `u8[480, 640, 3]` array (what a loader hands on; Pillow's
//!   `decode_to_array`);
//! - `downscale_half`: the same frame shrunk to `u8[240, 320, 3]`,
//!   decoded at half size by libjpeg-turbo's DCT scaling (as Pillow's
//!   `draft_half`).
//!
//! Line: `{"bench": "jpeg-decode", "decoder": "adl", "mode", "frames",
//! "reps", "frames_per_s" (median), "frames_per_s_all", "in_mb_per_s",
//! "out_mb_per_s", "mpix_per_s", "mean_jpeg_kb"}`.

use std::process::ExitCode;
use std::time::Instant;

use adl::Sensor;
use adl::files::Images;
use adl::storage::Fetched;
use adl_bench::frames::{FrameArgs, camera_folders};

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("jpeg_decode: {message}");
            ExitCode::from(2)
        }
    }
}

const USAGE: &str = "usage: jpeg_decode DATA_DIR [--frames N] [--reps N]";

fn run(args: Vec<String>) -> Result<(), String> {
    let FrameArgs { data, frames, reps } = FrameArgs::parse(args, USAGE, 0)?;
    let cameras = camera_folders(&data)?;
    for (mode, factor) in [("decode_to_array", 1), ("downscale_half", 2)] {
        // Each trace's camera, its frames read ahead into memory.
        let mut sensors = Vec::new();
        let mut total = 0;
        let mut in_bytes = 0u64;
        for dir in &cameras {
            let camera = Images::in_folder(dir)
                .and_then(|c| c.downscale(factor))
                .map_err(|e| format!("{e:#}"))?;
            let take = if frames == 0 {
                camera.len()
            } else {
                camera.len().min(frames - total)
            };
            total += take;
            sensors.push((camera, take));
            if frames != 0 && total >= frames {
                break;
            }
        }
        // Every frame's file read ahead, as a loader's read stage does:
        // the decodes below are handed them and read no file.
        let fetch_all = |sensors: &[(Images, usize)]| -> Result<Vec<Vec<Fetched>>, String> {
            sensors
                .iter()
                .map(|(camera, take)| (0..*take).map(|i| read_ahead(camera, i)).collect())
                .collect()
        };
        let [h, w, _] = sensors
            .first()
            .map(|(c, _)| c.sample_shape())
            .ok_or("no camera frames")?;
        let mut reads = fetch_all(&sensors)?;
        in_bytes += reads.iter().flatten().map(Fetched::bytes).sum::<u64>();
        // The first decode outside the timing (allocations, tables).
        let (first, _) = &sensors[0];
        first.get(0).map_err(|e| format!("{e:#}"))?;
        let mut rates = Vec::new();
        for rep in 0..reps {
            if rep > 0 {
                reads = fetch_all(&sensors)?;
            }
            let start = Instant::now();
            for ((camera, _), frames) in sensors.iter().zip(std::mem::take(&mut reads)) {
                for (i, read) in frames.into_iter().enumerate() {
                    let frame = camera.get_fetched(i, read).map_err(|e| format!("{e:#}"))?;
                    std::hint::black_box(frame);
                }
            }
            rates.push(total as f64 / start.elapsed().as_secs_f64());
        }
        let mut sorted = rates.clone();
        sorted.sort_by(f64::total_cmp);
        let fps = sorted[sorted.len() / 2];
        let per_frame_in = in_bytes as f64 / total as f64;
        println!(
            "{{\"bench\": \"jpeg-decode\", \"decoder\": \"adl\", \"mode\": \"{mode}\", \"frames\": {total}, \"reps\": {reps}, \"frames_per_s\": {fps:.1}, \"frames_per_s_all\": [{}], \"in_mb_per_s\": {:.1}, \"out_mb_per_s\": {:.1}, \"mpix_per_s\": {:.1}, \"mean_jpeg_kb\": {:.1}}}",
            rates
                .iter()
                .map(|r| format!("{r:.1}"))
                .collect::<Vec<_>>()
                .join(", "),
            fps * per_frame_in / 1e6,
            fps * (h * w * 3) as f64 / 1e6,
            fps * (h * w) as f64 / 1e6,
            per_frame_in / 1e3,
        );
    }
    Ok(())
}

/// Read frame `i` of `camera` ahead, as a loader's read stage does.
fn read_ahead(camera: &Images, i: usize) -> Result<Fetched, String> {
    match camera.storage() {
        Some(reads) => reads.fetch(i).map_err(|e| format!("{e:#}")),
        None => Ok(Fetched::Nothing),
    }
}

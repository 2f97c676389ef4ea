//! Three sensors of three types — a camera at 10 Hz, a radar at 20 Hz and
//! an IMU at 100 Hz read as windows, all with clock jitter — synchronized
//! into one typed sample and loaded in batches, one pipeline branch per
//! sensor.
//!
//! ```text
//! cargo run --example multimodal -- [--seconds N]
//! ```
//!
//! The rig and the pipeline are in `examples/shared/multimodal.rs`.

use adl::prelude::*;
use adl::sync::Nearest;

#[path = "shared/multimodal.rs"]
#[allow(unreachable_pub)]
mod multimodal;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => 60,
        [flag, n] if flag == "--seconds" => n
            .parse()
            .map_err(|_| format!("--seconds: `{n}` is not a number"))?,
        _ => return Err("usage: multimodal [--seconds N]".into()),
    };

    // A recording of the three sensors, synchronized to the camera.
    let trace = Recording::new(
        "synthetic",
        multimodal::rig(seconds)?,
        &Nearest::new("camera", 0.02)?,
    )?;
    println!(
        "{} synchronized samples of {} s of recording",
        trace.len(),
        seconds
    );
    for name in trace.sensor_names() {
        let sensor = trace.sensor(name)?;
        println!("  {name:<7} {:>5} samples", sensor.len());
    }
    let sample: multimodal::Sample = trace.get(0)?;
    println!(
        "sample 0: camera {:?}, radar {:?}, imu {:?}",
        sample.camera.shape(),
        sample.radar.shape(),
        sample.imu.shape()
    );

    // Batches of 16, shuffled, on 2 workers.
    let pipeline = multimodal::pipeline();
    let loader = Loader::new(trace, pipeline)
        .batch_size(16)
        .shuffle(7)
        .workers(2)
        .build()?;
    let mut batches = 0;
    for batch in loader.epoch(0) {
        let batch = batch?;
        if batches == 0 {
            println!(
                "batch 0: camera {:?}, radar {:?}, imu {:?}",
                batch.camera.shape(),
                batch.radar.shape(),
                batch.imu.shape()
            );
        }
        batches += 1;
    }
    println!("{batches} batches\n\n{}", loader.statistics());
    Ok(())
}

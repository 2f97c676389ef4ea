//! A LeRobot dataset — Hugging Face's format for robot learning: Parquet
//! tables of state and action beside an MP4 video per camera — read
//! natively: each episode a trace, then items as lerobot gives them (a
//! window of the front camera's last two frames, the state, a chunk of the
//! next eight actions, with their padding masks) loaded in batches, each
//! batch's frames decoded a group of pictures at a time straight into the
//! batch.
//!
//! ```text
//! cargo run --example lerobot --features lerobot -- [DATASET]
//! ```
//!
//! DATASET defaults to `tests/data/lerobot/v30_av1`, written by lerobot's
//! own writer (`tests/data/lerobot/make_lerobot.py`) from a real PX4
//! flight log and two photographs; any local LeRobot dataset of format
//! v3.0 or v2.1 reads the same way.

use std::path::{Path, PathBuf};

use adl::files::lerobot::{Field, FieldBatch, LeRobot};
use adl::graph::loader::Loader;
use adl::prelude::*;
use adl::{Record, Trace};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = match std::env::args().nth(1) {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lerobot/v30_av1"),
    };
    let fps = LeRobot::open(&root)?.fps();
    let dataset = LeRobot::options()
        .delta_timestamps([
            ("observation.images.front", vec![-1.0 / fps, 0.0]),
            ("action", (0..8).map(|i| f64::from(i) / fps).collect()),
        ])
        .open(&root)?;
    println!(
        "{}: LeRobot {}, {} episodes, {} frames at {fps} frames/s, cameras {}",
        root.display(),
        dataset.version().name(),
        dataset.num_episodes(),
        dataset.len(),
        dataset.camera_keys().join(", ")
    );
    for k in 0..dataset.num_episodes() {
        let episode = dataset.episode(k)?;
        let camera = episode.any_sensor("observation.images.front")?;
        let times = camera.timestamps();
        println!(
            "  {}: {} frames, {:.1} s to {:.1} s, {} sensors",
            episode.name(),
            episode.len(),
            times[0],
            times[times.len() - 1],
            episode.sensor_names().len()
        );
    }
    println!("  keys: {}", dataset.keys().join(", "));

    // The keys a policy learns from, each collated by default (the
    // frames decoded as their batch is made); the others are dropped.
    let pipeline = pipeline! {
        Record<Field> {
            "observation.images.front": { collate: default },
            "observation.images.wrist": { collate: default },
            "observation.state": { collate: default },
            "action": { collate: default },
            "action_is_pad": { collate: default },
        }
    };
    let loader = Loader::new(dataset, pipeline)
        .batch_size(16)
        .shuffle(7)
        .workers(2)
        .build()?;
    let mut frames = 0;
    for (b, batch) in loader.epoch(0).enumerate() {
        let batch = batch?;
        let shape = |key: &str| match batch.get(key) {
            Some(FieldBatch::U8(a)) => format!("{:?}", a.shape()),
            Some(FieldBatch::F32(a)) => format!("{:?}", a.shape()),
            Some(FieldBatch::Bool(a)) => format!("{:?}", a.shape()),
            _ => "?".into(),
        };
        if let Some(FieldBatch::U8(front)) = batch.get("observation.images.front") {
            frames += front.shape()[0] * front.shape()[1];
        }
        println!(
            "batch {b}: front {} wrist {} state {} action {} action_is_pad {}",
            shape("observation.images.front"),
            shape("observation.images.wrist"),
            shape("observation.state"),
            shape("action"),
            shape("action_is_pad")
        );
    }
    let statistics = loader.statistics();
    println!(
        "{frames} front frames decoded into their batches; {} samples loaded",
        statistics.samples
    );
    Ok(())
}

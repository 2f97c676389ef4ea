//! The robot-log benchmark's adl side: open a bag and read and decode
//! every message of every topic, in log-time order per topic; prints one
//! JSON line (messages, bytes of message data, seconds, messages and MB per
//! second), as `bench/ros/read_peer.py` does for the Python readers.
//!
//! ```text
//! cargo run --release -p adl-bench --bin ros_read -- BAG [--threads N]
//! ```
//!
//! One thread by default, as the Python readers have; `--threads N` reads
//! the topics' messages on N threads (a loader's workers).
//!
//! `--pipeline N` instead loads the bench bag (`bench/ros/make_bag.py`)
//! as a W4-like training input through the `Loader` with N workers: the
//! JPEG camera decoded and cropped to 224 x 224, the IMU interpolated at
//! each frame, the lidar's nearest scan padded; it prints samples per
//! second of the second epoch (and of the first) and the loader's statistics (where the time goes: the bag's
//! reads per sensor against the transforms).
//!
//! `--pipeline N --limit` does that pipeline's work with no loader, the
//! bag's limit (issue 44): each sample read from the bag (`get`), its
//! transforms run and every 16 collated (into recycled buffers, as the
//! loader's batches are), back to back on N threads at
//! once (batch `k` on thread `k % N`), with no queue, read stage,
//! statistics or order between them. A pass warms the page cache, the
//! second is timed. `bench/compare.py --workloads bags` prints `limit
//! bags adl/limit R` from the two.

use std::time::Instant;

use adl::exec::{BufferPool, Sequential, WithServices};
use adl::files::ros::views::Imu;
use adl::files::ros::{Bag, Message, Numbers, Value, Viewed};
use adl::ndarray::{Array2, Array3, Array4};
use adl::prelude::*;
use adl::sync::Nearest;
use adl::transform::RandomResizedCrop;
use adl::{Interpolated, Metadata};

/// The bytes a decoded message holds (its arrays' and strings').
fn size(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(n) => match n {
            Numbers::U8(v) => v.len(),
            Numbers::I8(v) => v.len(),
            Numbers::Bool(v) => v.len(),
            Numbers::I16(v) => 2 * v.len(),
            Numbers::U16(v) => 2 * v.len(),
            Numbers::I32(v) => 4 * v.len(),
            Numbers::U32(v) => 4 * v.len(),
            Numbers::F32(v) => 4 * v.len(),
            Numbers::I64(v) => 8 * v.len(),
            Numbers::U64(v) => 8 * v.len(),
            Numbers::F64(v) => 8 * v.len(),
        },
        Value::List(items) => items.iter().map(size).sum(),
        Value::Message(m) => message_size(m),
        _ => 8,
    }
}

fn message_size(m: &Message) -> usize {
    m.fields().map(|(_, v)| size(v)).sum()
}

/// The bench bag's sensors, synchronized to the camera.
#[derive(SensorSet)]
#[sensor_set(sample = Frame, derive(Debug, Clone))]
struct Rig<C, I, L> {
    camera: C,
    imu: I,
    lidar: L,
}

#[transform]
fn to_unit(frame: Array3<u8>) -> Array3<f32> {
    frame.mapv(|v| f32::from(v) / 255.0)
}

/// A training batch of the bench bag.
#[derive(adl::Recycle)]
struct TrainBatch {
    camera: Array4<f32>,
    imu: adl::collate::MaskedBatch<adl::files::ros::views::ImuBatch>,
    lidar: adl::collate::Padded<f32, adl::ndarray::Ix3>,
}

/// Load the bag through a W4-like pipeline on `workers` workers, or, with
/// `limit`, do the same work with no loader on `workers` threads.
fn pipeline(path: &str, workers: usize, limit: bool) -> Result<(), Box<dyn std::error::Error>> {
    let bag = Bag::open(path)?;
    let camera: Viewed<Array3<u8>> = bag.topic("/camera/compressed")?.view()?;
    let stamps = camera.metadata().timestamps().to_vec();
    let imu = Interpolated::new(bag.topic("/imu")?.view::<Imu>()?, &stamps, 0.05)?;
    let lidar: Viewed<Array2<f32>> = bag.topic("/lidar")?.view()?;
    let rig = Rig { camera, imu, lidar };
    let trace = Recording::new("bench", rig, &Nearest::new("/camera/compressed", 0.06)?)?;
    let samples = trace.len();
    let pipeline = pipeline! {
        Frame<Array3<u8>, adl::collate::Masked<Imu>, Array2<f32>> {
            camera: { sample: RandomResizedCrop::new(224) -> to_unit, collate: default },
            imu: { collate: default },
            lidar: { collate: pad },
        },
        post: |b| TrainBatch { camera: b.camera, imu: b.imu, lidar: b.lidar },
    };
    if limit {
        let threads = workers.max(1);
        let order: Vec<usize> = (0..samples).collect();
        let batches: Vec<&[usize]> = order.chunks(16).collect();
        // One thread's work: its batches, each sample read, transformed and
        // collated into buffers that come back when the batch is done with
        // (as the loader's do: fresh ones each batch would fault their
        // pages in); the samples it made.
        let work = |thread: usize| -> adl::Result<usize> {
            let pool = std::sync::Arc::new(BufferPool::new(2));
            let sequential = Sequential::new();
            let cx = WithServices::new(&sequential).buffers(&pool);
            let mut made = 0;
            for batch in batches.iter().skip(thread).step_by(threads) {
                let mut transformed = Vec::with_capacity(batch.len());
                for &i in *batch {
                    transformed.push(pipeline.sample_in(&cx, trace.get(i)?)?);
                }
                let batch = pipeline.batch_in(&cx, pipeline.collate_in(&cx, transformed)?)?;
                made += std::hint::black_box(&batch).camera.shape()[0];
                pool.recycle(batch);
            }
            Ok(made)
        };
        let pass = || adl_bench::on_threads(threads, work);
        let (_, first) = pass()?;
        let (made, seconds) = pass()?;
        println!(
            "{{\"reader\": \"adl\", \"build\": \"{}\", \"pipeline\": true, \"limit\": true, \"threads\": {threads}, \"samples\": {made}, \"seconds\": {seconds:.4}, \"first_pass_seconds\": {first:.4}, \"samples_per_s\": {:.1}}}",
            adl::BUILD,
            made as f64 / seconds
        );
        return Ok(());
    }
    let loader = Loader::new(trace, pipeline)
        .batch_size(16)
        .shuffle(1)
        .workers(workers)
        .build()?;
    // Two epochs, the second timed as the limit's second pass is: the
    // first starts the workers and fills the pipeline.
    let mut timed = Vec::new();
    for epoch in 0..2 {
        let start = Instant::now();
        let mut loaded = 0;
        for batch in loader.epoch(epoch) {
            let batch = batch?;
            loaded += batch.camera.shape()[0];
            let _ = (&batch.imu.valid, &batch.lidar.lengths);
        }
        timed.push((loaded, start.elapsed().as_secs_f64()));
    }
    let (loaded, seconds) = timed[1];
    println!(
        "{{\"reader\": \"adl\", \"build\": \"{}\", \"pipeline\": true, \"workers\": {workers}, \"samples\": {loaded}, \"of\": {samples}, \"seconds\": {seconds:.4}, \"samples_per_s\": {:.1}, \"first_epoch_samples_per_s\": {:.1}}}",
        adl::BUILD,
        loaded as f64 / seconds,
        timed[0].0 as f64 / timed[0].1
    );
    eprintln!("{}", loader.statistics());
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: ros_read BAG [--threads N | --pipeline WORKERS [--limit]]";
    let path = args.next().ok_or(usage)?;
    let threads = match (args.next().as_deref(), args.next(), args.next().as_deref()) {
        (Some("--threads"), Some(n), None) => n.parse()?,
        (Some("--pipeline"), Some(n), None) => return pipeline(&path, n.parse()?, false),
        (Some("--pipeline"), Some(n), Some("--limit")) => return pipeline(&path, n.parse()?, true),
        (None, _, _) => 1,
        _ => return Err(usage.into()),
    };
    let start = Instant::now();
    let bag = Bag::open(&path)?;
    let topics: Vec<_> = (bag.topics().keys())
        .map(|name| bag.topic(name))
        .collect::<adl::Result<_>>()?;
    let work: Vec<(usize, usize)> = (topics.iter().enumerate())
        .flat_map(|(t, topic)| (0..topic.len()).map(move |i| (t, i)))
        .collect();
    let chunk = work.len().div_ceil(threads.max(1)).max(1);
    let totals = std::thread::scope(|s| {
        let handles: Vec<_> = work
            .chunks(chunk)
            .map(|part| {
                let topics = &topics;
                s.spawn(move || -> adl::Result<(usize, usize)> {
                    let mut bytes = 0;
                    for &(t, i) in part {
                        bytes += message_size(&topics[t].get(i)?);
                    }
                    Ok((part.len(), bytes))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a reader thread panicked"))
            .collect::<adl::Result<Vec<_>>>()
    })?;
    let seconds = start.elapsed().as_secs_f64();
    let (messages, bytes) = totals
        .iter()
        .fold((0, 0), |(m, b), &(m2, b2)| (m + m2, b + b2));
    println!(
        "{{\"reader\": \"adl\", \"threads\": {threads}, \"messages\": {messages}, \"bytes\": {bytes}, \"seconds\": {seconds:.4}, \"messages_per_s\": {:.1}, \"mb_per_s\": {:.1}}}",
        messages as f64 / seconds,
        bytes as f64 / seconds / 1e6
    );
    Ok(())
}

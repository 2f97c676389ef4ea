//! The benchmark workloads of `bench/WORKLOADS.md`, through adl's DSL and
//! Loader, timed by the workloads' protocol.
//!
//! ```text
//! cargo run --release --example bench -- --workload w1|w2 [--workers N]
//!     [--samples N] [--device auto|cpu|NAME|P:D] [--fusion on|off] [--verify]
//! cargo run --release --example bench -- --workload w2 --stage batch [--batches N]
//! ```
//!
//! - Loader runs (the default): the data is generated before timing; the
//!   epoch-0 order runs twice, cold (the loader's build, its worker
//!   start-up and the first touch of memory included) then warm (the
//!   headline). One JSON line: workload, workers, samples/s warm and cold,
//!   batches/s warm, time to the first batch, peak RSS.
//! - `--verify`: one more epoch, in order, digested field by field; every
//!   digest is printed beside the expected one (the spec's for full sizes,
//!   else one computed here from the spec's formulas alone) and a mismatch
//!   exits with status 1.
//! - `--stage batch` (W2): only W2's batch stage (flip, bytes to floats,
//!   per-channel normalisation), on collated batches of 64: on the OpenCL
//!   device fused and unfused, and as the Rust bodies on the CPU; batches/s
//!   and GB/s (bytes read and written by the stage) for each.
//!
//! W1: 200,000 vectors of 64 floats standardised per sample, batch 256. W2:
//! 20,000 RGB 64x64 images; flip, conversion and normalisation are batch
//! kernels (`FlipByFlag`, `U8ToF32`, `Normalize`), fused on the OpenCL
//! device, or their Rust bodies where there is none.

#[path = "shared/workloads.rs"]
mod workloads;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use adl::kernel::{FlipByFlag, Normalize, U8ToF32};
use adl::loader::Loader;
use adl::opencl::{DeviceChoice, OpenCl};
use adl::prelude::*;
use ndarray::Array4;
use workloads::*;

struct Args {
    workload: String,
    workers: usize,
    samples: Option<usize>,
    device: DeviceChoice,
    fusion: bool,
    verify: bool,
    stage: String,
    batches: usize,
}

const USAGE: &str = "usage: bench --workload w1|w2|w3 [--workers N] [--samples N] [--device auto|cpu|NAME|P:D] [--fusion on|off] [--verify] [--stage loader|batch] [--batches N]";

fn parse() -> Result<Args, String> {
    let mut args = Args {
        workload: String::new(),
        workers: 2,
        samples: None,
        device: DeviceChoice::from_env(),
        fusion: true,
        verify: false,
        stage: "loader".into(),
        batches: 200,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        let number = |text: String, name: &str| {
            text.parse::<usize>()
                .map_err(|_| format!("{name} takes a number, got {text:?}"))
        };
        match flag.as_str() {
            "--workload" => args.workload = value("--workload")?,
            "--workers" => args.workers = number(value("--workers")?, "--workers")?,
            "--samples" => args.samples = Some(number(value("--samples")?, "--samples")?),
            "--device" => args.device = DeviceChoice::parse(&value("--device")?),
            "--fusion" => {
                args.fusion = match value("--fusion")?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => return Err(format!("--fusion takes on or off, got {other:?}")),
                }
            }
            "--verify" => args.verify = true,
            "--stage" => args.stage = value("--stage")?,
            "--batches" => args.batches = number(value("--batches")?, "--batches")?,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    if !matches!(args.workload.as_str(), "w1" | "w2" | "w3") {
        return Err(format!("--workload must be w1, w2 or w3\n{USAGE}"));
    }
    if !matches!(args.stage.as_str(), "loader" | "batch") {
        return Err(format!("--stage must be loader or batch\n{USAGE}"));
    }
    Ok(args)
}

/// Peak resident memory of this process, in MB (Linux; 0 elsewhere).
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The shuffled order of epoch 0 as the spec defines it: indices sorted by
/// `(u(15, i, 0), i)`. Computed here from the spec, not by adl.
fn spec_order(n: usize) -> Vec<usize> {
    let mut keyed: Vec<(u64, usize)> = (0..n).map(|i| (u(15, i as u64, 0), i)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// One timed epoch: (wall time, samples, batches, time to the first batch).
struct Timed {
    wall: Duration,
    samples: usize,
    batches: usize,
    first: Duration,
}

fn time_epoch<B: Recycle>(
    batches: impl Iterator<Item = adl::Result<adl::loader::Batch<B>>>,
    count: impl Fn(&B) -> usize,
) -> adl::Result<Timed> {
    let start = Instant::now();
    let mut first = None;
    let (mut samples, mut n) = (0, 0);
    for batch in batches {
        let batch = batch?;
        first.get_or_insert_with(|| start.elapsed());
        samples += count(&batch);
        n += 1;
    }
    Ok(Timed {
        wall: start.elapsed(),
        samples,
        batches: n,
        first: first.unwrap_or_default(),
    })
}

fn report(args: &Args, device: &str, cold: &Timed, warm: &Timed, build: Duration) {
    let rate = |t: &Timed| t.samples as f64 / t.wall.as_secs_f64();
    println!(
        "{{\"workload\":\"{}\",\"workers\":{},\"device\":{:?},\"fusion\":{},\"samples\":{},\"warm_samples_per_s\":{:.1},\"cold_samples_per_s\":{:.1},\"warm_batches_per_s\":{:.2},\"first_batch_ms\":{:.3},\"peak_rss_mb\":{:.1}}}",
        args.workload,
        args.workers,
        device,
        args.fusion,
        warm.samples,
        rate(warm),
        cold.samples as f64 / (cold.wall + build).as_secs_f64(),
        warm.batches as f64 / warm.wall.as_secs_f64(),
        (cold.first + build).as_secs_f64() * 1e3,
        peak_rss_mb(),
    );
}

/// Print `field`'s digest beside the expected one; whether they agree.
fn check(field: &str, got: Digest, expected: Digest) -> bool {
    let ok = got == expected;
    println!(
        "digest {field:<6} {got}  expected {expected}  {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    ok
}

fn w1(args: &Args) -> adl::Result<bool> {
    let n = args.samples.unwrap_or(W1_SAMPLES);
    let data = Arc::new(W1::generate(n));
    let build_start = Instant::now();
    let pipeline = Stages::new()
        .with_sample(|mut s: W1Sample| {
            s.x.mapv_inplace(|v| (v - 1.0) / W1_STD);
            s
        })
        .with_collate(DefaultCollate);
    let loader = Loader::new(W1Data(Arc::clone(&data)), pipeline)
        .batch_size(256)
        .shuffle(SEED)
        .workers(args.workers)
        .prefetch(2 * args.workers.max(1))
        .build()?;
    let build = build_start.elapsed();
    let cold = time_epoch(loader.epoch(0), |b| b.y.len())?;
    let warm = time_epoch(loader.epoch(0), |b| b.y.len())?;
    report(args, "cpu", &cold, &warm, build);
    if !args.verify {
        return Ok(true);
    }
    let (mut x, mut y) = (Digest::default(), Digest::default());
    for (b, batch) in loader.epoch(0).enumerate() {
        let batch = batch?;
        x.add(b, bits_sum_f32(batch.x.iter()));
        y.add(b, bits_sum_i64(batch.y.iter()));
    }
    let (ex, ey) = if n == W1_SAMPLES {
        (Digest(0x942e9b9b526f7042), Digest(0x0000000014f3e052))
    } else {
        let (mut ex, mut ey) = (Digest::default(), Digest::default());
        for (b, chunk) in spec_order(n).chunks(256).enumerate() {
            let (mut sx, mut sy) = (0u64, 0u64);
            for &i in chunk {
                let row = &data.x[i * W1_FEATURES..(i + 1) * W1_FEATURES];
                sx = sx.wrapping_add(bits_sum_f32(
                    row.iter()
                        .map(|v| (v - 1.0) / W1_STD)
                        .collect::<Vec<_>>()
                        .iter(),
                ));
                sy = sy.wrapping_add(data.y[i] as u64);
            }
            ex.add(b, sx);
            ey.add(b, sy);
        }
        (ex, ey)
    };
    Ok(check("x", x, ex) & check("y", y, ey))
}

/// A W2 sample: an image and its flip flag.
type W2Sample = (ndarray::Array3<u8>, bool);
/// A collated W2 batch: the images and their flags.
type W2Collated = (Array4<u8>, ndarray::Array1<bool>);

/// The W2 pipeline: collate the images and their flags, then the batch
/// kernels.
fn w2_pipeline()
-> impl Pipeline<W2Sample, Transformed = W2Sample, Collated = W2Collated, Processed = Array4<f32>>
+ Send
+ Sync
+ 'static {
    adl::pipeline! {
        collate: default,
        batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> Normalize::per_channel(W2_MEAN, W2_STD),
    }
}

/// W2's expected digest of the normalised images, from the spec's formulas
/// alone (flip, divide, normalise per element), in the spec's order.
fn w2_expected(data: &W2, n: usize) -> Digest {
    let mut digest = Digest::default();
    for (b, chunk) in spec_order(n).chunks(64).enumerate() {
        let mut sum = 0u64;
        for &i in chunk {
            let image = &data.images[i * W2_IMAGE..(i + 1) * W2_IMAGE];
            for c in 0..3 {
                for h in 0..64 {
                    for w in 0..64 {
                        let src = if data.flips[i] { 63 - w } else { w };
                        let v = f32::from(image[c * 4096 + h * 64 + src]) / 255.0;
                        let v = (v - W2_MEAN[c]) / W2_STD[c];
                        sum = sum.wrapping_add(u64::from(v.to_bits()));
                    }
                }
            }
        }
        digest.add(b, sum);
    }
    digest
}

fn w2(args: &Args) -> adl::Result<bool> {
    let n = args.samples.unwrap_or(W2_SAMPLES);
    let data = Arc::new(W2::generate(n));
    if args.stage == "batch" {
        return w2_batch_stage(args, &data);
    }
    let build_start = Instant::now();
    let device = OpenCl::open(&args.device)?.map(|d| d.fusion(args.fusion));
    if device.is_none()
        && args.device != DeviceChoice::Cpu
        && std::env::var("ADL_REQUIRE_OPENCL").as_deref() == Ok("1")
    {
        return Err(adl::Error::invalid(
            "ADL_REQUIRE_OPENCL",
            "is 1 but there is no OpenCL device to run W2's batch kernels",
        ));
    }
    let device_name = device.as_ref().map_or("cpu".to_owned(), |d| {
        adl::kernel::Accelerator::name(d).to_owned()
    });
    let mut builder = Loader::new(W2Data(Arc::clone(&data)), w2_pipeline())
        .batch_size(64)
        .shuffle(SEED)
        .workers(args.workers)
        .prefetch(2 * args.workers.max(1));
    builder = match device {
        Some(d) => builder.accelerator(Arc::new(d)),
        None => builder.opencl(DeviceChoice::Cpu),
    };
    let loader = builder.build()?;
    let build = build_start.elapsed();
    let cold = time_epoch(loader.epoch(0), |b| b.shape()[0])?;
    let warm = time_epoch(loader.epoch(0), |b| b.shape()[0])?;
    report(args, &device_name, &cold, &warm, build);
    if !args.verify {
        return Ok(true);
    }
    let mut image = Digest::default();
    for (b, batch) in loader.epoch(0).enumerate() {
        let batch = batch?;
        image.add(b, bits_sum_f32(batch.iter()));
    }
    let expected = if n == W2_SAMPLES {
        Digest(0x3bc774be30c32a79)
    } else {
        w2_expected(&data, n)
    };
    Ok(check("image", image, expected))
}

/// W2's batch stage alone on collated batches: OpenCL fused, unfused, and
/// the CPU bodies.
fn w2_batch_stage(args: &Args, data: &W2) -> adl::Result<bool> {
    let batch = 64.min(data.flips.len());
    let images =
        Array4::from_shape_vec((batch, 3, 64, 64), data.images[..batch * W2_IMAGE].to_vec())
            .map_err(|e| adl::Error::invalid("images", e.to_string()))?;
    let flags = ndarray::Array1::from(data.flips[..batch].to_vec());
    let pipeline = w2_pipeline();
    let bytes = (batch * W2_IMAGE * (1 + 4)) as f64;
    let sequential = adl::exec::Sequential::new();
    let run = |label: &str, cx: &dyn adl::exec::Context| -> adl::Result<Array4<f32>> {
        // One run to compile and allocate, then the timed ones.
        let reference = pipeline.batch_in(cx, (images.clone(), flags.clone()))?;
        let start = Instant::now();
        for _ in 0..args.batches {
            let out = pipeline.batch_in(cx, (images.clone(), flags.clone()))?;
            std::hint::black_box(&out);
        }
        let s = start.elapsed().as_secs_f64();
        println!(
            "{{\"workload\":\"w2\",\"stage\":\"batch\",\"path\":{label:?},\"batch\":{batch},\"batches_per_s\":{:.1},\"gb_per_s\":{:.3}}}",
            args.batches as f64 / s,
            bytes * args.batches as f64 / s / 1e9
        );
        Ok(reference)
    };
    let cpu = run("cpu", &sequential)?;
    let mut same = true;
    if let Some(device) = OpenCl::open(&args.device)? {
        let name = adl::kernel::Accelerator::name(&device).to_owned();
        let fused = device;
        let cx = adl::exec::WithAccelerator::new(&sequential, &fused);
        let out = run(&format!("opencl fused ({name})"), &cx)?;
        same &= out == cpu;
        let unfused = fused.fusion(false);
        let cx = adl::exec::WithAccelerator::new(&sequential, &unfused);
        let out = run(&format!("opencl unfused ({name})"), &cx)?;
        same &= out == cpu;
        println!(
            "opencl output equals the cpu output bit for bit: {}",
            if same { "yes" } else { "NO" }
        );
    }
    Ok(same)
}

/// The spec's `nearest(ts, t)`: the index minimising `|ts[k] - t|`, ties
/// to the smaller index, by binary search.
fn spec_nearest(ts: &[i64], t: i64) -> usize {
    let p = ts.partition_point(|&x| x < t);
    if p == ts.len() || (p > 0 && t - ts[p - 1] <= ts[p] - t) {
        p - 1
    } else {
        p
    }
}

fn w3(args: &Args) -> adl::Result<bool> {
    let data = Arc::new(W3::generate());
    let n = args.samples.unwrap_or(data.a.t.len()).min(data.a.t.len());
    let build_start = Instant::now();
    let dataset = W3Data::new(Arc::clone(&data), n)?;
    let pipeline = Stages::new().with_collate(DefaultCollate);
    let loader = Loader::new(dataset, pipeline)
        .batch_size(W3_BATCH)
        .shuffle(SEED)
        .workers(args.workers)
        .prefetch(2 * args.workers.max(1))
        .build()?;
    let build = build_start.elapsed();
    let cold = time_epoch(loader.epoch(0), |b| b.t.len())?;
    let warm = time_epoch(loader.epoch(0), |b| b.t.len())?;
    report(args, "cpu", &cold, &warm, build);
    if !args.verify {
        return Ok(true);
    }
    let mut got = [Digest::default(); 5];
    for (b, batch) in loader.epoch(0).enumerate() {
        let batch = batch?;
        got[0].add(b, bits_sum_i64(batch.idx.iter()));
        got[1].add(b, bits_sum_f32(batch.img.iter()));
        got[2].add(b, bits_sum_f32(batch.imu.iter()));
        got[3].add(b, bits_sum_f32(batch.reference.iter()));
        got[4].add(b, bits_sum_i64(batch.t.iter()));
    }
    let expected = if n == data.a.t.len() {
        [
            0x00000004bae831a2,
            0x11148c4724f30114,
            0x00ffe45c2b1fe696,
            0x00224b3b136c4a5c,
            0x000099ff09420d3b,
        ]
        .map(Digest)
    } else {
        let mut expected = [Digest::default(); 5];
        let n_c = data.c.t.len();
        for (b, chunk) in spec_order(n).chunks(W3_BATCH).enumerate() {
            let mut sums = [0u64; 5];
            for &i in chunk {
                let t = data.a.t[i];
                let nb = spec_nearest(&data.b.t, t);
                let nc = spec_nearest(&data.c.t, t);
                let s = (nc as i64 - 5).clamp(0, (n_c - W3_WINDOW) as i64) as usize;
                sums[0] = sums[0].wrapping_add(nb as u64).wrapping_add(s as u64);
                sums[1] =
                    sums[1].wrapping_add(bits_sum_f32(&data.b.values[nb * 1024..(nb + 1) * 1024]));
                sums[2] =
                    sums[2].wrapping_add(bits_sum_f32(&data.c.values[s * 6..(s + W3_WINDOW) * 6]));
                sums[3] = sums[3].wrapping_add(bits_sum_f32(&data.a.values[i * 8..(i + 1) * 8]));
                sums[4] = sums[4].wrapping_add(t as u64);
            }
            for (e, sum) in expected.iter_mut().zip(sums) {
                e.add(b, sum);
            }
        }
        expected
    };
    let mut ok = true;
    for ((name, got), expected) in ["idx", "img", "imu", "ref", "t"]
        .iter()
        .zip(got)
        .zip(expected)
    {
        ok &= check(name, got, expected);
    }
    Ok(ok)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let result = match args.workload.as_str() {
        "w1" => w1(&args),
        "w3" => w3(&args),
        _ => w2(&args),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("bench: {e}");
            ExitCode::FAILURE
        }
    }
}

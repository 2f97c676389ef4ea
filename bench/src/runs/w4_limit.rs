//! W4's limit (issue 44): its work for every sample done back to back on
//! each of `--workers` threads at once, with no loader: the sensors' reads
//! from the page cache (`Dataset::get`), the transform (the crop decoded
//! at its DCT scale, the resize, the radar's and IMU's), and the collate
//! into a batch of 32 (the image flipped and normalised into its row, the
//! rest copied; into buffers that come back when the batch is done with,
//! as the loader's do), with
//! no queue, read stage, statistics or order between them. The epoch is
//! split by batches among the threads (batch `k` on thread `k % threads`), in the
//! epoch-0 order of the loader's run. A pass warms the page cache, the
//! second is timed: samples/s over the wall time of all threads. It is
//! the figure `adl-bench --workload w4` is measured against
//! (`bench/compare.py` prints `limit w4 adl/limit R`).

use std::path::Path;

use adl::exec::{BufferPool, NodeId, SampleRng, Sequential, WithServices};
use adl::files::Location;
use adl::prelude::*;

use crate::EpochPermutation;
use crate::args::Args;
use crate::process::peak_rss_mb;
use crate::spec::SEED;
use crate::workloads::{Local, W4_BATCH, W4Data, W4Sample, W4Transform};

/// Time W4's work with no loader on `args.workers` threads; one JSON line.
pub(crate) fn w4_limit(args: &Args, root: &Path) -> adl::Result<bool> {
    let dataset = W4Data::open_at(root, &Location::from(root), Local)?;
    let transform = W4Transform { verify: false };
    let pipeline = adl::pipeline! {
        sample: (transform),
        collate: default,
    };
    let order = EpochPermutation { seed: SEED }.indices(0, dataset.len());
    let threads = args.workers.max(1);
    let batches: Vec<&[usize]> = order.chunks(W4_BATCH).collect();
    // The work of one thread: its batches, each sample read, transformed
    // and collated into recycled buffers (fresh ones each batch would
    // fault their pages in, which the loader's pool does not: with them
    // the bags' limit ran at 0.82x its loader); the samples it made.
    let work = |thread: usize| -> adl::Result<usize> {
        let pool = std::sync::Arc::new(BufferPool::new(2));
        let sequential = Sequential::new();
        let cx = WithServices::new(&sequential).buffers(&pool);
        let mut made = 0;
        for batch in batches.iter().skip(thread).step_by(threads) {
            let mut samples: Vec<W4Sample> = Vec::with_capacity(batch.len());
            for &i in *batch {
                let raw = dataset.get(i)?;
                let mut rng = SampleRng::new(SEED, 0, i as u64, NodeId(0));
                samples.push(transform.transform(raw, &mut rng)?);
            }
            let collated = pipeline.collate_in(&cx, samples)?;
            made += std::hint::black_box(&collated).t.len();
            pool.recycle(collated);
        }
        Ok(made)
    };
    let pass = || crate::on_threads(threads, work);
    let (_, cold_s) = pass()?;
    let (samples, warm_s) = pass()?;
    println!(
        "{{\"workload\":\"w4\",\"build\":\"{}\",\"limit\":true,\"threads\":{threads},\"samples\":{samples},\"warm_samples_per_s\":{:.1},\"warm_wall_s\":{warm_s:.4},\"first_pass_wall_s\":{cold_s:.4},\"peak_rss_mb\":{:.1}}}",
        crate::BUILD,
        samples as f64 / warm_s,
        peak_rss_mb(),
    );
    Ok(true)
}

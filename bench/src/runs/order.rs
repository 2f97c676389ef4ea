//! `--workload order`: how an epoch over a huge dataset starts. A dataset
//! whose samples are their indices (it holds nothing) of `--samples N`
//! (10^9 by default), shuffled and split over `--ranks R` ranks (8): for
//! each rank in turn a loader is built and its first 20 batches of 32 read.
//! The JSON line gives the time from the first loader's build to the last
//! rank's 20th batch, the slowest rank's, and the process's peak resident
//! memory. `--sampler shuffle` (the loader's, a permutation evaluated per
//! position) or `sorted-keys` (the workloads' epoch permutation, the
//! whole order sorted when the epoch starts: what the loader did before).

use std::time::{Duration, Instant};

use std::sync::Arc;

use adl::IndexRange;
use adl::graph::loader::{Loader, Order, Shuffle};
use adl::pipeline::Stages;

use crate::EpochPermutation;
use crate::args::Args;
use crate::process::peak_rss_mb;

/// Batches read per rank, and their size.
const BATCHES: usize = 20;
const BATCH: usize = 32;

/// Run `--workload order`.
pub(crate) fn order(args: &Args) -> adl::Result<bool> {
    let samples = args.samples.unwrap_or(1_000_000_000);
    let sampler: Arc<dyn Order> = match args.sampler.as_str() {
        "shuffle" => Arc::new(Shuffle { seed: 2024 }),
        _ => Arc::new(EpochPermutation { seed: 2024 }),
    };
    let start = Instant::now();
    let mut slowest = Duration::ZERO;
    let mut read = 0usize;
    for rank in 0..args.ranks {
        let began = Instant::now();
        let loader = Loader::new(IndexRange::new(samples), Stages::new())
            .batch_size(BATCH)
            .order(Arc::clone(&sampler))
            .shard(rank, args.ranks)
            .workers(args.workers)
            .build()?;
        for batch in loader.epoch(0).take(BATCHES) {
            read += batch?.len();
        }
        slowest = slowest.max(began.elapsed());
    }
    println!(
        "{{\"workload\":\"order\",\"sampler\":{:?},\"samples\":{samples},\"ranks\":{},\"workers\":{},\"samples_read\":{read},\"first_batches_ms\":{:.1},\"slowest_rank_ms\":{:.1},\"peak_rss_mb\":{:.1}}}",
        args.sampler,
        args.ranks,
        args.workers,
        start.elapsed().as_secs_f64() * 1e3,
        slowest.as_secs_f64() * 1e3,
        peak_rss_mb(),
    );
    Ok(true)
}

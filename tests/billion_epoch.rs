//! A shuffled epoch over 10^9 samples, sharded over 8 ranks: every rank's
//! first batches come without the epoch's order in memory. Each rank reads
//! its first 20 batches of 32; the samples are their own indices (a
//! dataset that holds no data), each batch is what the rank's order says,
//! and no index is read twice across the ranks. The process's peak resident
//! memory (VmHWM) stays under 256 MB: the order is computed per position,
//! where sorting 10^9 keys took 16 GB per rank.
//!
//! Its own harness (`harness = false`): one process, whose peak memory is
//! this test's alone. How long the first batches take is the benchmark's
//! (`adl-bench --order`), not a test's; it is printed here for the record.

use std::collections::HashSet;
use std::time::Instant;

use adl::IndexRange;
use adl::graph::loader::Loader;
use adl::pipeline::Stages;

const SAMPLES: usize = 1_000_000_000;
const RANKS: usize = 8;
const BATCHES: usize = 20;
const BATCH: usize = 32;
/// The promise: well under this.
const PEAK_LIMIT_KIB: u64 = 256 * 1024;

fn main() {
    let started = Instant::now();
    let mut seen = HashSet::new();
    for rank in 0..RANKS {
        let loader = Loader::new(IndexRange::new(SAMPLES), Stages::new())
            .batch_size(BATCH)
            .shuffle(2024)
            .shard(rank, RANKS)
            .workers(2)
            .build()
            .expect("a loader over 10^9 samples");
        let mut epoch = loader.epoch(3);
        assert_eq!(epoch.indices().len(), SAMPLES / RANKS);
        assert_eq!(epoch.batches(), SAMPLES / RANKS / BATCH);
        let planned: Vec<usize> = epoch.indices().iter().take(BATCHES * BATCH).collect();
        let mut read = Vec::new();
        for batch in epoch.by_ref().take(BATCHES) {
            let batch = batch.expect("a batch");
            read.extend(batch.iter().copied());
        }
        assert_eq!(
            read, planned,
            "rank {rank} read another order than it planned"
        );
        for index in read {
            assert!(index < SAMPLES);
            assert!(seen.insert(index), "index {index} read twice (rank {rank})");
        }
    }
    let took = started.elapsed();
    let peak = peak_kib();
    assert!(
        peak < PEAK_LIMIT_KIB,
        "peak resident memory {peak} KiB, over {PEAK_LIMIT_KIB} KiB"
    );
    println!(
        "test billion_epoch ... ok ({RANKS} ranks x {BATCHES} batches of {BATCH} from 10^9 samples in {:.0} ms, peak {} MiB)",
        took.as_secs_f64() * 1e3,
        peak / 1024
    );
}

/// The process's peak resident memory, from /proc/self/status.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

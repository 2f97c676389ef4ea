//! What a loader leaves behind when it is stopped early or a node panics:
//! no hang, no thread or file descriptor left (counted from /proc/self),
//! memory back to where it was.
//!
//! - an epoch dropped in the middle, the loader kept and dropped later;
//! - a loader dropped with batches in flight (slow samples, deep prefetch);
//! - a node that panics inside the worker pool.
//!
//! Each runs many times over memory-mapped `.npy` samples (file
//! descriptors and maps) and real worker pools. Its own harness
//! (`harness = false`): one process, no other test's threads beside it,
//! and a watchdog that fails the run instead of letting a hang stall CI.

use std::path::Path;
use std::time::{Duration, Instant};

use adl::files::Npy;
use adl::graph::loader::Loader;
use adl::ndarray::{Array2, Ix2};
use adl::prelude::*;

fn main() {
    // A hang fails the run (CI would otherwise wait for its time limit).
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(240));
        eprintln!("faults: still running after 240 s: a loader hangs");
        std::process::exit(1);
    });
    // The deliberate panics of `explode` are expected: not printed.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if !message.contains("a sample of 777") {
            report(info);
        }
    }));
    let baseline = Resources::now();
    // Warm up: the first runs grow the allocator's arenas and the page
    // cache's maps; what comes after must not grow.
    for _ in 0..3 {
        epoch_dropped_in_the_middle();
        loader_dropped_with_batches_in_flight();
        panicking_node_inside_the_pool();
    }
    settled(&baseline, "the warm-up");
    let warm = Resources::now();
    for round in 0..15 {
        epoch_dropped_in_the_middle();
        loader_dropped_with_batches_in_flight();
        panicking_node_inside_the_pool();
        settled(&baseline, &format!("round {round}"));
    }
    let end = Resources::now();
    // Memory back to where it was: 15 rounds of three loaders each, with
    // 64 KiB batches, may move the resident set by allocator noise only.
    let grown = end.rss_kib.saturating_sub(warm.rss_kib);
    assert!(
        grown < 8 * 1024,
        "resident memory grew by {grown} KiB over 15 rounds (from {} to {} KiB)",
        warm.rss_kib,
        end.rss_kib
    );
    println!(
        "test faults ... ok (threads {}, fds {}, rss {} -> {} KiB)",
        end.threads, end.fds, warm.rss_kib, end.rss_kib
    );
}

/// What a process holds, from /proc/self.
#[derive(Debug, Clone, Copy)]
struct Resources {
    threads: usize,
    fds: usize,
    rss_kib: u64,
}

impl Resources {
    fn now() -> Resources {
        let count = |dir: &str| std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0);
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let rss_kib = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0);
        Resources {
            // This thread and the watchdog are in the baseline too.
            threads: count("/proc/self/task"),
            fds: count("/proc/self/fd"),
            rss_kib,
        }
    }
}

/// Wait (a pool's threads end after its drop returns) until the threads
/// and descriptors are those of `baseline`; fail naming `after` if they
/// are not within 10 s.
fn settled(baseline: &Resources, after: &str) {
    let start = Instant::now();
    loop {
        let now = Resources::now();
        if now.threads <= baseline.threads && now.fds <= baseline.fds {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "after {after}: {} threads and {} file descriptors, where there were {} and {}",
            now.threads,
            now.fds,
            baseline.threads,
            baseline.fds
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A memory-mapped radar sensor: 5 rows of [2, 3] float32, from the
/// repository's test data.
fn radar() -> Npy<f32, Ix2> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("adl-files/tests/data");
    let times =
        adl::files::read_timestamps("radar", data.join("radar_ts.npy")).expect("radar times");
    Npy::open("radar", data.join("radar.npy"), times).expect("radar.npy")
}

/// `len` samples, each a row of the mapped radar file widened to 64 x 64
/// floats (16 KiB, so that batches are worth pooling), its first value
/// the sample's index; each read takes `delay`.
struct Widened {
    radar: Npy<f32, Ix2>,
    len: usize,
    delay: Duration,
}

impl Widened {
    fn new(len: usize, delay: Duration) -> Widened {
        Widened {
            radar: radar(),
            len,
            delay,
        }
    }
}

impl Dataset for Widened {
    type Sample = Array2<f32>;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Result<Array2<f32>> {
        if !self.delay.is_zero() {
            std::thread::sleep(self.delay);
        }
        let row = self.radar.get(index % self.radar.len())?;
        let mut sample = Array2::from_elem((64, 64), row.sum());
        sample[[0, 0]] = index as f32;
        Ok(sample)
    }
}

fn epoch_dropped_in_the_middle() {
    let loader = Loader::new(
        Widened::new(2000, Duration::ZERO),
        adl::pipeline!(collate: default),
    )
    .batch_size(4)
    .workers(3)
    .batches_ahead(4)
    .shuffle(1)
    .build()
    .expect("a loader");
    for epoch in 0..3 {
        let mut batches = loader.epoch(epoch);
        for _ in 0..5 {
            batches.next().expect("a batch").expect("a good batch");
        }
        drop(batches);
    }
    drop(loader);
}

fn loader_dropped_with_batches_in_flight() {
    let dataset = Widened::new(2000, Duration::from_micros(300));
    let loader = Loader::new(dataset, adl::pipeline!(collate: default))
        .batch_size(8)
        .workers(4)
        .batches_ahead(8)
        .build()
        .expect("a loader");
    let mut batches = loader.epoch(0);
    batches.next().expect("a batch").expect("a good batch");
    // The workers are reading the next eight batches now.
    drop(batches);
    drop(loader);
}

#[transform]
fn explode(x: Array2<f32>) -> Array2<f32> {
    assert!(x[[0, 0]] as usize != 777, "a sample of 777");
    x
}

fn panicking_node_inside_the_pool() {
    // The panic comes at sample 777, well inside the epoch.
    let dataset = Widened::new(1200, Duration::ZERO);
    let loader = Loader::new(
        dataset,
        adl::pipeline! { sample: explode, collate: default },
    )
    .batch_size(4)
    .workers(3)
    .batches_ahead(4)
    .build()
    .expect("a loader");
    let outcome: Vec<Result<_>> = loader.epoch(0).map(|b| b.map(|_| ())).collect();
    let failed = outcome.iter().filter(|r| r.is_err()).count();
    assert_eq!(failed, 1, "one failed batch, then the end");
    match outcome.last() {
        Some(Err(Error::Panic { node, message, .. })) => {
            assert_eq!(node, "explode");
            assert!(message.contains("a sample of 777"), "{message}");
        }
        other => panic!("the epoch should end with the panic, not {other:?}"),
    }
    drop(loader);
}

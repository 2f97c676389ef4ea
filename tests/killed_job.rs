//! A job killed and resumed: a training-like process consumes an epoch's
//! batches, appending each batch's indices with the loader state after
//! it to a log (one line, fsync'd); it is killed with SIGKILL at random
//! points five times, each time restarted from the last state in its log
//! with another worker count, and a last time as two ranks (`RANK`,
//! `WORLD_SIZE`) from the same state. Over the whole epoch every index is
//! consumed exactly once, and the single-rank part in the epoch's order.
//!
//! Its own harness (`harness = false`): the process is either the test
//! or, with `ADL_KILLED_JOB_LOG` set, one run of the job.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use adl::InMemory;
use adl::graph::loader::{Loader, LoaderState};
use adl::pipeline::Stages;

/// The epoch's samples: each is its own index.
const SAMPLES: usize = 1600;
const BATCH: usize = 8;
const SEED: u64 = 7;
const EPOCH: u64 = 4;

fn main() {
    match std::env::var_os("ADL_KILLED_JOB_LOG") {
        Some(log) => job(Path::new(&log)),
        None => {
            killed_and_resumed();
            println!("test killed_and_resumed ... ok");
        }
    }
}

/// The loader every run of the job builds (the workers and the rank
/// change between runs; the order does not).
fn loader(workers: usize) -> Loader<InMemory<usize>, Stages> {
    Loader::new((0..SAMPLES).collect::<InMemory<usize>>(), Stages::new())
        .batch_size(BATCH)
        .shuffle(SEED)
        .workers(workers)
        .shard_from_env()
        .build()
        .expect("the job's loader")
}

/// The complete lines of a log (a line cut by a kill is not one), each
/// a batch's indices and the state after it.
fn entries(log: &Path) -> Vec<(Vec<usize>, LoaderState)> {
    let mut text = String::new();
    if let Ok(mut file) = File::open(log) {
        file.read_to_string(&mut text).expect("read the log");
    }
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    complete
        .lines()
        .map(|line| serde_json::from_str(line).expect("a log line"))
        .collect()
}

/// One run of the job: resume from the last state of `ADL_KILLED_JOB_FROM`
/// (or start the epoch), and log every batch to `log`.
fn job(log: &Path) {
    let workers: usize = std::env::var("ADL_KILLED_JOB_WORKERS")
        .expect("ADL_KILLED_JOB_WORKERS")
        .parse()
        .expect("a worker count");
    let from = PathBuf::from(std::env::var_os("ADL_KILLED_JOB_FROM").expect("ADL_KILLED_JOB_FROM"));
    // Drop the line a kill cut short, so the next one starts on its own.
    let kept = entries(log).len();
    let mut text = std::fs::read_to_string(log).unwrap_or_default();
    let end = text
        .match_indices('\n')
        .nth(kept.wrapping_sub(1))
        .map_or(0, |(at, _)| at + 1);
    if end != text.len() {
        text.truncate(end);
        std::fs::write(log, &text).expect("cut the log");
    }
    let loader = loader(workers);
    let epoch = match entries(&from).pop() {
        Some((_, state)) => loader.resume(&state).expect("resume"),
        None => loader.epoch(EPOCH),
    };
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("open the log");
    let mut epoch = epoch;
    while let Some(batch) = epoch.next() {
        let batch = batch.expect("a batch").into_inner();
        // A training step.
        std::thread::sleep(Duration::from_millis(2));
        let line = serde_json::to_string(&(batch, epoch.state())).expect("encode");
        out.write_all(format!("{line}\n").as_bytes())
            .expect("write the log");
        out.sync_data().expect("fsync the log");
    }
}

/// A run of the job as a child process.
fn spawn(log: &Path, from: &Path, workers: usize, rank: usize, world: usize) -> Child {
    Command::new(std::env::current_exe().expect("this test's path"))
        .env("ADL_KILLED_JOB_LOG", log)
        .env("ADL_KILLED_JOB_FROM", from)
        .env("ADL_KILLED_JOB_WORKERS", workers.to_string())
        .env("RANK", rank.to_string())
        .env("WORLD_SIZE", world.to_string())
        .spawn()
        .expect("start the job")
}

/// A small generator of kill times (the same every run).
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

fn killed_and_resumed() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("killed-job-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the test's folder");
    let log = dir.join("rank-all.log");
    let _ = std::fs::remove_file(&log);

    // Five runs killed at random points in the middle of the epoch.
    let mut times = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut kills = 0;
    for workers in [2, 0, 3, 1, 4] {
        let before = entries(&log).len();
        let mut child = spawn(&log, &log, workers, 0, 1);
        // Wait until it has consumed a few batches, then a random while.
        let started = Instant::now();
        while entries(&log).len() < before + 3 {
            if let Some(status) = child.try_wait().expect("the job's status") {
                panic!("the job ended before it was killed ({status})");
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the job makes no progress"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(10 + times.below(120)));
        child.kill().expect("SIGKILL the job");
        child.wait().expect("reap the job");
        kills += 1;
        let after = entries(&log);
        let consumed: usize = after.iter().map(|(b, _)| b.len()).sum();
        assert!(
            consumed < SAMPLES,
            "the epoch ended before kill {kills}: make the job slower"
        );
    }
    assert_eq!(kills, 5);

    // The rest as two ranks, from the same last state.
    let ranks: Vec<PathBuf> = (0..2)
        .map(|rank| dir.join(format!("rank-{rank}.log")))
        .collect();
    let children: Vec<Child> = ranks
        .iter()
        .enumerate()
        .map(|(rank, rank_log)| {
            let _ = std::fs::remove_file(rank_log);
            spawn(rank_log, &log, 1, rank, 2)
        })
        .collect();
    for mut child in children {
        let status = child.wait().expect("wait for a rank");
        assert!(status.success(), "a rank failed ({status})");
    }

    // The single-rank part is the uninterrupted epoch's beginning, in
    // order; with the ranks' parts, every index once.
    let single: Vec<usize> = entries(&log).into_iter().flat_map(|(b, _)| b).collect();
    let reference = loader(0);
    let whole: Vec<usize> = reference
        .epoch(EPOCH)
        .flat_map(|b| b.expect("a batch").into_inner())
        .collect();
    assert_eq!(
        single,
        whole[..single.len()],
        "the killed runs read out of order"
    );
    let mut all = single;
    for rank_log in &ranks {
        all.extend(entries(rank_log).into_iter().flat_map(|(b, _)| b));
    }
    let read = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), read, "an index was consumed twice");
    assert_eq!(
        all,
        (0..SAMPLES).collect::<Vec<_>>(),
        "an index was never consumed"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

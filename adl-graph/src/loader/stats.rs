//! Per-node statistics of a loader, and the report that names its
//! bottleneck.

use adl_exec::BufferStatistics;
use std::fmt;
use std::time::Duration;

use super::context::{Counters, Runs, TIME_BATCHES_EVERY, TIME_BATCHES_FIRST, TIME_EVERY};
use super::read_ahead::ReadStatistics;
use super::sensor_reads::SensorReads;
use adl_core::description::Device;

/// What a row of the [`Statistics`] measures. Every row's time is time of
/// the threads that build batches (the workers, and the consumer's while
/// it helps), so that rows compare: the read stage's own threads are in
/// [`Statistics::reads`] and [`Statistics::sensors`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Measured {
    /// A node of the pipeline (from its `pipeline!` description).
    Node(adl_core::description::Stage),
    /// Reading samples from the dataset (its `get`, without a read stage).
    Read,
    /// Decoding samples that the read stage read ahead: the dataset's
    /// `get` after its fetch (the reads themselves are the read stage's).
    Decode,
    /// The workers' wait for the read stage to finish reads they need.
    ReadWait,
    /// A whole stage (all its nodes together, and the glue between them).
    Stage(adl_core::description::Stage),
}

impl fmt::Display for Measured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measured::Node(stage) => write!(f, "{stage} node"),
            Measured::Read => f.write_str("read"),
            Measured::Decode => f.write_str("decode"),
            Measured::ReadWait => f.write_str("read wait"),
            Measured::Stage(stage) => write!(f, "{stage} stage"),
        }
    }
}

/// How far ahead of every other row the bottleneck's time must be for the
/// [`Statistics`] to name it: a quarter. Rows closer than that are named
/// together, none of them the bottleneck, so that runs of the same loader
/// do not name one, then the other, of two stages that take about the same
/// time (their times, some estimated from one call in 64, vary from run to
/// run by more than their difference).
pub(crate) const BOTTLENECK_MARGIN: f64 = 0.25;

/// How a kernel node ran, as the loader recorded it: on which device, and
/// with which nodes as one kernel or loop. What the
/// [plan](super::Loader::plan) scheduled, unless a batch could not run
/// there (then `varied` says it ran in more than one way).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KernelRun {
    /// Where it ran: [`Device::OpenCl`] on the loader's device, else the
    /// CPU (its Rust body, or a fused loop).
    pub device: Device,
    /// The nodes it ran as one with, by path, itself included; empty when
    /// it ran alone.
    pub fused_with: Vec<String>,
    /// Whether it ran in more than one way (device or group) over the
    /// batches since the statistics began.
    pub varied: bool,
}

/// One row of the [`Statistics`]: a node, the dataset reads, or a stage.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NodeStatistics {
    /// The node's path (`camera/default`: its branches and its name, as
    /// errors name it; `dataset` for reads, the stage's name for a stage).
    pub name: String,
    /// What the row measures.
    pub measured: Measured,
    /// How many times it ran (samples for the read and sample rows,
    /// batches for the others).
    pub calls: u64,
    /// How many of the calls were timed: one in 64 of a node's; of the
    /// collate and batch stages, and of reads and sample stages run on a
    /// batch's samples together, those of an epoch's first 4 batches and
    /// of one batch in 8.
    pub timed_calls: u64,
    /// Its time, summed over all threads: measured for every timed call,
    /// estimated for the others from the timed ones' mean.
    pub time: Duration,
    /// How it ran, for a kernel node that ran (none for any other row).
    pub kernel: Option<KernelRun>,
}

impl NodeStatistics {
    /// Calls per second of its own time (per thread).
    pub fn throughput(&self) -> f64 {
        let s = self.time.as_secs_f64();
        if s > 0.0 { self.calls as f64 / s } else { 0.0 }
    }
}

/// Statistics of a loader since it was built (or since
/// [`Loader::reset_statistics`](super::Loader::reset_statistics)): per node,
/// calls, time and throughput; what the consumer waited; the bottleneck.
///
/// Its `Display` is a report (here of a loader whose read stage reads
/// two sensors ahead; the workers decode):
///
/// ```text
/// 17 batches, 540 samples (0 skipped) in 882.8 ms: 611.7 samples/s, 2 workers, 4 batches ahead
/// the consumer waited 882.7 ms (100%) for batches
/// read stage: 540 reads (0 failed), 89.6 MB in 1.85 s on 8 readers; workers waited 2.0 ms for reads; ...
///   camera  540 reads (0 failed), 52.0 MB in 1.21 s, 2.2 ms per read
///   radar   540 reads (0 failed), 37.6 MB in 0.64 s, 1.2 ms per read
/// node          what           calls       time   per call     calls/s
/// w4_transform  sample node      540   615.3 ms     1.1 ms      877.7
/// dataset       decode           540     1.17 s     2.2 ms      462.2
/// read stage    read wait        540     2.0 ms     3.7 us     270.0 k
/// ...
/// bottleneck: `dataset` (decode), 1.17 s of 1.84 s of worker time (...)
/// ```
///
/// Where two rows are within a quarter of each other's time, it names
/// both and neither the bottleneck: `bottleneck: none clear, ...`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Statistics {
    /// One row per node of the pipeline, then the dataset's reads (or,
    /// with a read stage, its decoding and the workers' wait for the read
    /// stage), then the stages.
    pub nodes: Vec<NodeStatistics>,
    /// Batches delivered.
    pub batches: u64,
    /// Samples in the delivered batches.
    pub samples: u64,
    /// Samples skipped (`OnError::Skip`).
    pub skipped: u64,
    /// Wall time of the epochs, from asking for the first batch to
    /// receiving the last.
    pub wall: Duration,
    /// Of it, the time the consumer waited for a batch (with 0 workers,
    /// the time it took to build them).
    pub waited: Duration,
    /// Of the time it waited, the time the consumer's thread spent
    /// building batches itself meanwhile (see
    /// [`LoaderBuilder::build_while_waiting`](super::LoaderBuilder::build_while_waiting)).
    pub built_by_consumer: Duration,
    /// How many batches the consumer's thread built itself while it waited.
    pub batches_built_by_consumer: u64,
    /// Worker threads.
    pub workers: usize,
    /// Batches built ahead of the consumer at most, as set (or by
    /// default), or as chosen last under a memory budget.
    pub batches_ahead: usize,
    /// How batch memory was served: recycled from dropped batches or
    /// freshly allocated.
    pub buffers: BufferStatistics,
    /// What the read stage did: reads, bytes, read time, the workers'
    /// wait for reads, the most bytes held ahead (all zero without a read
    /// stage).
    pub reads: ReadStatistics,
    /// Per sensor, in the sample's order: what the read stage did (per
    /// part of a sample, as a recording reads each sensor apart) and each
    /// sensor's share of the workers' timed `get`s (its decode, with a read
    /// stage; its read, without): which sensor takes the time (empty where
    /// the dataset names no sensors).
    pub sensors: Vec<SensorReads>,
    /// What a loader under a [memory
    /// budget](super::LoaderBuilder::memory_budget) chose last, and why
    /// (`None` without a budget, or before its first epoch).
    pub tuning: Option<super::Tuning>,
}

impl Statistics {
    /// The bottleneck, where one is clear: the pipeline node, the dataset's
    /// reads or decoding, the wait for the read stage, or (for a stage with
    /// no node rows) the stage whose time is ahead of every other's by
    /// a quarter: where speed is won. `None` before anything
    /// ran, or when two or more are close ([`contenders`](Self::contenders)
    /// names them).
    pub fn bottleneck(&self) -> Option<&NodeStatistics> {
        match self.contenders().as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The rows that could be the bottleneck, most time first: the one
    /// with the most time, and every other within a quarter of
    /// it (one row: a clear bottleneck; empty before anything ran).
    pub fn contenders(&self) -> Vec<&NodeStatistics> {
        let mut leaves: Vec<&NodeStatistics> = self
            .leaves()
            .filter(|n| n.calls > 0 && !n.time.is_zero())
            .collect();
        // Most time first; equal times in row order, so that the list is
        // the same for the same times.
        leaves.sort_by_key(|n| std::cmp::Reverse(n.time));
        let Some(most) = leaves.first().map(|n| n.time.as_secs_f64()) else {
            return Vec::new();
        };
        leaves
            .into_iter()
            .take_while(|n| n.time.as_secs_f64() * (1.0 + BOTTLENECK_MARGIN) > most)
            .collect()
    }

    /// The rows that do not contain others: the nodes, the reads (or
    /// decoding and the wait for the read stage), and the stages without
    /// node rows of their own (a pipeline built without `pipeline!` has no
    /// node rows: its stages are what there is).
    fn leaves(&self) -> impl Iterator<Item = &NodeStatistics> {
        self.nodes.iter().filter(|n| match n.measured {
            Measured::Stage(stage) => !self
                .nodes
                .iter()
                .any(|m| m.measured == Measured::Node(stage)),
            Measured::Node(_) | Measured::Read | Measured::Decode | Measured::ReadWait => true,
        })
    }

    /// Samples delivered per second of wall time.
    pub fn samples_per_second(&self) -> f64 {
        let s = self.wall.as_secs_f64();
        if s > 0.0 {
            self.samples as f64 / s
        } else {
            0.0
        }
    }

    pub(crate) fn from_counters(
        rows: &[(String, Measured)],
        counters: &Counters,
        runs: &Runs,
        totals: Totals,
        buffers: BufferStatistics,
        reads: ReadStatistics,
        sensors: Vec<SensorReads>,
    ) -> Self {
        let mut nodes: Vec<NodeStatistics> = rows
            .iter()
            .enumerate()
            .map(|(slot, (name, measured))| {
                let (calls, timed_calls, time) = counters.estimate(slot);
                let kernel = runs.get(slot).map(|ran| {
                    let (first, len) = ran.group;
                    KernelRun {
                        device: ran.device,
                        fused_with: if len >= 2 {
                            rows.iter()
                                .skip(first)
                                .take(len)
                                .map(|(name, _)| name.clone())
                                .collect()
                        } else {
                            Vec::new()
                        },
                        varied: ran.varied,
                    }
                });
                NodeStatistics {
                    name: name.clone(),
                    measured: *measured,
                    calls,
                    timed_calls,
                    time,
                    kernel,
                }
            })
            .collect();
        if reads.threads > 0 {
            // The workers' wait for the read stage, after the dataset's
            // row: the read stage is the bottleneck when it is the most.
            let at = nodes
                .iter()
                .position(|n| matches!(n.measured, Measured::Read | Measured::Decode))
                .map_or(nodes.len(), |k| k + 1);
            nodes.insert(
                at,
                NodeStatistics {
                    name: "read stage".to_owned(),
                    measured: Measured::ReadWait,
                    calls: reads.reads,
                    timed_calls: reads.reads,
                    time: reads.wait,
                    kernel: None,
                },
            );
        }
        Statistics {
            nodes,
            batches: totals.batches,
            samples: totals.samples,
            skipped: totals.skipped,
            wall: totals.wall,
            waited: totals.waited,
            built_by_consumer: totals.built_here,
            batches_built_by_consumer: totals.batches_built_here,
            workers: totals.workers,
            // The loader's policy says; set by `Loader::statistics`.
            batches_ahead: 0,
            buffers,
            reads,
            sensors,
            tuning: None,
        }
    }
}

/// The loader-wide totals that go with the counters.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub(crate) batches: u64,
    pub(crate) samples: u64,
    pub(crate) skipped: u64,
    pub(crate) wall: Duration,
    pub(crate) waited: Duration,
    pub(crate) built_here: Duration,
    pub(crate) batches_built_here: u64,
    pub(crate) workers: usize,
}

/// `1.23 s`, `45.6 ms`, `7.8 us`.
pub(super) fn human(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

/// `12.3 MB`, `4.0 kB`.
pub(super) fn bytes(n: usize) -> String {
    let x = n as f64;
    if x >= 1e9 {
        format!("{:.2} GB", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} MB", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} kB", x / 1e3)
    } else {
        format!("{n} B")
    }
}

/// `12.3 k`, `4.5 M`.
fn rate(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} k", x / 1e3)
    } else {
        format!("{x:.1} ")
    }
}

impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} batches, {} samples ({} skipped) in {}: {}samples/s, {} worker{}, {} batch{} ahead",
            self.batches,
            self.samples,
            self.skipped,
            human(self.wall),
            rate(self.samples_per_second()),
            self.workers,
            if self.workers == 1 { "" } else { "s" },
            self.batches_ahead,
            if self.batches_ahead == 1 { "" } else { "es" },
        )?;
        let share = if self.wall.is_zero() {
            0.0
        } else {
            100.0 * self.waited.as_secs_f64() / self.wall.as_secs_f64()
        };
        writeln!(
            f,
            "the consumer waited {} ({share:.0}%) for batches",
            human(self.waited)
        )?;
        if self.batches_built_by_consumer > 0 {
            writeln!(
                f,
                "and meanwhile built {} of them itself in {}",
                self.batches_built_by_consumer,
                human(self.built_by_consumer)
            )?;
        }
        let b = &self.buffers;
        let served = b.reused + b.allocated;
        if served > 0 {
            writeln!(
                f,
                "batch memory: {} of {served} buffers recycled ({:.0}%), {} held of at most {}",
                b.reused,
                100.0 * b.reused as f64 / served as f64,
                bytes(b.held_bytes),
                bytes(b.limit_bytes),
            )?;
        }
        if let Some(tuning) = &self.tuning {
            writeln!(f, "{tuning}")?;
        }
        let r = &self.reads;
        if r.threads > 0 {
            writeln!(
                f,
                "read stage: {} reads ({} failed), {} in {} on {} readers; workers waited {} for reads; at most {} ahead (bound {})",
                r.reads,
                r.failed,
                bytes(r.bytes as usize),
                human(r.time),
                r.threads,
                human(r.wait),
                bytes(r.peak as usize),
                bytes(r.bound as usize),
            )?;
            if r.unused > 0 {
                writeln!(
                    f,
                    "read stage: {} reads ahead dropped unused by the dataset's get: a wrapper gives its source's storage() but not get_fetched(), so those samples were read twice",
                    r.unused
                )?;
            }
            let width = self.sensors.iter().map(|s| s.name.len()).max().unwrap_or(0);
            for s in self.sensors.iter().filter(|s| s.reads > 0) {
                let per_read = s.time / s.reads.min(u64::from(u32::MAX)) as u32;
                writeln!(
                    f,
                    "  {:<width$}  {} reads ({} failed), {} in {}, {} per read",
                    s.name,
                    s.reads,
                    s.failed,
                    bytes(s.bytes as usize),
                    human(s.time),
                    human(per_read),
                )?;
            }
        }
        let got: Duration = self.sensors.iter().map(|s| s.get_time).sum();
        if !got.is_zero() {
            let what = if r.threads > 0 { "decode" } else { "read" };
            writeln!(f, "the dataset's {what} per sensor, of the timed gets:")?;
            let width = self.sensors.iter().map(|s| s.name.len()).max().unwrap_or(0);
            for s in self.sensors.iter().filter(|s| s.gets > 0) {
                let per_get = s.get_time / s.gets.min(u64::from(u32::MAX)) as u32;
                writeln!(
                    f,
                    "  {:<width$}  {} per get, {:.0}%",
                    s.name,
                    human(per_get),
                    100.0 * s.get_time.as_secs_f64() / got.as_secs_f64(),
                )?;
            }
        }
        let width = self
            .nodes
            .iter()
            .map(|n| n.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        writeln!(
            f,
            "{:<width$}  {:<13} {:>9} {:>10} {:>10} {:>11}",
            "node", "what", "calls", "time", "per call", "calls/s"
        )?;
        for n in self.nodes.iter().filter(|n| n.calls > 0) {
            let per_call = if n.calls == 0 {
                Duration::ZERO
            } else {
                n.time / n.calls.min(u64::from(u32::MAX)) as u32
            };
            let ran = match &n.kernel {
                Some(k) => {
                    let mut ran = format!("  kernel on {}", k.device);
                    if !k.fused_with.is_empty() {
                        ran.push_str(&format!(", as one with {}", k.fused_with.join(" + ")));
                    }
                    if k.varied {
                        ran.push_str(" (not every batch)");
                    }
                    ran
                }
                None => String::new(),
            };
            writeln!(
                f,
                "{:<width$}  {:<13} {:>9} {:>10} {:>10} {:>11}{ran}",
                n.name,
                n.measured.to_string(),
                n.calls,
                human(n.time),
                human(per_call),
                rate(n.throughput()),
            )?;
        }
        let name = |n: &NodeStatistics| match &n.kernel {
            // A group of kernels run as one is timed on its first node.
            Some(k) if !k.fused_with.is_empty() => format!(
                "`{}` ({} nodes run as one)",
                k.fused_with.join(" + "),
                k.fused_with.len()
            ),
            _ => format!("`{}` ({})", n.name, n.measured),
        };
        let total: Duration = self.leaves().map(|n| n.time).sum();
        let estimated = format!(
            "per-sample times estimated from 1 call in {TIME_EVERY}, per-batch ones from an epoch's first {TIME_BATCHES_FIRST} batches and 1 in {TIME_BATCHES_EVERY}"
        );
        match self.contenders().as_slice() {
            [] => write!(f, "bottleneck: nothing ran yet"),
            [b] => write!(
                f,
                "bottleneck: {}, {} of {} of worker time ({estimated})",
                name(b),
                human(b.time),
                human(total)
            ),
            close => {
                let named: Vec<String> = close
                    .iter()
                    .map(|n| format!("{} {}", name(n), human(n.time)))
                    .collect();
                write!(
                    f,
                    "bottleneck: none clear, {} are within {:.0}% of each other, of {} of worker time ({estimated})",
                    named.join(", "),
                    BOTTLENECK_MARGIN * 100.0,
                    human(total)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adl_core::description::Stage;

    /// A row of `name` that took `ms` milliseconds over 100 calls.
    fn row(name: &str, measured: Measured, ms: u64) -> NodeStatistics {
        NodeStatistics {
            name: name.to_owned(),
            measured,
            calls: 100,
            timed_calls: 100,
            time: Duration::from_millis(ms),
            kernel: None,
        }
    }

    /// Statistics of a loader whose decode took `decode` ms, its `flip`
    /// node `flip` ms, and whose workers waited `wait` ms for reads.
    fn statistics(decode: u64, flip: u64, wait: u64) -> Statistics {
        let reads = ReadStatistics {
            threads: 8,
            reads: 100,
            wait: Duration::from_millis(wait),
            ..ReadStatistics::default()
        };
        let mut s = Statistics {
            nodes: vec![
                row("flip", Measured::Node(Stage::Sample), flip),
                row("dataset", Measured::Decode, decode),
                row("read stage", Measured::ReadWait, wait),
                row("sample", Measured::Stage(Stage::Sample), flip + 1),
                row("collate", Measured::Stage(Stage::Collate), 1),
            ],
            batches: 10,
            samples: 100,
            skipped: 0,
            wall: Duration::from_millis(500),
            waited: Duration::from_millis(100),
            built_by_consumer: Duration::ZERO,
            batches_built_by_consumer: 0,
            workers: 2,
            batches_ahead: 4,
            buffers: BufferStatistics::default(),
            reads,
            sensors: vec![SensorReads {
                name: "camera".into(),
                reads: 100,
                failed: 0,
                bytes: 1000,
                time: Duration::from_millis(40),
                gets: 10,
                get_time: Duration::from_millis(30),
            }],
            tuning: None,
        };
        s.nodes.retain(|n| !n.time.is_zero());
        s
    }

    #[test]
    fn a_bottleneck_clearly_ahead_is_named() {
        let s = statistics(300, 100, 20);
        assert_eq!(s.bottleneck().map(|n| n.name.as_str()), Some("dataset"));
        let text = s.to_string();
        assert!(
            text.contains("bottleneck: `dataset` (decode), 300.0 ms of"),
            "{text}"
        );
        // The sensor's reads, on their own line; a stage with node rows is
        // not a contender.
        assert!(
            text.contains("  camera  100 reads (0 failed), 1.0 kB in 40.0 ms, 400.0 us per read"),
            "{text}"
        );
        // The read stage, when the workers wait for it most.
        let starved = statistics(100, 100, 400);
        assert_eq!(
            starved.bottleneck().map(|n| n.measured),
            Some(Measured::ReadWait)
        );
    }

    #[test]
    fn close_rows_are_named_together_and_none_is_the_bottleneck() {
        let s = statistics(300, 280, 20);
        assert!(s.bottleneck().is_none());
        let names: Vec<&str> = s.contenders().iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["dataset", "flip"]);
        let text = s.to_string();
        assert!(
            text.contains("bottleneck: none clear, `dataset` (decode) 300.0 ms, `flip` (sample node) 280.0 ms are within 25% of each other"),
            "{text}"
        );
    }

    #[test]
    fn runs_that_differ_by_their_noise_name_the_same() {
        // Two rows 10% apart, each time off by up to 10% from run to run
        // (the estimates of one call in 64 vary so): never one named, then
        // the other.
        for decode in [270, 285, 300, 315, 330] {
            for flip in [243, 256, 270, 283, 297] {
                let s = statistics(decode, flip, 20);
                let named = s.bottleneck().map(|n| n.name.clone());
                assert!(
                    named.is_none() || named.as_deref() == Some("dataset"),
                    "{decode} {flip}: {named:?}"
                );
                assert_ne!(named.as_deref(), Some("flip"), "{decode} {flip}");
            }
        }
        // One row twice another stays named through the same noise.
        for decode in [540, 600, 660] {
            for flip in [243, 270, 297] {
                let s = statistics(decode, flip, 20);
                assert_eq!(s.bottleneck().map(|n| n.name.as_str()), Some("dataset"));
            }
        }
    }

    #[test]
    fn nothing_ran_nothing_named() {
        let mut s = statistics(0, 0, 0);
        s.nodes.clear();
        assert!(s.contenders().is_empty());
        assert!(s.to_string().ends_with("bottleneck: nothing ran yet"));
    }
}

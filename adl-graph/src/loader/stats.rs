//! Per-node statistics of a loader, and the report that names its
//! bottleneck.

use adl_core::exec::BufferStatistics;
use std::fmt;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use super::context::{Counters, Runs, TIME_EVERY};
use super::read_ahead::ReadStatistics;
use adl_core::graph::Device;

/// What a row of the [`Statistics`] measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Measured {
    /// A node of the pipeline (from its `pipeline!` description).
    Node(adl_core::graph::Stage),
    /// Reading samples from the dataset.
    Read,
    /// A whole stage (all its nodes together, and the glue between them).
    Stage(adl_core::graph::Stage),
}

impl fmt::Display for Measured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measured::Node(stage) => write!(f, "{stage} node"),
            Measured::Read => f.write_str("read"),
            Measured::Stage(stage) => write!(f, "{stage} stage"),
        }
    }
}

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
    /// How many of the calls were timed (one in 64 of the per-sample rows,
    /// every per-batch call).
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
/// Its `Display` is a report:
///
/// ```text
/// 313 batches, 20000 samples (0 skipped) in 1.42 s: 14.1 k samples/s, 2 workers
/// the consumer waited 1.20 s (84%) for batches
/// node                    what          calls    time   per call
/// dataset                 read          20000  0.18 s     9.0 us
/// flip                    sample node   20000  1.60 s    80.0 us
/// ...
/// bottleneck: `flip` (sample node), 1.60 s of 2.31 s of node time
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Statistics {
    /// One row per node of the pipeline, then the dataset reads, then the
    /// stages.
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
    /// How batch memory was served: recycled from dropped batches or
    /// freshly allocated.
    pub buffers: BufferStatistics,
    /// What the read stage did: reads, bytes, read time, the workers'
    /// wait for reads, the most bytes held ahead (all zero without a read
    /// stage).
    pub reads: ReadStatistics,
}

impl Statistics {
    /// The pipeline node, the dataset reads or (for a stage with no node
    /// rows) the stage with the most time: where speed is won. `None`
    /// before anything ran.
    pub fn bottleneck(&self) -> Option<&NodeStatistics> {
        self.leaves().filter(|n| n.calls > 0).max_by_key(|n| n.time)
    }

    /// The rows that do not contain others: the nodes, the reads, and the
    /// stages without node rows of their own (a pipeline built without
    /// `pipeline!` has no node rows: its stages are what there is).
    fn leaves(&self) -> impl Iterator<Item = &NodeStatistics> {
        self.nodes.iter().filter(|n| match n.measured {
            Measured::Stage(stage) => !self
                .nodes
                .iter()
                .any(|m| m.measured == Measured::Node(stage)),
            Measured::Node(_) | Measured::Read => true,
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
    ) -> Self {
        let nodes = rows
            .iter()
            .enumerate()
            .map(|(slot, (name, measured))| {
                let calls = counters.calls[slot].load(Relaxed);
                let timed_calls = counters.timed[slot].load(Relaxed);
                let nanos = counters.nanos[slot].load(Relaxed);
                let estimate = if timed_calls == 0 {
                    0
                } else {
                    (u128::from(nanos) * u128::from(calls) / u128::from(timed_calls)) as u64
                };
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
                    time: Duration::from_nanos(estimate),
                    kernel,
                }
            })
            .collect();
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
            buffers,
            reads,
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
fn human(d: Duration) -> String {
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
fn bytes(n: usize) -> String {
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
            "{} batches, {} samples ({} skipped) in {}: {}samples/s, {} worker{}",
            self.batches,
            self.samples,
            self.skipped,
            human(self.wall),
            rate(self.samples_per_second()),
            self.workers,
            if self.workers == 1 { "" } else { "s" },
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
        match self.bottleneck() {
            Some(b) => {
                let total: Duration = self.leaves().map(|n| n.time).sum();
                // A group of kernels run as one is timed on its first node.
                let (name, what) = match &b.kernel {
                    Some(k) if !k.fused_with.is_empty() => (
                        k.fused_with.join(" + "),
                        format!("{} nodes run as one", k.fused_with.len()),
                    ),
                    _ => (b.name.clone(), b.measured.to_string()),
                };
                write!(
                    f,
                    "bottleneck: `{name}` ({what}), {} of {} of node time (per-sample times estimated from 1 call in {TIME_EVERY})",
                    human(b.time),
                    human(total)
                )
            }
            None => write!(f, "bottleneck: nothing ran yet"),
        }
    }
}

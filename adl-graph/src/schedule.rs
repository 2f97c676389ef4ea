//! The schedule: what a plan says runs where. A loader makes its plan
//! once, from its settings ([`Settings`]), and runs it: the pool of each
//! stage and its threads, the device of every batch node, the groups of
//! kernels that run as one. [`Plan::schedule`](crate::Plan::schedule)
//! gives it; the DOT and SVG draw it.

use std::fmt;

use adl_exec::{Accelerator, ElementType};

/// What a plan is scheduled for: the loader's settings, and what they
/// found (the device). [`Settings::default`] is what a loader with one
/// worker and no device would run: the plan [`Planner::plan`](crate::Planner::plan)
/// makes without a loader.
///
/// ```
/// use adl::graph::Settings;
///
/// let settings = Settings::default().workers(4).fusion(false);
/// assert_eq!(settings.threads(), 4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// Worker threads (0: the consumer's thread builds every batch).
    pub workers: usize,
    /// Whether the consumer's thread builds batches while it waits.
    pub consumer_helps: bool,
    /// The device of the batch kernels, if one was chosen.
    pub device: Option<DeviceFacts>,
    /// Why that device, or why none (`the first GPU`, `ADL_OPENCL_DEVICE=rust`).
    pub device_why: String,
    /// Whether consecutive batch kernels run as one.
    pub fusion: bool,
    /// The read stage's threads and bound in bytes, where there is one
    /// (none: the workers read for themselves).
    pub reads: Option<(usize, u64)>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            workers: 1,
            consumer_helps: true,
            device: None,
            device_why: "no device given".to_owned(),
            fusion: true,
            reads: None,
        }
    }
}

impl Settings {
    /// With `workers` worker threads.
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers;
        self
    }

    /// With the consumer's thread building batches while it waits, or not.
    pub fn consumer_helps(mut self, helps: bool) -> Self {
        self.consumer_helps = helps;
        self
    }

    /// With batch kernels on `device`, chosen for the reason `why`.
    pub fn device(mut self, device: DeviceFacts, why: impl Into<String>) -> Self {
        self.device = Some(device);
        self.device_why = why.into();
        self
    }

    /// Without a device (kernels run their Rust bodies), for the reason
    /// `why`.
    pub fn no_device(mut self, why: impl Into<String>) -> Self {
        self.device = None;
        self.device_why = why.into();
        self
    }

    /// With a read stage of `threads` readers, at most `bound` bytes ahead.
    pub fn reads(mut self, threads: usize, bound: u64) -> Self {
        self.reads = (threads > 0).then_some((threads, bound));
        self
    }

    /// With fusion of consecutive batch kernels on or off.
    pub fn fusion(mut self, on: bool) -> Self {
        self.fusion = on;
        self
    }

    /// The threads that build batches: the workers, or the consumer's
    /// thread alone when there are none.
    pub fn threads(&self) -> usize {
        self.workers.max(1)
    }
}

/// What a plan knows of a device: its name and the element types it
/// cannot run (a device without `cl_khr_fp64` has no `double`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFacts {
    /// The device, in words.
    pub name: String,
    /// The element types its kernels cannot read or write.
    pub unsupported: Vec<ElementType>,
}

impl DeviceFacts {
    /// The facts of `device`, asked of it.
    pub fn of(device: &dyn Accelerator) -> Self {
        DeviceFacts {
            name: device.name().to_owned(),
            unsupported: ElementType::ALL
                .into_iter()
                .filter(|&e| !device.supports(e))
                .collect(),
        }
    }

    /// A device called `name` that runs every element type.
    pub fn named(name: impl Into<String>) -> Self {
        DeviceFacts {
            name: name.into(),
            unsupported: Vec::new(),
        }
    }

    /// Whether its kernels read and write `element`.
    pub fn supports(&self, element: ElementType) -> bool {
        !self.unsupported.contains(&element)
    }
}

/// One of the loader's stages, in the order a batch goes through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoaderStage {
    /// Reading samples from the dataset.
    Read,
    /// The sample stage (pre and sample nodes), per sample.
    Sample,
    /// The collate, per batch.
    Collate,
    /// The batch stage (batch and post nodes), per batch.
    Batch,
}

impl LoaderStage {
    /// Every stage, in order.
    pub const ALL: [LoaderStage; 4] = [
        LoaderStage::Read,
        LoaderStage::Sample,
        LoaderStage::Collate,
        LoaderStage::Batch,
    ];

    /// The stage's name: `read`, `sample`, `collate`, `batch`.
    pub fn name(self) -> &'static str {
        match self {
            LoaderStage::Read => "read",
            LoaderStage::Sample => "sample",
            LoaderStage::Collate => "collate",
            LoaderStage::Batch => "batch",
        }
    }
}

impl fmt::Display for LoaderStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a stage's work runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pool {
    /// On the loader's worker threads, each building whole batches (the
    /// samples of a costly batch split across them), and on the consumer's
    /// thread too while it waits, when it helps.
    Workers {
        /// Worker threads.
        threads: usize,
        /// Whether the consumer's thread builds batches while it waits.
        consumer_helps: bool,
    },
    /// On the consumer's thread alone, when it asks for a batch (0
    /// workers).
    Consumer,
    /// On the read stage's own threads, ahead of the sample stage in the
    /// epoch's order, apart from the workers.
    Readers {
        /// Reader threads (reads in flight at once).
        threads: usize,
        /// The most bytes read ahead and not yet taken (plus one read per
        /// reader).
        bound: u64,
    },
}

impl Pool {
    /// The pool in a few words: `2 workers + consumer`, `consumer thread`.
    pub fn short(&self) -> String {
        self.words(false)
    }

    /// The pool in words, short (`2 workers + consumer`) or long (`workers,
    /// 2 threads + the consumer's while it waits`).
    fn words(&self, long: bool) -> String {
        match (self, long) {
            (
                Pool::Workers {
                    threads,
                    consumer_helps,
                },
                _,
            ) => {
                let s = if *threads == 1 { "" } else { "s" };
                let (pool, helps) = if long {
                    (
                        format!("workers, {threads} thread{s}"),
                        " + the consumer's while it waits",
                    )
                } else {
                    (format!("{threads} worker{s}"), " + consumer")
                };
                if *consumer_helps { pool + helps } else { pool }
            }
            (Pool::Consumer, true) => "the consumer's thread".to_owned(),
            (Pool::Consumer, false) => "consumer thread".to_owned(),
            (Pool::Readers { threads, bound }, true) => {
                format!(
                    "read-ahead, {threads} threads, at most {} ahead",
                    mib(*bound)
                )
            }
            (Pool::Readers { threads, .. }, false) => format!("{threads} readers"),
        }
    }
}

/// `64 MiB`, `1.5 GiB`, `512 KiB`, `100 B`.
fn mib(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if bytes >= size {
            let value = bytes as f64 / size as f64;
            return if bytes.is_multiple_of(size) {
                format!("{} {unit}", bytes / size)
            } else {
                format!("{value:.1} {unit}")
            };
        }
    }
    format!("{bytes} B")
}

impl fmt::Display for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words(true))
    }
}

/// One stage of the schedule and the pool it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StagePlan {
    /// The stage.
    pub stage: LoaderStage,
    /// Where its work runs.
    pub pool: Pool,
}

/// What runs where, as a plan schedules it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Schedule {
    /// The stages in order, each with its pool: the read stage on its
    /// readers where the loader has them ([`Pool::Readers`]), else in each
    /// batch's job like the others.
    pub stages: Vec<StagePlan>,
    /// The device of the batch kernels scheduled on one (none: every
    /// kernel runs its Rust body on the stage's pool).
    pub device: Option<String>,
    /// Why that device, or why none.
    pub device_why: String,
    /// Whether consecutive batch kernels run as one.
    pub fusion: bool,
}

impl Schedule {
    /// The schedule of `settings`.
    pub(crate) fn of(settings: &Settings) -> Self {
        let pool = if settings.workers == 0 {
            Pool::Consumer
        } else {
            Pool::Workers {
                threads: settings.workers,
                consumer_helps: settings.consumer_helps,
            }
        };
        Schedule {
            stages: LoaderStage::ALL
                .into_iter()
                .map(|stage| match (stage, settings.reads) {
                    (LoaderStage::Read, Some((threads, bound))) => StagePlan {
                        stage,
                        pool: Pool::Readers { threads, bound },
                    },
                    _ => StagePlan { stage, pool },
                })
                .collect(),
            device: settings.device.as_ref().map(|d| d.name.clone()),
            device_why: settings.device_why.clone(),
            fusion: settings.fusion,
        }
    }

    /// The pool of `stage`.
    pub fn pool(&self, stage: LoaderStage) -> Option<Pool> {
        self.stages
            .iter()
            .find(|s| s.stage == stage)
            .map(|s| s.pool)
    }

    /// The read stage's reader threads and bound, where it has its own.
    pub fn readers(&self) -> Option<(usize, u64)> {
        self.stages.iter().find_map(|s| match s.pool {
            Pool::Readers { threads, bound } => Some((threads, bound)),
            _ => None,
        })
    }

    /// The worker threads the stages run on (0: the consumer's thread).
    pub fn workers(&self) -> usize {
        self.stages
            .iter()
            .map(|s| match s.pool {
                Pool::Workers { threads, .. } => threads,
                Pool::Consumer | Pool::Readers { .. } => 0,
            })
            .max()
            .unwrap_or(0)
    }
}

impl fmt::Display for Schedule {
    /// One line per pool, with the stages it runs, then the kernels'
    /// device and fusion:
    ///
    /// ```text
    /// read, sample, collate, batch: workers, 2 threads + the consumer's while it waits
    /// kernels: their Rust bodies on the workers (no GPU or accelerator), fused
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pools: Vec<(Pool, Vec<&str>)> = Vec::new();
        for stage in &self.stages {
            match pools.iter_mut().find(|(pool, _)| *pool == stage.pool) {
                Some((_, stages)) => stages.push(stage.stage.name()),
                None => pools.push((stage.pool, vec![stage.stage.name()])),
            }
        }
        for (pool, stages) in pools {
            writeln!(f, "{}: {pool}", stages.join(", "))?;
        }
        match &self.device {
            Some(device) => write!(f, "kernels: on {device} ({})", self.device_why)?,
            None => write!(
                f,
                "kernels: their Rust bodies on the workers ({})",
                self.device_why
            )?,
        }
        f.write_str(if self.fusion {
            ", fused"
        } else {
            ", each alone"
        })
    }
}

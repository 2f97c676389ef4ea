//! The loader: a dataset and a pipeline run as an engine, with workers,
//! batches built ahead, shuffling per epoch, rank sharding, exact resume, an error
//! policy and per-node statistics.
//!
//! ```
//! use adl::pipeline::Stages;
//! use adl::{InMemory, collate::DefaultCollate};
//! use adl::OnError;
//! use adl::graph::loader::Loader;
//!
//! let dataset: InMemory<f32> = (0..10).map(|i| i as f32).collect();
//! let pipeline = Stages::new()
//!     .with_sample(|x: f32| x * 2.0)
//!     .with_collate(DefaultCollate);
//! let loader = Loader::new(dataset, pipeline)
//!     .batch_size(4)
//!     .shuffle(7)
//!     .workers(2)
//!     .batches_ahead(2)
//!     .on_error(OnError::Fail)
//!     .build()?;
//! let mut seen = 0;
//! for batch in loader.epoch(0) {
//!     seen += batch?.len();
//! }
//! assert_eq!(seen, 10);
//! # Ok::<(), adl::Error>(())
//! ```
//!
//! # How a batch is built
//!
//! Batches are built by jobs on the loader's rayon pool of `workers`
//! threads (each job takes the lowest batch of the window of batches
//! ahead that no one has taken, and the next, until none is left; when
//! the batch the consumer asks for is not ready, the consumer's thread
//! takes one too, unless the batches are worth splitting
//! or [`build_while_waiting(false)`](LoaderBuilder::build_while_waiting)):
//! its samples are read and run through the sample stage in parallel (one
//! piece per worker, results in order), then collated and run through the
//! batch stage, where the collate and batch stages of parallel branches
//! are [joined](adl_exec::Context::join_dyn). A batch whose samples
//! are cheap (under 100 us of reading and sample stage in all, estimated
//! from the timed calls) runs whole on one worker: splitting it would cost
//! more than it saves, and with `batches_ahead` batches in flight the other
//! workers are building the next batches meanwhile. Within one
//! sample, the sample stages of its branches run one after the other on
//! that sample's thread: parallelism across the batch's samples already
//! keeps every worker busy, without a join per sample.
//!
//! # Promises, and how each is kept
//!
//! - **Order depends only on (order, seed, epoch)**: the order is a
//!   stateless function of (epoch, position) ([`Order`]: adl's
//!   [`Sequential`], [`Shuffle`], [`LowDiscrepancy`], [`Listed`] and
//!   [`Weighted`], or a program's own); workers only decide *when* a batch is
//!   built, and batches are delivered in order.
//! - **An epoch's order in constant memory**: each rank's indices are
//!   computed per position ([`ShardOrder`]: the shuffle is a
//!   [`Permutation`](adl_core::sample::Permutation) evaluated at a
//!   position, the low-discrepancy walk and the sharding are arithmetic),
//!   so a shuffled epoch of 10^9 samples over 8 ranks starts at once in a
//!   few megabytes (tests/billion_epoch.rs). Of adl's orders, only
//!   explicit indices ([`Listed`]) hold an order, and [`Weighted`] its
//!   table of weights.
//! - **Every index exactly once per epoch across ranks** (or reported
//!   skipped): ranks split one order as torch's `DistributedSampler` does
//!   ([`Shard`], [`ShardTail`]: padding repeats the first few indices,
//!   dropping leaves the last few out).
//! - **Random draws depend only on (seed, epoch, index, node)**:
//!   [`SampleRng`](adl_exec::SampleRng) through the context.
//! - **Memory bounded by the batches ahead**: at most `batches_ahead` batches are built or
//!   waiting at once.
//! - **Batch memory recycled**: every batch is a [`Batch`] that gives its
//!   memory back when dropped; the next batches are built in it (a
//!   [`BufferPool`] of at most `batches_ahead + 2` batches), so a warm epoch
//!   allocates no batch memory and its speed does not depend on the
//!   allocator. A batch type implements [`Recycle`] (every collate output
//!   and `#[derive(Collate)]` batch does).
//! - **No hang, no silent loss**: a failing or panicking node is an error
//!   naming the sample index and the node; with [`OnError::Fail`](adl_core::OnError::Fail) the first
//!   error in delivery order ends the epoch after every earlier batch was
//!   delivered, with [`OnError::Skip`](adl_core::OnError::Skip) skipped samples are listed
//!   ([`Epoch::skipped`]) and counted.
//! - **Exact resume**: [`Epoch::state`] and [`Loader::resume`]; a state from
//!   another pipeline, dataset, sampler or seed is refused.

mod batch;
mod builder;
mod claims;
mod context;
mod device;
mod epoch;
mod fingerprint;
mod job;
mod order;
mod policy;
#[cfg(unix)]
pub mod processes;
mod read_ahead;
mod sensor_reads;
mod shard;
mod shard_order;
mod state;
mod stats;
mod timeline;
mod worker;

use std::sync::{Arc, Mutex};

use adl_core::description::{Body, Description, NodeInfo, Stage};
use adl_core::{Dataset, Error, Pipeline, Result};
use adl_exec::Accelerator;
use adl_exec::{BufferPool, Recycle};

use crate::plan::Plan;
use crate::planner::Planner;
use crate::schedule::{DeviceFacts, Settings};
use crate::sources::Sources;

pub use crate::notice::QUIET_VARIABLE;
pub use batch::Batch;
pub use builder::{LoaderBuilder, TRACE_EVENTS_VARIABLE, TRACE_VARIABLE};
pub use device::FUSION_VARIABLE;
pub use epoch::Epoch;
pub use job::Skipped;
pub use order::{EpochOrder, Listed, LowDiscrepancy, Order, Sequential, Shuffle, Weighted};
pub use policy::{Code, Execution, Tuning};
pub use read_ahead::ReadStatistics;
pub use sensor_reads::SensorReads;
pub use shard::{Shard, ShardTail};
pub use shard_order::ShardOrder;
pub use state::LoaderState;
pub use stats::{KernelRun, Measured, NodeStatistics, Statistics};
pub use timeline::DEFAULT_TRACE_EVENTS;

use context::Counters;
use fingerprint::Fnv;
use policy::Policy;
use policy::readers::Readers;
use read_ahead::ReadAhead;
use sensor_reads::PartCounters;
use state::STATE_VERSION;
use stats::Totals;

/// A dataset and a pipeline, run as a data loader: see the
/// [module docs](self). Built with [`Loader::new`]; iterate an epoch with
/// [`epoch`](Loader::epoch).
pub struct Loader<D, P> {
    shared: Arc<Shared<D, P>>,
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The read stage's reader threads, where the plan has one: how many
    /// each epoch starts, and how many they may grow to.
    readers: Option<Arc<Readers>>,
    /// The read stage of the epoch that ended last, reading the first
    /// positions of the next (by its number), for that epoch to take over
    /// if it starts from its beginning ([`read_ahead`]'s module docs).
    carried: Mutex<Option<(u64, Arc<ReadAhead>)>>,
    /// Epochs started so far: an epoch that ends after a later one
    /// started carries no reads over (that one read its own).
    epochs_started: std::sync::atomic::AtomicU64,
}

impl<D, P> Drop for Loader<D, P> {
    /// Stops the read stage carried over for a next epoch (its readers
    /// end, what it read is dropped); writes the timeline, where the
    /// program asked for one.
    fn drop(&mut self) {
        let carried = self.carried.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some((_, stage)) = carried.take() {
            stage.stop();
        }
        if let Some(timeline) = &self.shared.timeline {
            timeline.write_or_say();
        }
    }
}

impl<D, P> Loader<D, P> {
    /// Count an epoch started: its number among the loader's epochs, for
    /// [`Loader::carry_reads`].
    pub(crate) fn epoch_started(&self) -> u64 {
        (self.epochs_started).fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
    }

    /// Keep `stage`, which read ahead into epoch `epoch`, for that epoch
    /// (stopping one kept before), where the epoch that read it was the
    /// last started (`started`, from [`Loader::epoch_started`]); else stop
    /// it: an epoch started since reads for itself.
    pub(crate) fn carry_reads(&self, epoch: u64, stage: Arc<ReadAhead>, started: u64) {
        let mut carried = self.carried.lock().unwrap_or_else(|p| p.into_inner());
        let last = self
            .epochs_started
            .load(std::sync::atomic::Ordering::SeqCst);
        let before = if last == started {
            carried.replace((epoch, stage))
        } else {
            Some((epoch, stage))
        };
        drop(carried);
        if let Some((_, stage)) = before {
            stage.stop();
        }
    }

    /// The stage kept for epoch `epoch` started at `cursor`, if there is
    /// one and the epoch starts from its beginning; any other kept stage
    /// is stopped.
    pub(crate) fn carried_reads(&self, epoch: u64, cursor: usize) -> Option<Arc<ReadAhead>> {
        let kept = self
            .carried
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        match kept {
            Some((for_epoch, stage)) if for_epoch == epoch && cursor == 0 => Some(stage),
            Some((_, stage)) => {
                stage.stop();
                None
            }
            None => None,
        }
    }
}

/// What the loader's jobs share.
pub(crate) struct Shared<D, P> {
    pub(crate) dataset: D,
    pub(crate) pipeline: P,
    pub(crate) config: builder::Config,
    /// The plan, which is the schedule this loader runs.
    pub(crate) plan: Plan,
    /// Row names of the statistics: the pipeline's nodes, then the loader's
    /// own slots.
    pub(crate) rows: Vec<(String, Measured)>,
    /// How many rows are the pipeline's nodes.
    pub(crate) nodes: usize,
    pub(crate) counters: Counters,
    /// How each kernel node ran, by node slot.
    pub(crate) runs: context::Runs,
    pub(crate) totals: Mutex<Totals>,
    /// What the read stage did.
    pub(crate) reads: Arc<Mutex<ReadStatistics>>,
    /// Reads ahead that the dataset's `get` dropped unused
    /// ([`ReadStatistics::unused`]).
    pub(crate) unused_reads: Arc<std::sync::atomic::AtomicU64>,
    /// What it did per part of a sample (per sensor).
    pub(crate) sensor_reads: Arc<PartCounters>,
    pub(crate) fingerprint: u64,
    /// The order as states name it ([`Order::describe`]: for explicit
    /// indices a hash of them all, so taken once).
    pub(crate) sampler: String,
    /// The memory of batches the consumer dropped, for the next ones.
    pub(crate) buffers: Arc<BufferPool>,
    /// The device of the batch kernels, if any.
    pub(crate) accelerator: Option<Arc<dyn Accelerator>>,
    /// The loader's live decisions: batches ahead, splitting, the memory
    /// budget's choices.
    pub(crate) policy: Policy,
    /// The run's timeline, where the program asked for one.
    pub(crate) timeline: Option<Arc<timeline::Timeline>>,
    /// Whether a worker's share of a batch is read in one
    /// [`Dataset::get_many`] call: the dataset reads many at once
    /// ([`Dataset::reads_many`]), the pipeline's sample stage leaves its
    /// samples as they are ([`Pipeline::sample_unchanged`]), and there is
    /// no read stage.
    pub(crate) reads_many: bool,
}

/// The loader's own statistics slots, after the pipeline's nodes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Slot {
    Read,
    Sample,
    Collate,
    Batch,
}

impl<D, P> Shared<D, P> {
    pub(crate) fn slot(&self, slot: Slot) -> usize {
        self.nodes + slot as usize
    }

    /// Whether the samples of a batch of `len` are worth splitting across
    /// the workers, by the timed calls so far ([`Policy::worth_splitting`]).
    pub(crate) fn worth_splitting(&self, len: usize) -> bool {
        let per_sample = |slot: Slot| {
            let slot = self.slot(slot);
            let counts = self.counters.slot(slot)?;
            let timed = counts.timed.load(std::sync::atomic::Ordering::Relaxed);
            let nanos = counts.nanos.load(std::sync::atomic::Ordering::Relaxed);
            (timed > 0).then(|| std::time::Duration::from_nanos(nanos / timed))
        };
        (self.policy).worth_splitting(per_sample(Slot::Read), per_sample(Slot::Sample), len)
    }

    /// The loader-wide totals (a panic elsewhere while they were held
    /// leaves plain counters, still good to read and add to).
    pub(crate) fn totals(&self) -> std::sync::MutexGuard<'_, Totals> {
        self.totals.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<D, P> Loader<D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Send + 'static,
{
    /// A loader of `dataset` through `pipeline`; set it up with the
    /// builder's methods, then [`build`](LoaderBuilder::build).
    #[allow(clippy::new_ret_no_self)]
    pub fn new(dataset: D, pipeline: P) -> LoaderBuilder<D, P> {
        LoaderBuilder::new(dataset, pipeline)
    }
}

impl<D, P> Loader<D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + Send + 'static,
{
    pub(crate) fn from_parts(dataset: D, pipeline: P, config: builder::Config) -> Result<Self> {
        config.shard.check()?;
        config.order.check(dataset.len())?;
        // Measured now, not on the first timed call of an epoch.
        context::clock_cost();
        let parts = builder::read_parts(&dataset);
        let readers = config
            .readers
            .unwrap_or_else(|| parts.map_or(0, Policy::starting_readers));
        let parts = parts.unwrap_or(1);
        let plan = make_plan(&pipeline, &config, readers)?;
        let accelerator = plan.1;
        let plan = plan.0.with_sources(Sources::of(&dataset));
        // Batches in flight or waiting, the consumer's, and one more.
        let buffers = Arc::new(BufferPool::new(config.batches_ahead.max(1) + 2));
        let workers = plan.schedule().workers();
        let pool = if workers == 0 {
            None
        } else {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .thread_name(|i| format!("adl-worker-{i}"))
                .build()
                .map_err(|e| {
                    Error::invalid("workers", format!("cannot start the worker threads: {e}"))
                })?;
            Some(Arc::new(pool))
        };
        let read_threads = plan.schedule().readers().map(|(threads, _)| {
            Arc::new(match config.readers {
                Some(_) => Readers::fixed(threads),
                None => Readers::growing(threads, Policy::most_readers(parts)),
            })
        });
        // One row per node of a described pipeline, named by its path
        // (`camera/default`), then the loader's own.
        let mut rows: Vec<(String, Measured)> = match pipeline.description() {
            Some(_) => plan
                .node_paths()
                .into_iter()
                .zip(plan.transforms())
                .map(|(path, (_, node))| {
                    let stage = node.info().map_or(Stage::Sample, |i| i.stage);
                    (path, Measured::Node(stage))
                })
                .collect(),
            None => Vec::new(),
        };
        let nodes = rows.len();
        // With a read stage, the workers' `get` decodes what it read.
        let get = if read_threads.is_some() {
            Measured::Decode
        } else {
            Measured::Read
        };
        rows.push(("dataset".to_owned(), get));
        let first = plan.sources().and_then(|s| s.first.as_ref());
        let sensor_reads = Arc::new(PartCounters::new(if read_threads.is_some() {
            sensor_reads::part_names(first, parts)
        } else {
            first
                .map(|o| o.sensors.iter().map(|s| s.sensor.clone()).collect())
                .unwrap_or_default()
        }));
        for stage in [Stage::Sample, Stage::Collate, Stage::Batch] {
            rows.push((stage.to_string(), Measured::Stage(stage)));
        }
        let timeline = config.trace.clone().map(|path| {
            Arc::new(timeline::Timeline::new(
                path,
                config.trace_events,
                rows.iter().map(|(name, _)| name.clone()).collect(),
                sensor_reads.names().to_vec(),
                if read_threads.is_some() {
                    "decode"
                } else {
                    "get"
                },
            ))
        });
        let fingerprint = fingerprint::<D::Sample, P>(pipeline.description());
        let sampler = config.order.describe();
        // Whether the sample stage changes nothing, asked with no samples.
        let reads_many = dataset.reads_many()
            && read_threads.is_none()
            && pipeline.sample_unchanged(Vec::new()).is_ok();
        let counters = Counters::new(rows.len());
        let runs = context::Runs::new(nodes);
        let config_bound = config.read_bound;
        let config_budget = config.memory_budget;
        let config_batches_ahead = config.batches_ahead;
        let totals = Mutex::new(Totals {
            workers: config.workers,
            ..Totals::default()
        });
        Ok(Loader {
            shared: Arc::new(Shared {
                dataset,
                pipeline,
                config,
                plan,
                rows,
                nodes,
                counters,
                runs,
                totals,
                fingerprint,
                sampler,
                buffers,
                accelerator,
                policy: Policy::new(config_batches_ahead, config_budget),
                timeline,
                reads_many,
                sensor_reads,
                unused_reads: Arc::default(),
                reads: Arc::new(Mutex::new(ReadStatistics {
                    threads: readers,
                    bound: config_bound,
                    ..ReadStatistics::default()
                })),
            }),
            pool,
            readers: read_threads,
            carried: Mutex::new(None),
            epochs_started: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// Iterate epoch `epoch`: this rank's batches, in order.
    pub fn epoch(&self, epoch: u64) -> Epoch<'_, D, P> {
        Epoch::start(self, epoch, 0)
    }

    /// Continue the epoch that `state` was taken from, with exactly the
    /// batches the uninterrupted run would have given (with the same world
    /// size and batch size; with others, what is left of the epoch is split
    /// again, each index still exactly once). Refused, with the reason,
    /// when the state comes from another pipeline, dataset, sampler or seed.
    pub fn resume(&self, state: &LoaderState) -> Result<Epoch<'_, D, P>> {
        let refuse = |reason: String| Err(Error::Resume { reason });
        if state.version != STATE_VERSION {
            return refuse(format!(
                "the state has format version {}, this loader reads version {STATE_VERSION}",
                state.version
            ));
        }
        if state.pipeline != self.shared.fingerprint {
            return refuse(format!(
                "the state was taken from another pipeline (plan fingerprint {:016x}, this one's is {:016x})",
                state.pipeline, self.shared.fingerprint
            ));
        }
        let len = self.shared.dataset.len() as u64;
        if state.dataset_len != len {
            return refuse(format!(
                "the state was taken from a dataset of {} samples, this one has {len}",
                state.dataset_len
            ));
        }
        let sampler = &self.shared.sampler;
        if state.sampler != *sampler {
            return refuse(format!(
                "the state was taken with the sampler {}, this loader uses {sampler}",
                state.sampler
            ));
        }
        if state.seed != self.shared.config.seed {
            return refuse(format!(
                "the state was taken with generator seed {}, this loader uses {}",
                state.seed, self.shared.config.seed
            ));
        }
        let order_len = self.shared.config.order.len(self.shared.dataset.len());
        if state.cursor > order_len as u64 {
            return refuse(format!(
                "the cursor {} is past the end of epoch {} ({order_len} positions)",
                state.cursor, state.epoch
            ));
        }
        Ok(Epoch::start(self, state.epoch, state.cursor as usize))
    }

    /// The statistics since the loader was built (or last reset).
    pub fn statistics(&self) -> Statistics {
        let totals = *self.shared.totals();
        let mut statistics = Statistics::from_counters(
            &self.shared.rows,
            &self.shared.counters,
            &self.shared.runs,
            totals,
            self.shared.buffers.statistics(),
            ReadStatistics {
                unused: (self.shared.unused_reads).load(std::sync::atomic::Ordering::Relaxed),
                ..*self.shared.reads.lock().unwrap_or_else(|p| p.into_inner())
            },
            self.shared.sensor_reads.snapshot(),
        );
        statistics.tuning = self.shared.policy.tuner().and_then(|t| t.last());
        statistics.batches_ahead = self.shared.policy.batches_ahead();
        statistics
    }

    /// Start the statistics afresh (say, after a warm-up epoch).
    pub fn reset_statistics(&self) {
        self.shared.counters.reset();
        self.shared.runs.reset();
        self.shared.buffers.reset_statistics();
        self.shared.sensor_reads.reset();
        (self.shared.unused_reads).store(0, std::sync::atomic::Ordering::Relaxed);
        let mut totals = self.shared.totals();
        *totals = Totals {
            workers: self.shared.config.workers,
            ..Totals::default()
        };
        let mut reads = self.shared.reads.lock().unwrap_or_else(|p| p.into_inner());
        *reads = ReadStatistics {
            threads: reads.threads,
            bound: reads.bound,
            ..ReadStatistics::default()
        };
    }

    /// The dataset.
    pub fn dataset(&self) -> &D {
        &self.shared.dataset
    }

    /// The pipeline.
    pub fn pipeline(&self) -> &P {
        &self.shared.pipeline
    }

    /// This loader's rank and world.
    pub fn shard(&self) -> Shard {
        self.shared.config.shard
    }

    /// The fingerprint of the pipeline's plan, as stored in states.
    pub fn fingerprint(&self) -> u64 {
        self.shared.fingerprint
    }

    /// The device that runs the pipeline's batch kernels, if any (none:
    /// they run their Rust bodies on the workers).
    pub fn accelerator(&self) -> Option<&dyn Accelerator> {
        self.shared.accelerator.as_deref()
    }

    /// The plan this loader runs: the pipeline's graph, scheduled for its
    /// settings (each stage's pool and threads, the device of every batch
    /// node, the kernels that run as one) and its [sources](Plan::sources)
    /// (the dataset's sensors and trace, as its first sample tells them).
    /// Its [`to_dot`](Plan::to_dot) and [`to_svg`](Plan::to_svg) draw what
    /// runs, from the sensors to the batches; the statistics record what
    /// did ([`NodeStatistics::kernel`]). A pipeline without a description
    /// (not built by `pipeline!` or the graph builders) is planned as its
    /// three stages.
    pub fn plan(&self) -> &Plan {
        &self.shared.plan
    }
}

/// The loader's plan for `pipeline` under `config`, with the device it
/// schedules batch kernels on: the environment is read here, once
/// (`ADL_OPENCL_DEVICE` unless the program chose, `ADL_FUSION` unless the
/// builder said), and where the kernels run is said once per process
/// (when nobody chose, or the device asked for cannot run them).
fn make_plan<P, S>(
    pipeline: &P,
    config: &builder::Config,
    readers: usize,
) -> Result<(Plan, Option<Arc<dyn Accelerator>>)>
where
    P: Pipeline<S>,
{
    let opaque;
    let description = match pipeline.description() {
        Some(d) => d,
        None => {
            opaque = three_stages();
            &opaque
        }
    };
    let has_kernels = description.nodes().iter().any(|n| n.kernel.is_some());
    let fusion = match config.fusion {
        Some(on) => on,
        None => device::fusion_from_env()?,
    };
    let device::Opened {
        device: accelerator,
        why,
        notice,
    } = device::open(&config.device, has_kernels)?;
    let settings = Settings::default()
        .workers(config.workers)
        .consumer_helps(config.build_while_waiting)
        .reads(readers, config.read_bound)
        .fusion(fusion);
    let settings = match &accelerator {
        Some(a) => settings.device(DeviceFacts::of(a.as_ref()), why.clone()),
        None => settings.no_device(why.clone()),
    };
    if let Some(line) = notice {
        crate::notice::once_for(crate::notice::Key::KernelDevice, &line);
    }
    let plan = Planner.schedule(description, &settings).map_err(|e| {
        Error::invalid(
            "pipeline",
            format!("its description breaks the composition rules:\n{e}"),
        )
    })?;
    Ok((plan, accelerator))
}

/// The plan of a pipeline without a description: its three stages, each
/// one node.
fn three_stages() -> Description {
    let stage = |name: &'static str, stage| {
        NodeInfo::new(name, stage).with_doc("the pipeline describes no nodes of its own")
    };
    Description::new(Body::stages(
        vec![stage("sample", Stage::Sample)],
        vec![stage("collate", Stage::Collate)],
        vec![stage("batch", Stage::Batch)],
    ))
}

/// A fingerprint of the pipeline: its description (nodes, stages, types,
/// branches) where it has one, else its type's name; and the sample type.
fn fingerprint<S, P>(description: Option<&Description>) -> u64 {
    let mut h = Fnv::new();
    h.write_str(std::any::type_name::<S>());
    match description {
        Some(d) => {
            for n in d.nodes() {
                h.write_str(&n.name);
                h.write_str(&n.stage.to_string());
                for t in [n.input, n.output] {
                    h.write_str(t.map_or("?", |t| t.name));
                }
                h.write_str(n.kernel.as_ref().map_or("", |k| &k.source));
            }
        }
        None => h.write_str(std::any::type_name::<P>()),
    }
    h.finish()
}

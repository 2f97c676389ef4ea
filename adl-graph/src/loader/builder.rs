use std::sync::Arc;

use adl_core::storage::{Ahead, Storage};
use adl_core::{Dataset, Error, OnError, Origin, Pipeline, Result};
use adl_exec::Accelerator;

use super::{Listed, Loader, Order, Sequential, Shard, ShardTail, Shuffle};

/// The settings of a loader.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) batch_size: usize,
    pub(crate) drop_last: bool,
    pub(crate) order: Arc<dyn Order>,
    pub(crate) seed: u64,
    pub(crate) workers: usize,
    pub(crate) batches_ahead: usize,
    pub(crate) build_while_waiting: bool,
    /// Whether an epoch's read stage reads the next epoch's first window
    /// ([`LoaderBuilder::read_next_epoch`]).
    pub(crate) read_next_epoch: bool,
    pub(crate) shard: Shard,
    pub(crate) on_error: OnError,
    pub(crate) device: Device,
    /// Whether batch kernels fuse (`None`: as `ADL_FUSION` says, on by
    /// default).
    pub(crate) fusion: Option<bool>,
    /// Whether batches carry their samples' dataset indices.
    pub(crate) batch_indices: bool,
    /// Reader threads of the read stage (`None`: as the loader's rule
    /// says when the dataset reads ahead, else none).
    pub(crate) readers: Option<usize>,
    /// The bound on bytes read ahead and not yet taken.
    pub(crate) read_bound: u64,
    /// The memory budget the loader sizes itself under, if any.
    pub(crate) memory_budget: Option<u64>,
    /// Whether the program set `batches_ahead` (a budget keeps it).
    pub(crate) batches_ahead_set: bool,
    /// Whether the program set `read_bound` (a budget keeps it).
    pub(crate) read_bound_set: bool,
    /// Where the run's timeline is written, if anywhere
    /// ([`LoaderBuilder::trace_to`], else [`TRACE_VARIABLE`]).
    pub(crate) trace: Option<std::path::PathBuf>,
    /// The spans the timeline keeps, the last of the run.
    pub(crate) trace_events: usize,
    /// Whether each epoch shows a progress bar on a terminal.
    pub(crate) progress: bool,
}

/// The environment variable that turns the timeline on for a program one
/// does not edit: the path of the file to write
/// (see [`LoaderBuilder::trace_to`]). `ADL_TRACE_EVENTS` sets the spans
/// kept ([`LoaderBuilder::trace_events`]).
pub const TRACE_VARIABLE: &str = "ADL_TRACE";

/// The environment variable of [`LoaderBuilder::trace_events`].
pub const TRACE_EVENTS_VARIABLE: &str = "ADL_TRACE_EVENTS";

/// The storage of `dataset` where it reads ahead ([`Ahead::Reads`]): what
/// a read stage fetches from.
pub(crate) fn reads_of<D: Dataset + ?Sized>(dataset: &D) -> Option<&dyn Storage<Origin = Origin>> {
    dataset.storage().filter(|s| s.ahead() == Ahead::Reads)
}

/// The reads a sample of `dataset` is made of that can run at once (its
/// first sample's [`Storage::parts`]: per sensor of a recording),
/// where it reads ahead; none for a dataset that does not.
pub(crate) fn read_parts<D: Dataset + ?Sized>(dataset: &D) -> Option<usize> {
    let reads = reads_of(dataset)?;
    Some(if dataset.is_empty() {
        1
    } else {
        reads.parts(0).max(1)
    })
}

/// Where a loader runs the batch kernels of its pipeline.
#[derive(Clone, Default)]
pub(crate) enum Device {
    /// `ADL_OPENCL_DEVICE`, else the first GPU or accelerator, else the
    /// Rust bodies (decided at `build`, only when the pipeline has kernel
    /// nodes).
    #[default]
    FromEnvironment,
    /// An OpenCL device chosen by the program.
    #[cfg(feature = "opencl")]
    Chosen(crate::opencl::DeviceChoice),
    /// A device the program opened.
    Given(Arc<dyn Accelerator>),
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Device::FromEnvironment => f.write_str("FromEnvironment"),
            #[cfg(feature = "opencl")]
            Device::Chosen(choice) => write!(f, "Chosen({choice})"),
            Device::Given(a) => write!(f, "Given({})", a.name()),
        }
    }
}

/// Sets up a [`Loader`]: see [`Loader::new`]. Every setting has a default:
/// batch size 1, keep the last partial batch, sequential order, as many
/// workers as the machine has cores, 2 batches ahead per worker, the
/// consumer's thread building batches while it waits, one rank,
/// [`OnError::Fail`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct LoaderBuilder<D, P> {
    dataset: D,
    pipeline: P,
    config: Config,
    errors: Vec<Error>,
}

impl<D, P> LoaderBuilder<D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Send + 'static,
{
    pub(crate) fn new(dataset: D, pipeline: P) -> Self {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        LoaderBuilder {
            dataset,
            pipeline,
            config: Config {
                batch_size: 1,
                drop_last: false,
                order: Arc::new(Sequential),
                seed: 0,
                workers,
                batches_ahead: 2 * workers,
                build_while_waiting: true,
                read_next_epoch: true,
                shard: Shard::default(),
                on_error: OnError::Fail,
                device: Device::FromEnvironment,
                fusion: None,
                batch_indices: false,
                readers: None,
                read_bound: super::policy::Policy::read_bound(),
                memory_budget: None,
                batches_ahead_set: false,
                read_bound_set: false,
                trace: None,
                trace_events: super::timeline::DEFAULT_TRACE_EVENTS,
                progress: adl_core::progress::asked_for(),
            },
            errors: Vec::new(),
        }
    }

    /// Samples per batch (at least 1).
    pub fn batch_size(mut self, size: usize) -> Self {
        if size == 0 {
            self.errors
                .push(Error::invalid("batch size", "must be at least 1, got 0"));
        }
        self.config.batch_size = size;
        self
    }

    /// Drop the last batch of each epoch (on each rank) if it is partial.
    pub fn drop_last(mut self, drop: bool) -> Self {
        self.config.drop_last = drop;
        self
    }

    /// Shuffle every epoch with a permutation of (seed, epoch)
    /// ([`Shuffle`]); `seed` also seeds random nodes.
    pub fn shuffle(mut self, seed: u64) -> Self {
        self.config.order = Arc::new(Shuffle { seed });
        self.config.seed = seed;
        self
    }

    /// Order epochs with `order`: one of adl's ([`Sequential`], the
    /// default; [`Shuffle`], [`LowDiscrepancy`](super::LowDiscrepancy),
    /// [`Listed`], [`Weighted`](super::Weighted)) or the program's own
    /// [`Order`].
    pub fn order(mut self, order: impl Order + 'static) -> Self {
        self.config.order = Arc::new(order);
        self
    }

    /// Read these dataset indices, in this order, every epoch
    /// ([`Listed`]).
    pub fn indices(self, indices: impl Into<Arc<[usize]>>) -> Self {
        self.order(Listed::new(indices))
    }

    /// The seed of the per-sample generators of random nodes (by default
    /// the shuffle seed, else 0).
    pub fn seed(mut self, seed: u64) -> Self {
        self.config.seed = seed;
        self
    }

    /// Worker threads; 0 runs everything on the consumer's thread when it
    /// asks for a batch.
    pub fn workers(mut self, workers: usize) -> Self {
        self.config.workers = workers;
        self
    }

    /// Whether the consumer's thread, when the batch it asks for is not
    /// ready, builds the next batch no worker has taken instead of
    /// sleeping (default `true`; no effect with 0 workers).
    ///
    /// With as many workers as cores, a waiting consumer would otherwise
    /// take a core's time slices to poll and wake; building instead adds
    /// its core to the workers'. It builds only batches inside the
    /// window of batches ahead, so memory stays bounded by `batches_ahead`, and only
    /// batches whose samples are cheap enough that a worker too would
    /// build them whole (not split across the workers; see the [module
    /// docs](super)), so a batch it builds takes no longer than a
    /// worker's. The batch it asked for is handed over once its own is
    /// done: a delay of at most one batch's build. `false` keeps the
    /// consumer's thread for the consumer alone.
    pub fn build_while_waiting(mut self, build: bool) -> Self {
        self.config.build_while_waiting = build;
        self
    }

    /// Whether an epoch's read stage, once its own reads are all started,
    /// also reads the first window of batches ahead of the next epoch
    /// (`epoch + 1` from its beginning, as a training loop asks for it),
    /// within the same bound (default `true`). The next epoch then takes
    /// the stage over and its first batch does not wait for its reads: an
    /// epoch behind a store answering in 50 ms otherwise starts by waiting
    /// that long, and more where the store is busy (W4 from a local S3
    /// server: 0.82-0.83 of its disk with it, 0.76-0.80 without). The
    /// price: after an epoch, the loader holds those reads (one window of
    /// batches, within the read stage's bound) until the next epoch starts
    /// or the loader is dropped, and an epoch started otherwise (another
    /// number, or resumed past its start) drops them unused; turn it off
    /// for a loader read once, or whose epochs are not read in turn. Reads
    /// done ahead are counted in the [statistics](super::ReadStatistics)
    /// when the next epoch takes them over. No effect without a read
    /// stage (a dataset whose [storage](Dataset::storage) does not read
    /// ahead).
    ///
    /// ```
    /// use adl::graph::loader::Loader;
    /// use adl::pipeline::Stages;
    /// use adl::{InMemory, collate::DefaultCollate};
    ///
    /// let dataset: InMemory<f32> = (0..8).map(|i| i as f32).collect();
    /// let pipeline = Stages::new().with_sample(|x: f32| x).with_collate(DefaultCollate);
    /// // Read once: nothing to read ahead for.
    /// let loader = Loader::new(dataset, pipeline).batch_size(4).read_next_epoch(false).build()?;
    /// assert_eq!(loader.epoch(0).count(), 2);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn read_next_epoch(mut self, read: bool) -> Self {
        self.config.read_next_epoch = read;
        self
    }

    /// The read stage's reader threads, exactly: reads run ahead of the
    /// sample stage, in the epoch's order, on threads of their own apart
    /// from the workers. 0 turns the stage off (the workers read for
    /// themselves). By default, when the dataset's [storage](Dataset::storage)
    /// reads ahead ([`Ahead::Reads`]: files, objects), the stage starts with as
    /// many threads as fit the machine, a sample per core at once with each
    /// of its parts (a recording's sensors, [`Storage::parts`]) on a
    /// thread (8 for 4 sensors on 2 cores, at most 256), and grows them
    /// (two or four times as many at a time), up to 32 samples at once
    /// (128 threads for 4 sensors), while the reads wait on I/O (a read
    /// whose thread ran less than half its time) and the workers wait for
    /// them, and shrinks them back while they do not; none otherwise. A count set here does not
    /// grow: behind a store of latency `L` a sample of `k` reads takes `L`
    /// (its reads at once), so `n` readers give at most `n / (k L)`
    /// samples/s (128 readers over 4 sensors at 20 ms: 1,600). The plan
    /// shows the stage's threads at the start, the
    /// [statistics](super::ReadStatistics::threads) how many it has now.
    ///
    /// ```
    /// use adl::graph::loader::Loader;
    /// use adl::pipeline::Stages;
    /// use adl::{InMemory, collate::DefaultCollate};
    ///
    /// let dataset: InMemory<f32> = (0..8).map(|i| i as f32).collect();
    /// let pipeline = Stages::new().with_sample(|x: f32| x).with_collate(DefaultCollate);
    /// let loader = Loader::new(dataset, pipeline).readers(8).read_bound(64 << 20).build()?;
    /// assert_eq!(
    ///     loader.plan().schedule().to_string().lines().next(),
    ///     Some("read: read-ahead, 8 threads, at most 64 MiB ahead")
    /// );
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn readers(mut self, threads: usize) -> Self {
        self.config.readers = Some(threads);
        self
    }

    /// The read stage's bound: readers start a read only while the bytes
    /// read ahead and not yet taken by the sample stage are under it (so
    /// it holds at most this plus one read per reader). Default 256 MiB;
    /// at least 1.
    pub fn read_bound(mut self, bytes: u64) -> Self {
        if bytes == 0 {
            self.errors.push(Error::invalid(
                "read_bound",
                "must be at least 1 byte, got 0",
            ));
        }
        self.config.read_bound = bytes;
        self.config.read_bound_set = true;
        self
    }

    /// Batches built ahead of the consumer (at least 1): memory holds at
    /// most this many batches. (What `prefetch` says elsewhere in adl is a
    /// hint to the CPU's cache, [`Storage::prefetch`]; reads of files done
    /// ahead are a dataset's storage's [`fetch`](Storage::fetch).)
    pub fn batches_ahead(mut self, batches: usize) -> Self {
        if batches == 0 {
            self.errors.push(Error::invalid(
                "batches_ahead",
                "must be at least 1 batch, got 0",
            ));
        }
        self.config.batches_ahead = batches;
        self.config.batches_ahead_set = true;
        self
    }

    /// Size the loader under a memory budget of `bytes` (its batches and
    /// its reads ahead): batches ahead, the batches built at once, the read
    /// stage's bound and its readers are chosen from what the loader
    /// measures (a batch's bytes, the workers' and the consumer's time per
    /// batch, a read's bytes and time, samples per second), at the start
    /// of each epoch and as the measurements grow. What it chose and why
    /// is [`Statistics::tuning`](super::Statistics::tuning), whose type
    /// [`Tuning`](super::Tuning) gives the rule. `batches_ahead` or
    /// `read_bound`, where set too, are kept. At least 1 byte.
    ///
    /// What it counts: a batch's arrays as it gives them back to the
    /// loader's [`BufferPool`](adl_exec::BufferPool) (those too
    /// small to pool too), what a batch type reports it holds outside the
    /// pool ([`Recycle::unpooled_bytes`](adl_exec::Recycle::unpooled_bytes):
    /// Python's batches), and the bytes read ahead. Memory a node holds
    /// while it works (a sample being decoded) is not counted; the loader
    /// bounds it by giving its workers no more batch jobs at once than
    /// keep up with the consumer ([`Tuning::building`](super::Tuning::building)).
    /// Until the first batch is measured it builds one batch ahead.
    ///
    /// ```
    /// use adl::graph::loader::Loader;
    /// use adl::pipeline::Stages;
    /// use adl::{InMemory, collate::DefaultCollate};
    /// use ndarray::Array1;
    ///
    /// // 64 samples of 64 KiB, batches of 8: 512 KiB a batch.
    /// let dataset: InMemory<Array1<f32>> = (0..64).map(|_| Array1::zeros(16 << 10)).collect();
    /// let pipeline = Stages::new().with_sample(|x: Array1<f32>| x).with_collate(DefaultCollate);
    /// let loader = Loader::new(dataset, pipeline)
    ///     .batch_size(8)
    ///     .workers(4)
    ///     .memory_budget(3 << 20)
    ///     .build()?;
    /// for batch in loader.epoch(0) {
    ///     batch?;
    /// }
    /// let tuning = loader.statistics().tuning.expect("a budget was set");
    /// // 3 MiB hold 6 batches: 4 ahead, the consumer's and one given back.
    /// assert_eq!(tuning.batches_ahead, 4);
    /// assert!(tuning.planned <= 3 << 20);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn memory_budget(mut self, bytes: u64) -> Self {
        if bytes == 0 {
            self.errors.push(Error::invalid(
                "memory_budget",
                "must be at least 1 byte, got 0",
            ));
        }
        self.config.memory_budget = Some(bytes);
        self
    }

    /// Read rank `rank`'s part of each epoch, of `world` ranks
    /// ([`Shard`]).
    pub fn shard(mut self, rank: usize, world: usize) -> Self {
        self.config.shard.rank = rank;
        self.config.shard.world = world;
        self
    }

    /// What happens to an epoch's uneven tail across ranks
    /// ([`ShardTail::Pad`] by default).
    pub fn shard_tail(mut self, tail: ShardTail) -> Self {
        self.config.shard.tail = tail;
        self
    }

    /// [`shard`](Self::shard) from the environment: `RANK` and
    /// `WORLD_SIZE` (torchrun), else `SLURM_PROCID` and `SLURM_NTASKS`
    /// (SLURM), else rank 0 of 1. A variable that is set but not a number
    /// is an error at [`build`](Self::build).
    pub fn shard_from_env(self) -> Self {
        self.shard_from(|name| std::env::var(name).ok())
    }

    /// [`shard_from_env`](Self::shard_from_env) with the variables read by
    /// `var` (for tests, or another launcher's names).
    pub fn shard_from(mut self, var: impl Fn(&str) -> Option<String>) -> Self {
        let pairs = [("RANK", "WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")];
        let found = pairs
            .iter()
            .find_map(|(r, w)| Some(((*r, var(r)?), (*w, var(w)?))));
        if let Some(((rname, rank), (wname, world))) = found {
            let parse = |name: &str, value: &str| {
                value.trim().parse::<usize>().map_err(|_| {
                    Error::invalid(
                        format!("environment variable {name}"),
                        format!("`{value}` is not a non-negative integer"),
                    )
                })
            };
            match (parse(rname, &rank), parse(wname, &world)) {
                (Ok(rank), Ok(world)) => return self.shard(rank, world),
                (r, w) => self.errors.extend([r.err(), w.err()].into_iter().flatten()),
            }
        }
        self
    }

    /// Whether each batch carries its samples' dataset indices
    /// ([`Batch::indices`](super::Batch::indices); default `false`: a copy
    /// of the indices per batch).
    pub fn batch_indices(mut self, on: bool) -> Self {
        self.config.batch_indices = on;
        self
    }

    /// Write the run as a timeline to `path`: Chrome's trace-event JSON,
    /// which Perfetto (<https://ui.perfetto.dev>) and `chrome://tracing`
    /// open. One track per thread (workers, readers, the consumer), a span
    /// per read of the read stage, `get` of the dataset (`decode` after a
    /// read stage), node, sample stage, collate, batch stage, job and
    /// consumer wait, with the sample indices, batch numbers and sensor
    /// names. Written when each epoch ends and when the loader is dropped;
    /// it keeps the last [`trace_events`](Self::trace_events) spans. Off by
    /// default, or as the environment variable [`TRACE_VARIABLE`]
    /// (`ADL_TRACE=run.json`) says.
    pub fn trace_to(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.config.trace = Some(path.into());
        self
    }

    /// The spans the timeline keeps: the last `events` of the run (at
    /// least 1; default [`DEFAULT_TRACE_EVENTS`](super::DEFAULT_TRACE_EVENTS),
    /// about 20 MB of JSON, or as `ADL_TRACE_EVENTS` says).
    pub fn trace_events(mut self, events: usize) -> Self {
        if events == 0 {
            self.errors
                .push(Error::invalid("trace_events", "must be at least 1"));
        }
        self.config.trace_events = events;
        self
    }

    /// Whether each epoch shows a progress bar of its batches (their rate
    /// and the time left) on standard error, where that is a terminal:
    /// a first epoch's cold reads, a long evaluation. Off by default (a
    /// training loop draws its own), on where `ADL_PROGRESS=1`; never
    /// drawn off a terminal, nor with `ADL_PROGRESS=0` or `ADL_QUIET`.
    pub fn progress(mut self, show: bool) -> Self {
        self.config.progress = show;
        self
    }

    /// What to do with a failing sample or batch.
    pub fn on_error(mut self, policy: OnError) -> Self {
        self.config.on_error = policy;
        self
    }

    /// The OpenCL device for the pipeline's batch kernels (default:
    /// `ADL_OPENCL_DEVICE`, else the first GPU or accelerator, else none;
    /// [`DeviceChoice::Rust`](crate::opencl::DeviceChoice::Rust) runs the
    /// kernels' Rust bodies on the workers, and a CPU OpenCL device runs
    /// them only when named). Opened at [`build`](Self::build), only when
    /// the pipeline has kernel nodes; the choice and why are reported once
    /// and shown by the [plan](Loader::plan).
    #[cfg(feature = "opencl")]
    pub fn opencl(mut self, choice: crate::opencl::DeviceChoice) -> Self {
        self.config.device = Device::Chosen(choice);
        self
    }

    /// Whether consecutive batch kernels run as one (one kernel on a
    /// device, one loop on the CPU): on by default, or as `ADL_FUSION`
    /// says. Which kernels fuse is the one rule of
    /// [`groups`](adl_rules::fusion::groups); the [plan](Loader::plan) shows
    /// the groups.
    pub fn fusion(mut self, on: bool) -> Self {
        self.config.fusion = Some(on);
        self
    }

    /// A device the program opened (an [`OpenCl`](crate::opencl::OpenCl),
    /// or an accelerator of its own) for the batch kernels, shared with
    /// other loaders.
    pub fn accelerator(mut self, device: Arc<dyn Accelerator>) -> Self {
        self.config.device = Device::Given(device);
        self
    }
}

impl<D, P> LoaderBuilder<D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: adl_exec::Recycle + Send + 'static,
{
    /// The loader, or the first setting that is wrong (a zero batch size or
    /// batches ahead, a rank not below the world size, sampler indices out of
    /// range, a badly set environment variable, a worker pool that cannot
    /// start).
    pub fn build(mut self) -> Result<Loader<D, P>> {
        if !self.errors.is_empty() {
            return Err(self.errors.remove(0));
        }
        if self.config.trace.is_none()
            && let Some(path) = std::env::var_os(TRACE_VARIABLE).filter(|p| !p.is_empty())
        {
            self.config.trace = Some(path.into());
            if let Ok(events) = std::env::var(TRACE_EVENTS_VARIABLE) {
                self.config.trace_events = events
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| {
                    Error::invalid(
                        TRACE_EVENTS_VARIABLE,
                        format!("must be a number of spans, at least 1; it is {events:?}"),
                    )
                })?;
            }
        }
        Loader::from_parts(self.dataset, self.pipeline, self.config)
    }
}

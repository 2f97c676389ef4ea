//! [`Epoch`]: the iterator of one epoch's batches, in order. It keeps a
//! window of `prefetch` batches in flight on the workers (each built by a
//! [job](super::job)), and builds batches on the consumer's thread while it
//! waits, when that helps.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use adl_core::{Dataset, Error, Pipeline, Result};
use adl_exec::Recycle;

use super::claims::Claims;
use super::job::{Outcome, Skipped, build};
use super::order::{EpochOrder, Order};
use super::policy::tuning;
use super::read_ahead::ReadAhead;
use super::shard_order::ShardOrder;
use super::state::STATE_VERSION;
use super::timeline::{About, What};
use super::worker::{Worker, batch_range, building};
use super::{Batch, Loader, LoaderState, Shared, Slot};

/// Start reader `id` of `stage` on a thread of its own, reading
/// `shared`'s dataset until the epoch's order ends or it stops; it starts
/// the readers the stage grows by. Whether the thread started.
fn spawn_reader<D, P>(stage: &Arc<ReadAhead>, shared: &Arc<Shared<D, P>>, id: usize) -> bool
where
    D: Dataset + Send + Sync + 'static,
    P: Send + Sync + 'static,
{
    let (stage, shared) = (Arc::clone(stage), Arc::clone(shared));
    std::thread::Builder::new()
        .name(format!("adl-reader-{id}"))
        .spawn(move || {
            let more = |id| {
                // One more reader, if the system gives a thread: the ones
                // there keep reading either way.
                spawn_reader(&stage, &shared, id);
            };
            stage.run_reader(id, &shared.dataset, &more);
        })
        .is_ok()
}

/// How many times the consumer polls for a batch before it sleeps.
const POLLS: usize = 64;

/// One epoch of a [`Loader`]: an iterator of this rank's batches, in order.
/// See the [module docs](super) for its promises.
///
/// Dropping it stops the work not yet started; batches being built finish
/// on the workers and are dropped.
pub struct Epoch<'a, D, P>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    loader: &'a Loader<D, P>,
    epoch: u64,
    /// Positions of the order consumed (by all ranks) before this iterator.
    cursor: usize,
    /// The length of the epoch's order.
    order_len: usize,
    /// This rank's indices, in order.
    local: Arc<ShardOrder>,
    batches: usize,
    delivered: usize,
    submitted: usize,
    ready: BTreeMap<usize, Outcome<P::Processed>>,
    claims: Arc<Claims>,
    sender: Sender<(usize, Outcome<P::Processed>)>,
    receiver: Receiver<(usize, Outcome<P::Processed>)>,
    cancel: Arc<AtomicBool>,
    finished: bool,
    failure: Option<Error>,
    skipped: Vec<Skipped>,
    started: Option<Instant>,
    /// The read stage, where the loader has one.
    reads: Option<Arc<ReadAhead>>,
    /// Where this epoch's positions start in its read stage (past the
    /// epoch before's, where it took that epoch's stage over).
    offset: usize,
    /// What this epoch measured of its consumer, for a memory budget.
    pace: Pace,
    /// Its number among the loader's epochs started
    /// ([`Loader::epoch_started`]).
    started_as: u64,
    /// Its progress through its batches, where the loader shows it
    /// ([`LoaderBuilder::progress`](super::LoaderBuilder::progress)).
    progress: Option<adl_core::progress::Progress>,
}

/// What an epoch measures of its consumer: its own time between batches,
/// and the samples it was given.
#[derive(Debug, Default)]
struct Pace {
    /// When the last batch was handed over.
    handed: Option<Instant>,
    /// The consumer's time between batches, summed.
    consumer: Duration,
    /// Intervals in `consumer`.
    intervals: u64,
    /// Samples delivered.
    samples: u64,
}

/// Choose again what `loader` runs with under its memory budget (if it
/// has one), from what it measured and what the epoch measured of its
/// consumer (`pace`, since `started`), and apply it: batches ahead, the
/// pool's batches, the read stage's bound (`reads`, the epoch's stage)
/// and its readers.
fn retune<D, P>(
    loader: &Loader<D, P>,
    reads: Option<&ReadAhead>,
    pace: &Pace,
    started: Option<Instant>,
) where
    D: Dataset,
{
    let shared = &loader.shared;
    let Some(tuner) = shared.policy.tuner() else {
        return;
    };
    let config = &shared.config;
    let buffers = shared.buffers.statistics();
    // Batches built: the collate's calls.
    let built = shared.counters.estimate(shared.slot(Slot::Collate)).0;
    // A batch's memory: its buffers (kept or too small to pool) as the
    // largest given back, or, before one is, what the batches took of the
    // pool; and what its type holds outside the pool (Python's arrays).
    let pooled = if buffers.largest_batch_bytes > 0 {
        Some(buffers.largest_batch_bytes as u64)
    } else {
        (built > 0).then(|| buffers.taken_bytes / built)
    };
    let unpooled =
        (buffers.largest_unpooled_bytes > 0).then_some(buffers.largest_unpooled_bytes as u64);
    let batch_bytes = match (pooled, unpooled) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
    let build = (built > 0).then(|| {
        let time = [Slot::Read, Slot::Sample, Slot::Collate, Slot::Batch]
            .into_iter()
            .map(|slot| shared.counters.estimate(shared.slot(slot)).2)
            .sum::<Duration>();
        time / u32::try_from(built).unwrap_or(u32::MAX)
    });
    let consumer = (pace.intervals > 0)
        .then(|| pace.consumer / u32::try_from(pace.intervals).unwrap_or(u32::MAX));
    let read = loader.readers.as_ref().map(|readers| {
        let stats = *shared.reads.lock().unwrap_or_else(|p| p.into_inner());
        let per_read = |total: u64| (stats.reads > 0).then(|| total / stats.reads);
        let rate = started
            .map(|s| s.elapsed().as_secs_f64())
            .filter(|&s| s > 0.0 && pace.samples > 0)
            .map(|s| pace.samples as f64 / s);
        // A reader's read: the largest sensor's, on average (a sample's
        // where the dataset names no sensors).
        let read_bytes = shared
            .sensor_reads
            .snapshot()
            .iter()
            .filter(|s| s.reads > 0)
            .map(|s| s.bytes / s.reads)
            .max();
        tuning::ReadMeasures {
            start: readers.start(),
            most: readers.ceiling(),
            sample_bytes: per_read(stats.bytes),
            read_bytes: read_bytes.or_else(|| per_read(stats.bytes)),
            latency: (stats.reads > 0)
                .then(|| stats.time / u32::try_from(stats.reads).unwrap_or(u32::MAX)),
            rate,
        }
    });
    let chosen = tuner.choose(tuning::Measures {
        budget: tuner.budget,
        workers: loader.pool.as_ref().map_or(0, |p| p.current_num_threads()),
        batch_size: config.batch_size,
        fixed_window: config.batches_ahead_set.then_some(config.batches_ahead),
        fixed_bound: config.read_bound_set.then_some(config.read_bound),
        batch_bytes,
        build,
        consumer,
        read,
    });
    shared.buffers.set_batches(chosen.batches_ahead + 2);
    if let Some(readers) = &loader.readers {
        readers.cap(chosen.readers);
        shared
            .reads
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .threads = readers.now();
    }
    if let Some(stage) = reads {
        stage.set_bound(chosen.read_bound);
    }
}

impl<'a, D, P> Epoch<'a, D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + Send + 'static,
{
    pub(crate) fn start(loader: &'a Loader<D, P>, epoch: u64, cursor: usize) -> Self {
        let shared = &loader.shared;
        let started_as = loader.epoch_started();
        // The stage of the epoch before, which read this one's first
        // positions with this epoch's order (made then), where this epoch
        // starts from its beginning.
        let carried = loader.carried_reads(epoch, cursor).and_then(|stage| {
            let Some((start, local)) = stage.start_next_epoch() else {
                stage.stop();
                return None;
            };
            Some((stage, start, local))
        });
        let (local, order_len, failure) = match &carried {
            Some((_, _, local)) => (Arc::clone(local), local.order_len(), None),
            None => {
                let (order, failure) =
                    match epoch_order(&*shared.config.order, epoch, shared.dataset.len()) {
                        Ok(order) => (order, None),
                        Err(e) => (super::order::nothing(), Some(e)),
                    };
                let order_len = order.len();
                let local = Arc::new(ShardOrder::new(order, shared.config.shard, cursor));
                (local, order_len, failure)
            }
        };
        let b = shared.config.batch_size.max(1);
        let batches = if shared.config.drop_last {
            local.len() / b
        } else {
            local.len().div_ceil(b)
        };
        let (sender, receiver) = channel();
        let (stage, offset) = match carried {
            Some((stage, start, _)) => (Some(stage), start),
            None => {
                let stage = loader.readers.as_ref().map(|readers| {
                    let bound = (shared.plan.schedule().readers()).map_or(1, |(_, bound)| bound);
                    Arc::new(ReadAhead::new(
                        Arc::clone(&local),
                        bound,
                        Arc::clone(&shared.reads),
                        Arc::clone(readers),
                        Arc::clone(&shared.sensor_reads),
                        Arc::clone(&shared.unused_reads),
                        shared.timeline.clone(),
                    ))
                });
                (stage, 0)
            }
        };
        // Once this epoch's reads are all started, the next epoch's first
        // window of batches is read too, so that it does not start by
        // waiting for its reads.
        if let Some(stage) = &stage
            && shared.config.read_next_epoch
            && failure.is_none()
            && let Some(next) = epoch.checked_add(1)
            && let Ok(order) = epoch_order(&*shared.config.order, next, shared.dataset.len())
        {
            let positions = shared.policy.batches_ahead().saturating_mul(b);
            let next_local = ShardOrder::new(order, shared.config.shard, 0);
            stage.read_into_next(Arc::new(next_local), positions);
        }
        // Under a memory budget, what earlier epochs measured sizes this
        // one from its start, before its readers start.
        retune(loader, stage.as_deref(), &Pace::default(), None);
        let reads = stage.zip(loader.readers.as_ref()).map(|(stage, readers)| {
            let started = (0..readers.now())
                .filter(|&id| spawn_reader(&stage, shared, id))
                .count();
            if started == 0 {
                // No thread to read ahead: the workers read for themselves.
                stage.stop();
            }
            stage
        });
        Epoch {
            loader,
            epoch,
            cursor,
            order_len,
            local,
            batches,
            delivered: 0,
            submitted: 0,
            ready: BTreeMap::new(),
            claims: Arc::new(Claims::default()),
            sender,
            receiver,
            cancel: Arc::new(AtomicBool::new(false)),
            finished: false,
            failure,
            skipped: Vec::new(),
            started: None,
            reads,
            offset,
            pace: Pace::default(),
            started_as,
            progress: shared.config.progress.then(|| {
                adl_core::progress::Progress::items(
                    format!("epoch {epoch}"),
                    batches as u64,
                    "batches",
                )
            }),
        }
    }

    /// The epoch's number.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// How many batches this rank reads in this epoch (from where it
    /// started), skipped ones included.
    pub fn batches(&self) -> usize {
        self.batches
    }

    /// This rank's dataset indices for the epoch (from where it started), in
    /// order, after sharding (`drop_last` may leave the last few unread):
    /// computed per position, never held whole (see [`ShardOrder`]).
    pub fn indices(&self) -> &ShardOrder {
        &self.local
    }

    /// The samples skipped so far ([`OnError::Skip`](adl_core::OnError::Skip)), in delivery order.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Where the epoch stands: resume it with [`Loader::resume`]. After an
    /// error ([`OnError::Fail`](adl_core::OnError::Fail)) it points at the failed batch, so a resume
    /// (once the cause is fixed) reads it again.
    pub fn state(&self) -> LoaderState {
        let shared = &self.loader.shared;
        let consumed = self.delivered * shared.config.batch_size * shared.config.shard.world;
        LoaderState {
            version: STATE_VERSION,
            epoch: self.epoch,
            cursor: (self.cursor + consumed).min(self.order_len) as u64,
            sampler: shared.sampler.clone(),
            seed: shared.config.seed,
            pipeline: shared.fingerprint,
            dataset_len: shared.dataset.len() as u64,
        }
    }

    /// Open the window to `prefetch` batches past the last delivered one,
    /// and give the pool jobs while a batch of the window is left to take,
    /// as many at once as the loader builds at once ([`Policy::building`](super::policy::Policy::building):
    /// every worker, but under a memory budget as many as keep up with the
    /// consumer). A job builds the lowest batch not yet taken, and the next,
    /// until none is left; so a worker that keeps up stays on its job
    /// instead of being handed one per batch.
    fn top_up(&mut self, pool: &rayon::ThreadPool) {
        let shared = &self.loader.shared;
        let prefetch = shared.policy.batches_ahead();
        while self.submitted < self.batches && self.submitted - self.delivered < prefetch {
            self.submitted += 1;
        }
        self.claims.let_in(self.submitted);
        let most = building(shared, pool.current_num_threads());
        while self.claims.claimable() {
            let Some(job) = self.claims.try_job(most) else {
                break;
            };
            let worker = Worker {
                shared: Arc::clone(&self.loader.shared),
                local: Arc::clone(&self.local),
                sender: self.sender.clone(),
                cancel: Arc::clone(&self.cancel),
                stage: self.reads.clone(),
                offset: self.offset,
                epoch: self.epoch,
            };
            pool.spawn(move || worker.run(job));
        }
    }

    /// Build batch `k` on the consumer's thread.
    fn build_here(&self, k: usize) -> Outcome<P::Processed> {
        let shared = &self.loader.shared;
        let range = batch_range(shared, &self.local, k);
        let reads = self
            .reads
            .as_deref()
            .map(|s| (s, self.offset + range.start));
        build(
            shared,
            false,
            self.epoch,
            k,
            &self.local.slice(range),
            reads,
        )
    }

    /// The outcome of batch `self.delivered`, waiting for it if need be:
    /// while it waits, the consumer's thread builds the next batch no one
    /// has taken (unless `build_while_waiting(false)`, or the batches are
    /// worth splitting across the workers).
    fn next_outcome(&mut self) -> Outcome<P::Processed> {
        let k = self.delivered;
        let Some(pool) = self.loader.pool.clone() else {
            let start = Instant::now();
            let out = self.build_here(k);
            self.waited(start.elapsed());
            self.trace_wait(k, start, &out);
            return out;
        };
        self.top_up(&pool);
        if let Some(out) = self.ready.remove(&k) {
            return out;
        }
        // A batch worth splitting across the workers is left to them: the
        // consumer's thread would build it alone, `workers` times slower.
        let shared = &self.loader.shared;
        let assist =
            shared.config.build_while_waiting && !shared.worth_splitting(shared.config.batch_size);
        let start = Instant::now();
        let out = loop {
            // What the workers finished meanwhile.
            let mut arrived = None;
            while let Ok((j, out)) = self.receiver.try_recv() {
                if j == k {
                    arrived = Some(out);
                    break;
                }
                self.ready.insert(j, out);
            }
            if let Some(out) = arrived {
                break out;
            }
            if assist && let Some(j) = self.claims.claim() {
                let began = Instant::now();
                let out = self.build_here(j);
                self.built_here(began.elapsed());
                if j == k {
                    break out;
                }
                self.ready.insert(j, out);
                continue;
            }
            // Every batch of the window is being built, or waits for a
            // job: wait for one.
            match self.receive() {
                Ok((j, out)) if j == k => break out,
                Ok((j, out)) => {
                    self.ready.insert(j, out);
                    // A job ended: the next may start.
                    self.top_up(&pool);
                }
                // Unreachable while `self.sender` lives; kept as an error,
                // not a hang or a panic.
                Err(_) => {
                    break Outcome::Failed(Error::internal(
                        "loader::epoch",
                        format!("loader: the workers stopped before batch {k} was built"),
                    ));
                }
            }
        };
        self.waited(start.elapsed());
        self.trace_wait(k, start, &out);
        out
    }

    /// On the timeline, where there is one: the consumer waited for batch
    /// `k` from `start` until now.
    fn trace_wait(&self, k: usize, start: Instant, out: &Outcome<P::Processed>) {
        if let Some(timeline) = &self.loader.shared.timeline {
            let samples = out.samples();
            timeline.span(What::Wait, About::Batch { batch: k, samples }, start);
        }
    }

    /// The next finished batch. A batch is usually a few microseconds
    /// away, less than it takes to put this thread to sleep and wake it
    /// again: poll first, yielding the core to the workers between polls,
    /// and block only after [`POLLS`] polls.
    fn receive(&self) -> Result<(usize, Outcome<P::Processed>), std::sync::mpsc::RecvError> {
        for _ in 0..POLLS {
            match self.receiver.try_recv() {
                Ok(message) => return Ok(message),
                Err(std::sync::mpsc::TryRecvError::Empty) => std::thread::yield_now(),
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    return Err(std::sync::mpsc::RecvError);
                }
            }
        }
        self.receiver.recv()
    }

    fn waited(&self, d: Duration) {
        let mut totals = self.loader.shared.totals();
        totals.waited += d;
    }

    /// Count a batch the consumer's thread built while it waited.
    fn built_here(&self, d: Duration) {
        let mut totals = self.loader.shared.totals();
        totals.built_here += d;
        totals.batches_built_here += 1;
    }
}

impl<D, P> Iterator for Epoch<'_, D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + Send + 'static,
{
    type Item = Result<Batch<P::Processed>>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.failure.take() {
            self.close();
            return Some(Err(e));
        }
        if let Some(handed) = self.pace.handed.take() {
            self.pace.consumer += handed.elapsed();
            self.pace.intervals += 1;
        }
        loop {
            if self.finished || self.delivered >= self.batches {
                self.close();
                return None;
            }
            self.started.get_or_insert_with(Instant::now);
            let outcome = self.next_outcome();
            let shared = &self.loader.shared;
            // A failed batch is not consumed: a state taken after the error
            // resumes at it.
            if !matches!(outcome, Outcome::Failed(_)) {
                self.delivered += 1;
            }
            match outcome {
                Outcome::Batch {
                    batch,
                    samples,
                    indices,
                    skipped,
                } => {
                    let mut totals = shared.totals();
                    totals.batches += 1;
                    totals.samples += samples as u64;
                    totals.skipped += skipped.len() as u64;
                    drop(totals);
                    self.skipped.extend(skipped);
                    self.pace.samples += samples as u64;
                    if shared.policy.tuner().is_some() {
                        shared.buffers.note_unpooled(batch.unpooled_bytes());
                    }
                    if shared.policy.retunes_after(self.delivered) {
                        retune(self.loader, self.reads.as_deref(), &self.pace, self.started);
                    }
                    // The consumer's pace is for a memory budget's tuner
                    // alone: without one the clock is not read for it.
                    if shared.policy.tuner().is_some() {
                        self.pace.handed = Some(Instant::now());
                    }
                    if let Some(progress) = &mut self.progress {
                        progress.add(1);
                    }
                    return Some(Ok(Batch::new(batch, Arc::clone(&shared.buffers), indices)));
                }
                Outcome::Empty { skipped } => {
                    let mut totals = shared.totals();
                    totals.skipped += skipped.len() as u64;
                    drop(totals);
                    self.skipped.extend(skipped);
                }
                Outcome::Failed(e) => {
                    self.close();
                    return Some(Err(e));
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = if self.finished {
            0
        } else {
            self.batches - self.delivered
        };
        (0, Some(left + usize::from(self.failure.is_some())))
    }
}

impl<D, P> Epoch<'_, D, P>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    /// End the epoch: stop work not yet started, and count its wall time
    /// (once, when it ends or is dropped).
    fn close(&mut self) {
        self.finished = true;
        if let Some(progress) = self.progress.take() {
            progress.finish();
        }
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(stage) = self.reads.take() {
            // An epoch read to its end leaves its stage, reading the next
            // epoch's first positions, to the loader; else it stops.
            match self.epoch.checked_add(1) {
                Some(next)
                    if self.loader.shared.config.read_next_epoch
                        && self.delivered >= self.batches =>
                {
                    self.loader.carry_reads(next, stage, self.started_as)
                }
                _ => stage.stop(),
            }
        }
        if let Some(start) = self.started.take() {
            let mut totals = self.loader.shared.totals();
            totals.wall += start.elapsed();
            drop(totals);
            // The epoch ran: its timeline so far, written.
            if let Some(timeline) = &self.loader.shared.timeline {
                timeline.write_or_say();
            }
        }
    }
}

impl<D, P> Drop for Epoch<'_, D, P>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    fn drop(&mut self) {
        self.close();
    }
}

/// Epoch `epoch`'s order over `len` samples, checked to have the
/// positions `order` says its epochs have (a program's own order that
/// does not would misplace a resumed epoch).
fn epoch_order(order: &dyn Order, epoch: u64, len: usize) -> Result<Arc<dyn EpochOrder>> {
    let made = order.epoch(epoch, len)?;
    let said = order.len(len);
    if made.len() != said {
        return Err(adl_core::Error::invalid(
            "order",
            format!(
                "{} made epoch {epoch} of {} positions, where its len() says {said}",
                order.describe(),
                made.len()
            ),
        ));
    }
    Ok(made)
}

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use adl_core::exec::{Recycle, panic_message};
use adl_core::{Dataset, Error, Pipeline, Result};
use rayon::prelude::*;

use super::context::{Counters, JobContext};
use super::state::STATE_VERSION;
use super::{Batch, Loader, LoaderState, OnError, Shared, Slot};

/// How many times the consumer polls for a batch before it sleeps.
const POLLS: usize = 64;

/// A sample left out of an epoch under [`OnError::Skip`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its dataset index.
    pub index: usize,
    /// The node that failed (`dataset` for a read).
    pub node: String,
    /// The error, in words.
    pub reason: String,
}

/// What a job made of one batch.
enum Outcome<T> {
    Batch {
        batch: T,
        samples: usize,
        skipped: Vec<Skipped>,
    },
    Empty {
        skipped: Vec<Skipped>,
    },
    Failed(Error),
}

/// Which batches of an epoch may be built and which one is next: the
/// workers' jobs and the consumer's thread take batches from it, lowest
/// first, so that each is built once and the one the consumer needs next
/// is never left behind.
#[derive(Debug, Default)]
struct Claims {
    /// The lowest batch no one has taken.
    next: AtomicUsize,
    /// Batches below this may be taken (the prefetch window's end).
    limit: AtomicUsize,
}

impl Claims {
    /// Take the lowest batch not yet taken, if it is inside the window.
    fn claim(&self) -> Option<usize> {
        let mut next = self.next.load(Ordering::Acquire);
        loop {
            if next >= self.limit.load(Ordering::Acquire) {
                return None;
            }
            match self.next.compare_exchange_weak(
                next,
                next + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some(next),
                Err(now) => next = now,
            }
        }
    }
}

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
    local: Arc<[usize]>,
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
        let (order, failure) = match shared.config.sampler.order(epoch, shared.dataset.len()) {
            Ok(order) => (order, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let local: Arc<[usize]> = shared.config.shard.split(&order, cursor).into();
        let b = shared.config.batch_size.max(1);
        let batches = if shared.config.drop_last {
            local.len() / b
        } else {
            local.len().div_ceil(b)
        };
        let (sender, receiver) = channel();
        Epoch {
            loader,
            epoch,
            cursor,
            order_len: order.len(),
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
    /// order, after sharding (`drop_last` may leave the last few unread).
    pub fn indices(&self) -> &[usize] {
        &self.local
    }

    /// The samples skipped so far ([`OnError::Skip`]), in delivery order.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Where the epoch stands: resume it with [`Loader::resume`]. After an
    /// error ([`OnError::Fail`]) it points at the failed batch, so a resume
    /// (once the cause is fixed) reads it again.
    pub fn state(&self) -> LoaderState {
        let shared = &self.loader.shared;
        let consumed = self.delivered * shared.config.batch_size * shared.config.shard.world;
        LoaderState {
            version: STATE_VERSION,
            epoch: self.epoch,
            cursor: (self.cursor + consumed).min(self.order_len) as u64,
            sampler: shared.config.sampler.describe(),
            seed: shared.config.seed,
            pipeline: shared.fingerprint,
            dataset_len: shared.dataset.len() as u64,
        }
    }

    /// Open the window to `prefetch` batches past the last delivered one,
    /// with one job on the pool for each batch it lets in (a job builds
    /// the lowest batch not yet taken, if any is left).
    fn top_up(&mut self, pool: &rayon::ThreadPool) {
        let prefetch = self.loader.shared.config.prefetch.max(1);
        while self.submitted < self.batches && self.submitted - self.delivered < prefetch {
            self.submitted += 1;
            self.claims.limit.store(self.submitted, Ordering::Release);
            let shared = Arc::clone(&self.loader.shared);
            let local = Arc::clone(&self.local);
            let sender = self.sender.clone();
            let cancel = Arc::clone(&self.cancel);
            let claims = Arc::clone(&self.claims);
            let epoch = self.epoch;
            pool.spawn(move || {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                // The consumer's thread may have taken this job's batch.
                let Some(k) = claims.claim() else { return };
                let range = batch_range(&shared, &local, k);
                let outcome = build(&shared, true, epoch, k, &local[range]);
                // The receiver is gone when the epoch was dropped: nothing
                // waits for this batch any more.
                let _ = sender.send((k, outcome));
            });
        }
    }

    /// Build batch `k` on the consumer's thread.
    fn build_here(&self, k: usize) -> Outcome<P::Processed> {
        let shared = &self.loader.shared;
        let range = batch_range(shared, &self.local, k);
        shared
            .buffers
            .install(|| build(shared, false, self.epoch, k, &self.local[range]))
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
            // Every batch of the window is being built: wait for one.
            match self.receive() {
                Ok((j, out)) if j == k => break out,
                Ok((j, out)) => {
                    self.ready.insert(j, out);
                }
                // Unreachable while `self.sender` lives; kept as an error,
                // not a hang or a panic.
                Err(_) => {
                    break Outcome::Failed(Error::invalid(
                        "loader",
                        format!("the workers stopped before batch {k} was built"),
                    ));
                }
            }
        };
        self.waited(start.elapsed());
        out
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

/// The indices (positions in `local`) of batch `k`.
fn batch_range<D, P>(shared: &Shared<D, P>, local: &[usize], k: usize) -> std::ops::Range<usize> {
    let b = shared.config.batch_size;
    (k * b).min(local.len())..((k + 1) * b).min(local.len())
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
                    skipped,
                } => {
                    let mut totals = shared.totals();
                    totals.batches += 1;
                    totals.samples += samples as u64;
                    totals.skipped += skipped.len() as u64;
                    drop(totals);
                    self.skipped.extend(skipped);
                    return Some(Ok(Batch::new(batch, Arc::clone(&shared.buffers))));
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
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(start) = self.started.take() {
            let mut totals = self.loader.shared.totals();
            totals.wall += start.elapsed();
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

/// A caught panic as an error of `node` on sample `index`.
fn panicked(node: &str, index: Option<usize>, payload: &(dyn std::any::Any + Send)) -> Error {
    Error::Panic {
        node: node.to_owned(),
        index,
        message: panic_message(payload),
    }
}

/// Read sample `index`, run the sample stage on it in `cx`, and push the
/// result onto `into`.
///
/// The sample never passes through `catch_unwind`'s return value: it is
/// pushed inside the closure, and an error is left beside it. A value
/// returned through `catch_unwind` goes through memory, and reading it
/// back stalled the CPU on every one of W1's cheap samples.
#[inline(always)]
fn one_sample<D, P>(
    shared: &Shared<D, P>,
    cx: &JobContext<'_>,
    index: usize,
    into: &mut Vec<P::Transformed>,
) -> Result<()>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    let counters = cx.counters;
    let mut failure = None;
    // Where a panic came from.
    let mut node = "dataset";
    let caught = catch_unwind(AssertUnwindSafe(|| {
        let read = shared.slot(Slot::Read);
        let entered = counters.enter(read);
        let raw = shared.dataset.get(index);
        counters.leave(read, entered);
        let raw = match raw {
            Ok(raw) => raw,
            Err(e) => {
                failure = Some(Error::Sample {
                    index,
                    node: "dataset".to_owned(),
                    source: Box::new(e),
                });
                return;
            }
        };
        node = "sample stage";
        let cx = cx.at(index);
        let slot = shared.slot(Slot::Sample);
        let entered = counters.enter(slot);
        let out = shared.pipeline.sample_in(&cx, raw);
        counters.leave(slot, entered);
        match out {
            Ok(sample) => into.push(sample),
            Err(e @ Error::Panic { .. }) => failure = Some(e),
            Err(e) => {
                failure = Some(Error::Sample {
                    index,
                    node: e.node().unwrap_or("sample stage").to_owned(),
                    source: Box::new(e),
                });
            }
        }
    }));
    if let Err(payload) = caught {
        return Err(panicked(node, Some(index), payload.as_ref()));
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// How many samples ahead the loader asks the dataset to prefetch.
const PREFETCH_AHEAD: usize = 4;

/// The samples of a run of indices that were read and transformed, in
/// order, and the failures among them (by their place in the run).
struct Piece<T> {
    samples: Vec<T>,
    failed: Vec<(usize, Error)>,
}

/// Read and transform the samples of `indices` in order, each one after
/// asking the dataset to prefetch the one [`PREFETCH_AHEAD`] further. The
/// samples go straight into one vector (no `Result` per sample); a failure
/// is kept beside them with its place.
fn samples_of<D, P>(
    shared: &Shared<D, P>,
    cx: &JobContext<'_>,
    indices: &[usize],
) -> Piece<P::Transformed>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    for &i in indices.iter().take(PREFETCH_AHEAD) {
        shared.dataset.prefetch(i);
    }
    let mut piece = Piece {
        samples: Vec::with_capacity(indices.len()),
        failed: Vec::new(),
    };
    for (k, &i) in indices.iter().enumerate() {
        if let Some(&ahead) = indices.get(k + PREFETCH_AHEAD) {
            shared.dataset.prefetch(ahead);
        }
        if let Err(e) = one_sample(shared, cx, i, &mut piece.samples) {
            piece.failed.push((k, e));
        }
    }
    piece
}

/// `error` of the collate or batch stage of batch `batch`.
fn batch_error(batch: usize, indices: &[usize], stage: &str, error: Error) -> Error {
    Error::Batch {
        batch,
        indices: indices.to_vec(),
        node: error.node().unwrap_or(stage).to_owned(),
        source: Box::new(error),
    }
}

/// Build batch `k` of `indices`: read and transform every sample (in
/// parallel on the pool when `pooled`, results in order), collate, run the
/// batch stage; apply the error policy. Never panics.
fn build<D, P>(
    shared: &Shared<D, P>,
    pooled: bool,
    epoch: u64,
    k: usize,
    indices: &[usize],
) -> Outcome<P::Processed>
where
    D: Dataset + Sync,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Sync,
    P::Transformed: Send,
{
    // On the consumer's thread a job runs on that thread alone.
    let counters = if pooled {
        Counters::new(shared.rows.len())
    } else {
        Counters::local(shared.rows.len())
    };
    let cx = JobContext {
        counters: &counters,
        nodes: shared.nodes,
        pooled,
        seed: shared.config.seed,
        epoch,
        index: None,
        accelerator: shared.accelerator.as_deref(),
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| build_in(shared, &cx, k, indices)))
        .unwrap_or_else(|payload| Outcome::Failed(panicked("loader", None, payload.as_ref())));
    shared.counters.absorb(&counters);
    outcome
}

fn build_in<D, P>(
    shared: &Shared<D, P>,
    cx: &JobContext<'_>,
    k: usize,
    indices: &[usize],
) -> Outcome<P::Processed>
where
    D: Dataset + Sync,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Sync,
    P::Transformed: Send,
{
    // On the pool, one piece per worker (each with its own counters, added
    // to the job's at its end): the samples of a batch run in parallel
    // without a task per sample or a shared cache line per node call. A
    // batch whose samples are cheap runs whole on this worker: splitting it
    // would cost more than it saves, and the other workers are building the
    // next batches meanwhile.
    let piece = if cx.pooled && shared.worth_splitting(indices.len()) {
        indices.len().div_ceil(shared.config.workers.max(1))
    } else {
        indices.len()
    }
    .max(1);
    let pieces: Vec<(usize, Piece<P::Transformed>)> = if piece >= indices.len() {
        vec![(0, samples_of(shared, cx, indices))]
    } else {
        indices
            .par_chunks(piece)
            .enumerate()
            .map(|(p, part)| {
                let counters = Counters::new(shared.rows.len());
                let local = cx.with_counters(&counters);
                let out = samples_of(shared, &local, part);
                cx.counters.absorb(&counters);
                (p * piece, out)
            })
            .collect()
    };
    let skip = shared.config.on_error == OnError::Skip;
    let mut skipped = Vec::new();
    // The indices of the samples kept: all of them, unless some failed.
    let mut failed_at = Vec::new();
    let mut samples = Vec::new();
    for (start, piece) in pieces {
        for (k, e) in piece.failed {
            let index = indices[start + k];
            if !skip {
                return Outcome::Failed(e);
            }
            failed_at.push(start + k);
            skipped.push(Skipped {
                index,
                node: e.node().unwrap_or("sample stage").to_owned(),
                reason: e.to_string(),
            });
        }
        if samples.is_empty() {
            samples = piece.samples;
        } else {
            samples.extend(piece.samples);
        }
    }
    let kept: std::borrow::Cow<'_, [usize]> = if failed_at.is_empty() {
        std::borrow::Cow::Borrowed(indices)
    } else {
        // `failed_at` is in increasing order: one pass.
        let mut failed = failed_at.iter().peekable();
        std::borrow::Cow::Owned(
            indices
                .iter()
                .enumerate()
                .filter(|&(k, _)| failed.next_if_eq(&&k).is_none())
                .map(|(_, &i)| i)
                .collect(),
        )
    };
    if samples.is_empty() {
        return Outcome::Empty { skipped };
    }
    let count = samples.len();
    let fail = |stage: &str, e: Error, skipped: Vec<Skipped>| {
        let e = batch_error(k, &kept, stage, e);
        if skip {
            let node = e.node().unwrap_or(stage).to_owned();
            let reason = e.to_string();
            let mut skipped = skipped;
            skipped.extend(kept.iter().map(|&index| Skipped {
                index,
                node: node.clone(),
                reason: reason.clone(),
            }));
            Outcome::Empty { skipped }
        } else {
            Outcome::Failed(e)
        }
    };
    let collated = cx.counters.time(shared.slot(Slot::Collate), || {
        catch_unwind(AssertUnwindSafe(|| shared.pipeline.collate_in(cx, samples)))
    });
    let collated = match collated {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return fail("collate", e, skipped),
        Err(p) => return fail("collate", panicked("collate", None, p.as_ref()), skipped),
    };
    let batch = cx.counters.time(shared.slot(Slot::Batch), || {
        catch_unwind(AssertUnwindSafe(|| shared.pipeline.batch_in(cx, collated)))
    });
    match batch {
        Ok(Ok(batch)) => Outcome::Batch {
            batch,
            samples: count,
            skipped,
        },
        Ok(Err(e)) => fail("batch", e, skipped),
        Err(p) => fail("batch", panicked("batch stage", None, p.as_ref()), skipped),
    }
}

//! The job that builds one batch: read and transform its samples (split
//! across the workers when they are worth it), apply the error policy,
//! collate, run the batch stage. Never panics: a panic of a node is an
//! error naming it.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};

use adl_core::storage::Ahead;
use adl_core::storage::Fetched;
use adl_core::{Dataset, Error, Origin, Pipeline, Result};
use adl_exec::{Buffers, panic_message};
use rayon::prelude::*;

use super::context::{Counters, JobContext, since};
use super::policy::Policy;
use adl_core::OnError;

use super::read_ahead::ReadAhead;
use super::timeline::{About, What};
use super::{Shared, Slot};

/// The epoch's read stage and the position of a job's (or a piece's, or a
/// sample's) first sample in the epoch's order, where the loader has one.
pub(crate) type Reads<'a> = Option<(&'a ReadAhead, usize)>;

/// A sample left out of an epoch under [`OnError::Skip`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its dataset index.
    pub index: usize,
    /// The node that failed (`dataset` for a read).
    pub node: String,
    /// The error, in words.
    pub reason: String,
    /// Where the sample comes from (its trace, each sensor's file and
    /// row), as far as the dataset knows ([`Origin::of`]: its
    /// [`storage`](Dataset::storage)'s).
    pub origin: Origin,
}

/// Sample `index`'s origin, or just its index where the dataset cannot
/// say more.
fn origin_of<D: Dataset>(dataset: &D, index: usize) -> Origin {
    Origin::of(dataset, index).unwrap_or_else(|_| Origin::unknown(index))
}

/// What a job made of one batch.
pub(crate) enum Outcome<T> {
    Batch {
        batch: T,
        samples: usize,
        /// Its samples' dataset indices, where the loader hands them out.
        indices: Option<Box<[usize]>>,
        skipped: Vec<Skipped>,
    },
    Empty {
        skipped: Vec<Skipped>,
    },
    Failed(Error),
}

impl<T> Outcome<T> {
    /// The samples of the batch made; none for one left out or failed.
    pub(crate) fn samples(&self) -> usize {
        match self {
            Outcome::Batch { samples, .. } => *samples,
            Outcome::Empty { .. } | Outcome::Failed(_) => 0,
        }
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
    reads: Reads<'_>,
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
        // The read stage's fetch of this sample, done (or waited for),
        // handed to its get.
        let fetched = match reads {
            Some((stage, position)) => stage.take(position),
            None => Fetched::Nothing,
        };
        let read = shared.slot(Slot::Read);
        let entered = counters.enter(read);
        let traced = cx.timeline.map(|t| (t, std::time::Instant::now()));
        let raw = if entered.is_some() {
            // A timed read: each sensor's share of it too.
            let (raw, times) =
                adl_exec::sensor_times(|| shared.dataset.get_fetched(index, fetched));
            for (sensor, took) in times.into_iter().enumerate() {
                shared.sensor_reads.count_get(sensor, took);
            }
            raw
        } else {
            shared.dataset.get_fetched(index, fetched)
        };
        counters.leave(read, entered);
        if let Some((timeline, began)) = traced {
            timeline.span(What::Get, About::Sample(index), began);
        }
        if let Some((stage, _)) = reads {
            stage.say_unused(std::any::type_name::<D>());
        }
        let raw = match raw {
            Ok(raw) => raw,
            Err(e) => {
                failure = Some(read_failed(index, e));
                return;
            }
        };
        node = "sample stage";
        let cx = cx.at(index);
        let slot = shared.slot(Slot::Sample);
        let entered = counters.enter(slot);
        let traced = cx.timeline.map(|t| (t, std::time::Instant::now()));
        let out = shared.pipeline.sample_in(&cx, raw);
        counters.leave(slot, entered);
        if let Some((timeline, began)) = traced {
            timeline.span(What::Sample, About::Sample(index), began);
        }
        match out {
            Ok(sample) => into.push(sample),
            Err(e @ Error::Panic { .. }) => failure = Some(e),
            Err(e) => {
                failure = Some(Error::Sample {
                    index,
                    node: e.node().unwrap_or("sample stage").to_owned(),
                    cause: Box::new(e),
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

/// The samples of a run of indices that were read and transformed, in
/// order, and the failures among them (by their place in the run).
struct Piece<T> {
    samples: Vec<T>,
    failed: Vec<(usize, Error)>,
}

/// Read and transform the samples of `indices` in order, each one after
/// asking the dataset to prefetch the one [`Policy::HINTS_AHEAD`] further. The
/// samples go straight into one vector (no `Result` per sample); a failure
/// is kept beside them with its place.
fn samples_of<D, P>(
    shared: &Shared<D, P>,
    cx: &JobContext<'_>,
    indices: &[usize],
    reads: Reads<'_>,
) -> Piece<P::Transformed>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    if shared.reads_many
        && reads.is_none()
        && cx.timeline.is_none()
        && let Some(piece) = read_many(shared, cx, indices)
    {
        return piece;
    }
    let hints = (shared.dataset.storage()).filter(|s| s.ahead() == Ahead::Hints);
    if let Some(hints) = hints {
        for &i in indices.iter().take(Policy::HINTS_AHEAD) {
            hints.prefetch(i);
        }
    }
    let mut piece = Piece {
        samples: Vec::with_capacity(indices.len()),
        failed: Vec::new(),
    };
    for (k, &i) in indices.iter().enumerate() {
        if let (Some(hints), Some(&ahead)) = (hints, indices.get(k + Policy::HINTS_AHEAD)) {
            hints.prefetch(ahead);
        }
        let at = reads.map(|(stage, start)| (stage, start + k));
        if let Err(e) = one_sample(shared, cx, i, at, &mut piece.samples) {
            piece.failed.push((k, e));
        }
    }
    piece
}

/// The samples of `indices` read in one [`Dataset::get_many`] call, passed
/// through the sample stage that leaves them as they are
/// ([`Shared::reads_many`]): one timed call, no work per sample. `None`
/// where the call panicked or gave back other than one sample or one
/// failure per index, in order: the caller then reads them one by one,
/// which names the sample at fault.
fn read_many<D, P>(
    shared: &Shared<D, P>,
    cx: &JobContext<'_>,
    indices: &[usize],
) -> Option<Piece<P::Transformed>>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    let mut raws = Vec::with_capacity(indices.len());
    let mut failed = Vec::new();
    let timed = cx.times_batch();
    let began = timed.then(std::time::Instant::now);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        shared.dataset.get_many(indices, &mut raws, &mut failed)
    }));
    // Each failure's place within the indices, in increasing order, and
    // every other index a sample.
    let places_hold = failed.windows(2).all(|w| w[0].0 < w[1].0)
        && failed.last().is_none_or(|(k, _)| *k < indices.len())
        && raws.len() + failed.len() == indices.len();
    let read = began.map(since);
    if caught.is_err() || !places_hold {
        return None;
    }
    let began = timed.then(std::time::Instant::now);
    let passed = raws.len();
    let samples = shared.pipeline.sample_unchanged(raws).ok()?;
    // Counted once kept: a call read again one by one counts there.
    (cx.counters).record_many(shared.slot(Slot::Sample), passed, began.map(since));
    (cx.counters).record_many(shared.slot(Slot::Read), indices.len(), read);
    let failed = failed
        .into_iter()
        .map(|(k, e)| (k, read_failed(indices[k], e)))
        .collect();
    Some(Piece { samples, failed })
}

/// The dataset's failure to read sample `index`, as the loader names it.
fn read_failed(index: usize, cause: Error) -> Error {
    Error::Sample {
        index,
        node: "dataset".to_owned(),
        cause: Box::new(cause),
    }
}

/// `error` of the collate or batch stage of batch `batch`.
fn batch_error(batch: usize, indices: &[usize], stage: &str, error: Error) -> Error {
    Error::Batch {
        batch,
        indices: indices.to_vec(),
        node: error.node().unwrap_or(stage).to_owned(),
        cause: Box::new(error),
    }
}

/// Build batch `k` of `indices`: read and transform every sample (in
/// parallel on the pool when `pooled`, results in order), collate, run the
/// batch stage; apply the error policy. Never panics.
pub(crate) fn build<D, P>(
    shared: &Shared<D, P>,
    pooled: bool,
    epoch: u64,
    k: usize,
    indices: &[usize],
    reads: Reads<'_>,
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
        batch: k,
        accelerator: shared.accelerator.as_deref(),
        buffers: Buffers::from_pool(&shared.buffers),
        fusion: shared.plan.schedule().fusion,
        runs: &shared.runs,
        timeline: shared.timeline.as_deref(),
    };
    // The clock is read for the timeline alone (the counters read their
    // own): a W1 batch takes a few microseconds.
    let began = cx.timeline.map(|_| std::time::Instant::now());
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        build_in(shared, &cx, k, indices, reads)
    }))
    .unwrap_or_else(|payload| Outcome::Failed(panicked("loader", None, payload.as_ref())));
    if let (Some(timeline), Some(began)) = (cx.timeline, began) {
        let samples = outcome.samples();
        timeline.span(What::Job, About::Batch { batch: k, samples }, began);
    }
    shared.counters.absorb(&counters);
    outcome
}

/// Build batch `k` of `indices` in `cx`: its samples, then what the
/// error policy keeps of them, then their collate and batch stage.
fn build_in<D, P>(
    shared: &Shared<D, P>,
    cx: &JobContext<'_>,
    k: usize,
    indices: &[usize],
    reads: Reads<'_>,
) -> Outcome<P::Processed>
where
    D: Dataset + Sync,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Sync,
    P::Transformed: Send,
{
    let pieces = read_and_transform(shared, cx, indices, reads);
    let kept = match keep(shared, indices, pieces) {
        Ok(kept) => kept,
        Err(failed) => return Outcome::Failed(failed),
    };
    if kept.samples.is_empty() {
        return Outcome::Empty {
            skipped: kept.skipped,
        };
    }
    collate_and_batch(shared, cx, k, kept)
}

/// Read and transform the samples of `indices`, in pieces that start at
/// the given positions. On the pool, one piece per worker (each with its
/// own counters, added to the job's at its end): the samples of a batch
/// run in parallel without a task per sample or a shared cache line per
/// node call. A batch whose samples are cheap runs whole on this thread:
/// splitting it would cost more than it saves, and the other workers are
/// building the next batches meanwhile.
fn read_and_transform<D, P>(
    shared: &Shared<D, P>,
    cx: &JobContext<'_>,
    indices: &[usize],
    reads: Reads<'_>,
) -> Vec<(usize, Piece<P::Transformed>)>
where
    D: Dataset + Sync,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Sync,
    P::Transformed: Send,
{
    let piece = if cx.pooled && shared.worth_splitting(indices.len()) {
        indices.len().div_ceil(shared.config.workers.max(1))
    } else {
        indices.len()
    }
    .max(1);
    if piece >= indices.len() {
        return vec![(0, samples_of(shared, cx, indices, reads))];
    }
    indices
        .par_chunks(piece)
        .enumerate()
        .map(|(p, part)| {
            let counters = Counters::new(shared.rows.len());
            let local = cx.with_counters(&counters);
            let at = reads.map(|(stage, start)| (stage, start + p * piece));
            let out = samples_of(shared, &local, part, at);
            cx.counters.absorb(&counters);
            (p * piece, out)
        })
        .collect()
}

/// The samples of a batch that go on to its collate: every one read and
/// transformed, with the dataset indices they came from, and those skipped.
struct Kept<'a, T> {
    samples: Vec<T>,
    indices: Cow<'a, [usize]>,
    skipped: Vec<Skipped>,
}

/// What the error policy keeps of `pieces` (the samples of `indices`):
/// all of them, or (under [`OnError::Skip`]) those that did not fail, the
/// others listed; under [`OnError::Fail`], the first failure.
fn keep<'a, D, P>(
    shared: &Shared<D, P>,
    indices: &'a [usize],
    pieces: Vec<(usize, Piece<P::Transformed>)>,
) -> Result<Kept<'a, P::Transformed>, Error>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    let skip = shared.config.on_error == OnError::Skip;
    let mut skipped = Vec::new();
    // Positions in `indices` of the samples that failed, in order.
    let mut failed_at = Vec::new();
    let mut samples = Vec::new();
    for (start, piece) in pieces {
        for (k, e) in piece.failed {
            if !skip {
                return Err(e);
            }
            failed_at.push(start + k);
            let index = indices[start + k];
            skipped.push(Skipped {
                index,
                node: e.node().unwrap_or("sample stage").to_owned(),
                reason: format!("{e:#}"),
                origin: origin_of(&shared.dataset, index),
            });
        }
        if samples.is_empty() {
            samples = piece.samples;
        } else {
            samples.extend(piece.samples);
        }
    }
    let indices = if failed_at.is_empty() {
        Cow::Borrowed(indices)
    } else {
        // `failed_at` is in increasing order: one pass.
        let mut failed = failed_at.iter().peekable();
        Cow::Owned(
            indices
                .iter()
                .enumerate()
                .filter(|&(k, _)| failed.next_if_eq(&&k).is_none())
                .map(|(_, &i)| i)
                .collect(),
        )
    };
    Ok(Kept {
        samples,
        indices,
        skipped,
    })
}

/// Collate the kept samples of batch `k` and run the batch stage on them;
/// a failure of either fails the batch, or (under [`OnError::Skip`])
/// leaves it out with every sample listed.
fn collate_and_batch<D, P>(
    shared: &Shared<D, P>,
    cx: &JobContext<'_>,
    k: usize,
    kept: Kept<'_, P::Transformed>,
) -> Outcome<P::Processed>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    let Kept {
        samples,
        indices,
        skipped,
    } = kept;
    let count = samples.len();
    let fail = |stage: &str, e: Error, skipped: Vec<Skipped>| {
        let e = batch_error(k, &indices, stage, e);
        if shared.config.on_error == OnError::Skip {
            let node = e.node().unwrap_or(stage).to_owned();
            let reason = format!("{e:#}");
            let mut skipped = skipped;
            skipped.extend(indices.iter().map(|&index| Skipped {
                index,
                node: node.clone(),
                reason: reason.clone(),
                origin: origin_of(&shared.dataset, index),
            }));
            Outcome::Empty { skipped }
        } else {
            Outcome::Failed(e)
        }
    };
    let about = About::Batch {
        batch: k,
        samples: count,
    };
    // Spans on the timeline, where there is one (the clock is read for it
    // alone: the counters read their own).
    let began = || cx.timeline.map(|_| std::time::Instant::now());
    let traced = |what: What, began: Option<std::time::Instant>| {
        if let (Some(timeline), Some(began)) = (cx.timeline, began) {
            timeline.span(what, about, began);
        }
    };
    let began_collate = began();
    let timed = cx.times_batch();
    let collated = cx.counters.time(shared.slot(Slot::Collate), timed, || {
        catch_unwind(AssertUnwindSafe(|| shared.pipeline.collate_in(cx, samples)))
    });
    traced(What::Collate, began_collate);
    let collated = match collated {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return fail("collate", e, skipped),
        Err(p) => return fail("collate", panicked("collate", None, p.as_ref()), skipped),
    };
    let began_batch = began();
    let batch = cx.counters.time(shared.slot(Slot::Batch), timed, || {
        catch_unwind(AssertUnwindSafe(|| shared.pipeline.batch_in(cx, collated)))
    });
    traced(What::Batch, began_batch);
    match batch {
        Ok(Ok(batch)) => Outcome::Batch {
            batch,
            samples: count,
            indices: shared
                .config
                .batch_indices
                .then(|| indices.iter().copied().collect()),
            skipped,
        },
        Ok(Err(e)) => fail("batch", e, skipped),
        Err(p) => fail("batch", panicked("batch stage", None, p.as_ref()), skipped),
    }
}

//! [`Worker`]: a job of the loader's pool, which builds the batches of an
//! [`Epoch`](super::Epoch)'s window that no one has taken, until none is
//! left; and how many such jobs run at once ([`building`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use adl_core::{Dataset, Pipeline};
use adl_exec::Recycle;

use super::Shared;
use super::claims::Job;
use super::job::{Outcome, build};
use super::read_ahead::ReadAhead;
use super::shard_order::ShardOrder;

std::thread_local! {
    /// Whether this thread runs a [`Worker`]'s job: one that starts while
    /// it does was picked up by a worker waiting inside that job (for a
    /// piece of a batch split across the workers), which goes on only
    /// once the job it picked up returns.
    static IN_JOB: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// What a worker's job needs of its epoch to build batches.
pub(super) struct Worker<D, P>
where
    D: Dataset,
    P: Pipeline<D::Sample>,
{
    pub(super) shared: Arc<Shared<D, P>>,
    pub(super) local: Arc<ShardOrder>,
    pub(super) sender: Sender<(usize, Outcome<P::Processed>)>,
    pub(super) cancel: Arc<AtomicBool>,
    pub(super) stage: Option<Arc<ReadAhead>>,
    pub(super) offset: usize,
    pub(super) epoch: u64,
}

impl<D, P> Worker<D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + Send + 'static,
{
    /// The job: build the lowest batch of the window no one has taken, and
    /// the next, until none is left (the consumer's thread takes some
    /// too), and send each. A job picked up inside another (see
    /// [`IN_JOB`]) builds one batch, then gives its place to a new job, so
    /// that the one it waits inside is held up by a batch at most.
    pub(super) fn run(self, job: Job) {
        let nested = IN_JOB.with(|j| j.replace(true));
        self.build_batches(job, nested);
        IN_JOB.with(|j| j.set(nested));
    }

    fn build_batches(self, mut job: Job, nested: bool) {
        let shared = &self.shared;
        let most = || building(shared, rayon::current_num_threads());
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return;
            }
            // Where none is left, the job ends, unless one was let in as
            // it ended.
            let Some(k) = job.claims().claim() else {
                match job.end(most()) {
                    Some(again) => {
                        job = again;
                        continue;
                    }
                    None => return,
                }
            };
            let range = batch_range(shared, &self.local, k);
            let reads = self
                .stage
                .as_deref()
                .map(|s| (s, self.offset + range.start));
            let outcome = build(shared, true, self.epoch, k, &self.local.slice(range), reads);
            // The receiver is gone when the epoch was dropped: nothing
            // waits for this batch any more.
            if self.sender.send((k, outcome)).is_err() {
                return;
            }
            if nested {
                // Back to the job this thread waits inside; a new job, on
                // the pool, for the batches left.
                if let Some(again) = job.end(most()) {
                    rayon::spawn(move || self.run(again));
                }
                return;
            }
            // Fewer jobs at once chosen meanwhile (a memory budget's):
            // this one leaves if more than that run, the others go on.
            match job.leave_if_over(most()) {
                Some(again) => job = again,
                None => return,
            }
        }
    }
}

/// How many jobs build batches at once: [`Policy::building`](super::policy::Policy::building)'s choice,
/// and no more than the pool's `threads` (a job waiting in the pool's
/// queue while the others take every batch would only end).
pub(super) fn building<D, P>(shared: &Shared<D, P>, threads: usize) -> usize {
    shared.policy.building().min(threads.max(1))
}

/// The indices (positions in `local`) of batch `k`.
pub(super) fn batch_range<D, P>(
    shared: &Shared<D, P>,
    local: &ShardOrder,
    k: usize,
) -> std::ops::Range<usize> {
    let b = shared.config.batch_size;
    (k * b).min(local.len())..((k + 1) * b).min(local.len())
}

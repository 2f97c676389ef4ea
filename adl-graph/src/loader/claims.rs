//! [`Claims`]: which batch of an epoch a thread builds next.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which batches of an epoch may be built and which one is next: the
/// workers' jobs and the consumer's thread take batches from it, lowest
/// first, so that each is built once and the one the consumer needs next
/// is never left behind.
#[derive(Debug, Default)]
pub(crate) struct Claims {
    /// The lowest batch no one has taken.
    pub(crate) next: AtomicUsize,
    /// Batches below this may be taken (the prefetch window's end).
    pub(crate) limit: AtomicUsize,
    /// The workers' jobs given to the pool and not yet ended.
    pub(crate) jobs: AtomicUsize,
}

/// One job's count in [`Claims::jobs`], given back when the job ends
/// (before it sends its batch: the consumer that receives the batch sees
/// the job ended).
pub(crate) struct Job(Arc<Claims>);

impl Job {
    /// The epoch's claims.
    pub(crate) fn claims(&self) -> &Claims {
        &self.0
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.0.jobs.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Claims {
    /// Take the lowest batch not yet taken, if it is inside the window.
    pub(crate) fn claim(&self) -> Option<usize> {
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

    /// Count a job given to the pool; its [`Job`] ends the count.
    pub(crate) fn job(self: &Arc<Self>) -> Job {
        self.jobs.fetch_add(1, Ordering::AcqRel);
        Job(Arc::clone(self))
    }

    /// The jobs given to the pool and not yet ended.
    pub(crate) fn jobs(&self) -> usize {
        self.jobs.load(Ordering::Acquire)
    }
}

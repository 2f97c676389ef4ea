//! [`Claims`]: which batch of an epoch a thread builds next.

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
}

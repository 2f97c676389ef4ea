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

/// One job's count in [`Claims::jobs`]: a job takes batches until none is
/// left to take, then gives its count back ([`Job::end`]), or gives it
/// back early where more jobs run than are wanted ([`Job::leave_if_over`]).
///
/// The window's end and the count are read and written in one order
/// (`SeqCst`) on both sides, so that a batch let in as the last job ends
/// is never left without one: the consumer raises the window's end, then
/// reads the count ([`Claims::let_in`], [`Claims::try_job`]); a job gives
/// its count back, then reads the window's end. One of the two sees the
/// other's write: the consumer a job fewer (and gives the pool another),
/// or the job the batch (and takes it). A job leaves without looking
/// again only where, in the same step, at least `most` others are
/// counted: jobs that have not left, each of which takes the batch or
/// looks again as it ends.
pub(crate) struct Job {
    claims: Arc<Claims>,
    /// Whether this job's count is still in [`Claims::jobs`].
    counted: bool,
}

impl Job {
    /// The epoch's claims.
    pub(crate) fn claims(&self) -> &Claims {
        &self.claims
    }

    /// End the job, which found no batch to take (or gives its place to
    /// another); but where a batch was let in meanwhile, and fewer than
    /// `most` jobs are running, go on: the job taken again.
    pub(crate) fn end(self, most: usize) -> Option<Job> {
        let claims = Arc::clone(&self.claims);
        drop(self);
        if !claims.claimable() {
            return None;
        }
        claims.try_job(most)
    }

    /// Leave, where more than `most` jobs are counted (fewer at once were
    /// chosen meanwhile): the count given back in the same step as it is
    /// read, so that `most` others stay counted; else the job goes on.
    pub(crate) fn leave_if_over(mut self, most: usize) -> Option<Job> {
        let left = self
            .claims
            .jobs
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |jobs| {
                (jobs > most).then(|| jobs - 1)
            })
            .is_ok();
        if left {
            self.counted = false;
            None
        } else {
            Some(self)
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if self.counted {
            self.claims.jobs.fetch_sub(1, Ordering::SeqCst);
        }
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

    /// Let the batches below `limit` be taken (the window's new end).
    pub(crate) fn let_in(&self, limit: usize) {
        self.limit.store(limit, Ordering::SeqCst);
    }

    /// Whether a batch inside the window is not yet taken.
    pub(crate) fn claimable(&self) -> bool {
        self.next.load(Ordering::SeqCst) < self.limit.load(Ordering::SeqCst)
    }

    /// Count a job given to the pool; its [`Job`] ends the count.
    #[cfg(test)]
    pub(crate) fn job(self: &Arc<Self>) -> Job {
        self.try_job(usize::MAX)
            .expect("fewer than usize::MAX jobs")
    }

    /// Count a job, where fewer than `most` are counted (read and added in
    /// one step); its [`Job`] ends the count.
    pub(crate) fn try_job(self: &Arc<Self>, most: usize) -> Option<Job> {
        self.jobs
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |jobs| {
                (jobs < most).then_some(jobs + 1)
            })
            .ok()
            .map(|_| Job {
                claims: Arc::clone(self),
                counted: true,
            })
    }

    /// The jobs given to the pool and not yet ended.
    #[cfg(test)]
    pub(crate) fn jobs(&self) -> usize {
        self.jobs.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_takes_the_batches_let_in_and_ends_when_none_is_left() {
        let claims = Arc::new(Claims::default());
        claims.let_in(2);
        let job = claims.job();
        assert_eq!(
            (job.claims().claim(), job.claims().claim()),
            (Some(0), Some(1))
        );
        assert_eq!(job.claims().claim(), None);
        assert!(job.end(2).is_none());
        assert_eq!(claims.jobs(), 0);
    }

    #[test]
    fn a_job_ending_as_a_batch_is_let_in_takes_it() {
        let claims = Arc::new(Claims::default());
        let job = claims.job();
        assert_eq!(job.claims().claim(), None);
        // The consumer lets a batch in and sees the job still counted, so
        // it gives the pool no other: the ending job must take it.
        claims.let_in(1);
        assert_eq!(claims.jobs(), 1);
        let job = job.end(2).expect("the job goes on for the batch let in");
        assert_eq!(claims.jobs(), 1);
        assert_eq!(job.claims().claim(), Some(0));
        assert!(job.end(2).is_none());
        assert_eq!(claims.jobs(), 0);
    }

    #[test]
    fn a_job_leaves_a_batch_to_the_jobs_running_when_they_are_enough() {
        let claims = Arc::new(Claims::default());
        let ending = claims.job();
        let running = claims.job();
        claims.let_in(1);
        assert!(ending.end(1).is_none());
        assert_eq!(claims.jobs(), 1);
        assert_eq!(running.claims().claim(), Some(0));
    }

    #[test]
    fn of_jobs_over_the_number_wanted_only_the_excess_leaves() {
        // Two jobs run; one at a time is chosen: both look, one leaves.
        let claims = Arc::new(Claims::default());
        let (a, b) = (claims.job(), claims.job());
        let a = a.leave_if_over(1);
        let b = b.leave_if_over(1);
        assert_eq!(u8::from(a.is_some()) + u8::from(b.is_some()), 1);
        assert_eq!(claims.jobs(), 1);
        // The consumer counts no job over the number wanted.
        assert!(claims.try_job(1).is_none());
        assert!(claims.try_job(2).is_some());
    }

    /// A consumer letting batches in one at a time, giving the pool a job
    /// only while fewer than the number wanted run, and changing that
    /// number as a memory budget's tuner does, against jobs that end when
    /// they find nothing and leave when over the number: every batch is
    /// built once, none is left behind.
    #[test]
    fn no_batch_is_left_without_a_job_when_letting_in_and_ending_race() {
        const BATCHES: usize = 20_000;
        for changing in [false, true] {
            let claims = Arc::new(Claims::default());
            let most = Arc::new(AtomicUsize::new(2));
            let built = Arc::new(AtomicUsize::new(0));
            let (send, receive) = std::sync::mpsc::channel();
            std::thread::scope(|scope| {
                for limit in 1..=BATCHES {
                    if changing && limit % 7 == 0 {
                        most.store(1 + limit % 2, Ordering::SeqCst);
                    }
                    claims.let_in(limit);
                    while claims.claimable() {
                        let Some(mut job) = claims.try_job(most.load(Ordering::SeqCst)) else {
                            break;
                        };
                        let (built, send, most) =
                            (Arc::clone(&built), send.clone(), Arc::clone(&most));
                        scope.spawn(move || {
                            loop {
                                let wanted = most.load(Ordering::SeqCst);
                                let Some(k) = job.claims().claim() else {
                                    match job.end(wanted) {
                                        Some(again) => {
                                            job = again;
                                            continue;
                                        }
                                        None => return,
                                    }
                                };
                                built.fetch_add(1, Ordering::Relaxed);
                                send.send(k).unwrap();
                                match job.leave_if_over(most.load(Ordering::SeqCst)) {
                                    Some(again) => job = again,
                                    None => return,
                                }
                            }
                        });
                    }
                    // Each batch let in arrives: a lost one would hang here
                    // (the test's time limit), so wait with a bound.
                    let k = receive
                        .recv_timeout(std::time::Duration::from_secs(60))
                        .expect("a batch let in was left without a job");
                    assert_eq!(k, limit - 1);
                }
            });
            assert_eq!(built.load(Ordering::Relaxed), BATCHES);
            assert_eq!(claims.jobs(), 0);
        }
    }
}

//! [`Policy`]: every decision the loader takes while it runs, in one
//! place, its tuning numbers private to it.
//!
//! The loader's other files carry decisions out; this module takes them:
//!
//! | decision | where | the rule |
//! |---|---|---|
//! | batches built ahead, batch jobs at once | [`Policy::batches_ahead`], [`Policy::building`] | as set, or under a memory budget as [`tuning`] chooses from what it measures (Little's law) |
//! | when to choose again under a budget | [`Policy::retunes_after`] | after 1, 4, 16, 64 batches of an epoch, then every 64 |
//! | whether a batch's samples are split across the workers | [`Policy::worth_splitting`] | where their reading and sample stage take over 100 us in all |
//! | hints ahead of a sample | [`Policy::HINTS_AHEAD`] | 4 samples ahead, on the thread that reads them |
//! | the read stage's bound | [`Policy::read_bound`] | 256 MiB unless set |
//! | reader threads: start, most, grow or shrink | [`Policy::starting_readers`], [`Policy::most_readers`], [`Policy::readers_verdict`] | [`readers`]'s rule: a sample per core to start, up to 32 samples at once while reads block and the workers wait |
//! | where code that may not be thread-safe runs: inline, threads at once, threads one call at a time, worker processes; the threads and batches ahead of a loader with processes | [`Execution::choose`], [`Execution::processes_settings`], [`Execution::sent_limit`] | [`execution`]'s table: users' code in worker processes unless asked otherwise; two batches asked of each process, four ahead |
//!
//! (Batch memory's pooling threshold is the buffer pool's.)

pub(crate) mod execution;
pub(crate) mod readers;
pub(crate) mod tuning;

use std::time::Duration;

use readers::{Seen, Verdict};
use tuning::Tuner;

pub use execution::{Code, Execution};
pub use tuning::Tuning;

/// A batch whose samples take longer than this (read and sample stage,
/// estimated) is split across the workers.
const SPLIT_ABOVE: Duration = Duration::from_micros(100);

/// The read stage's bound by default: 256 MiB read ahead at most.
const READ_BOUND: u64 = 256 << 20;

/// The loader's live decisions: see the [module docs](self).
#[derive(Debug)]
pub(crate) struct Policy {
    /// Batches ahead as the program set them (or the default).
    batches_ahead: usize,
    /// The memory budget and what was chosen under it, if there is one.
    tuner: Option<Tuner>,
}

impl Policy {
    /// How many samples ahead a loader hints a dataset in memory that
    /// takes hints ([`Ahead::Hints`](adl_core::storage::Ahead::Hints)).
    pub(crate) const HINTS_AHEAD: usize = 4;

    /// The policy of a loader with `batches_ahead` set (or by default),
    /// under `budget` bytes if it has one.
    pub(crate) fn new(batches_ahead: usize, budget: Option<u64>) -> Self {
        Policy {
            batches_ahead,
            tuner: budget.map(Tuner::new),
        }
    }

    /// The read stage's bound where the program set none.
    pub(crate) fn read_bound() -> u64 {
        READ_BOUND
    }

    /// Batches built ahead of the consumer: as set, or as chosen under the
    /// memory budget.
    pub(crate) fn batches_ahead(&self) -> usize {
        match &self.tuner {
            Some(tuner) => tuner.window(),
            None => self.batches_ahead.max(1),
        }
    }

    /// The batch jobs the workers may run at once: as many as there are
    /// workers, or, under the memory budget, the batches the loader chose
    /// to build at once (the other workers stay idle).
    pub(crate) fn building(&self) -> usize {
        match &self.tuner {
            Some(tuner) => tuner.building(),
            None => usize::MAX,
        }
    }

    /// The memory budget's tuner, where there is a budget.
    pub(crate) fn tuner(&self) -> Option<&Tuner> {
        self.tuner.as_ref()
    }

    /// Whether to choose again under the budget after the `delivered`-th
    /// batch of an epoch.
    pub(crate) fn retunes_after(&self, delivered: usize) -> bool {
        self.tuner.is_some() && tuning::retunes_after(delivered)
    }

    /// Whether the samples of a batch of `len` are worth splitting across
    /// the workers, each sample's reading and sample stage taking `read`
    /// and `sample` as timed so far (`None`: not timed yet, and split).
    pub(crate) fn worth_splitting(
        &self,
        read: Option<Duration>,
        sample: Option<Duration>,
        len: usize,
    ) -> bool {
        match (read, sample) {
            (Some(read), Some(sample)) => {
                (read + sample).saturating_mul(u32::try_from(len).unwrap_or(u32::MAX)) > SPLIT_ABOVE
            }
            _ => true,
        }
    }

    /// The reader threads a read stage starts with, for samples of
    /// `parts` reads each.
    pub(crate) fn starting_readers(parts: usize) -> usize {
        readers::starting_readers(parts)
    }

    /// The most reader threads a read stage grows to, for samples of
    /// `parts` reads each.
    pub(crate) fn most_readers(parts: usize) -> usize {
        readers::most_readers(parts)
    }

    /// Whether `threads` readers (starting at `start`) grow, shrink or
    /// stay, from what a window of reads `seen`.
    pub(crate) fn readers_verdict(seen: &Seen, threads: usize, start: usize) -> Verdict {
        readers::verdict(seen, threads, start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_split_where_its_samples_take_over_100_us() {
        let policy = Policy::new(2, None);
        let us = Duration::from_micros;
        assert!(policy.worth_splitting(None, None, 4), "not timed yet");
        assert!(!policy.worth_splitting(Some(us(10)), Some(us(10)), 4));
        assert!(policy.worth_splitting(Some(us(10)), Some(us(20)), 4));
        assert!(policy.worth_splitting(Some(us(200)), Some(us(0)), 1));
    }

    #[test]
    fn batches_ahead_are_as_set_without_a_budget() {
        let policy = Policy::new(3, None);
        assert_eq!((policy.batches_ahead(), policy.building()), (3, usize::MAX));
        assert!(!policy.retunes_after(1), "no budget, no retuning");
        assert_eq!(Policy::new(0, None).batches_ahead(), 1);
        assert!(Policy::new(3, Some(1 << 30)).retunes_after(1));
        assert_eq!(Policy::read_bound(), 256 << 20);
    }
}

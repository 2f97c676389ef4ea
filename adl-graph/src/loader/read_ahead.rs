//! The read stage: one epoch's reads, done ahead of the sample stage on
//! threads of their own.
//!
//! Reads are I/O: a thread waiting on a disk or a store holds no CPU, so
//! the read stage has its own pool, of many threads, apart from the
//! workers. It knows the epoch's order, and walks it: each reader takes
//! the next position, asks the dataset to [`fetch`](Dataset::fetch) that
//! sample (its bytes kept in the dataset for the `get` that follows) and
//! marks it done. A worker, before its `get` of a sample, waits until the
//! sample's position is done (counted as the read stage's *wait*), then
//! takes it, and its bytes leave the stage.
//!
//! The stage is bounded in bytes: a reader starts a read only while the
//! bytes fetched and not yet taken are under the bound, so the memory the
//! stage holds is at most the bound plus one read per reader. Positions
//! are started in order, so the position a worker waits for is always
//! started before any later one: the bound never holds back the sample a
//! worker needs (no deadlock), and a failed fetch keeps nothing (the `get`
//! reads again and reports the error where it belongs, on its sample).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use adl_core::Dataset;

/// What the read stage did, over the loader's life.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadStatistics {
    /// Reader threads (0: no read stage; the workers read for themselves).
    pub threads: usize,
    /// The bound on bytes read ahead and not yet taken.
    pub bound: u64,
    /// Samples read ahead.
    pub reads: u64,
    /// Reads ahead that failed (the sample's own read then reported it).
    pub failed: u64,
    /// Bytes read ahead.
    pub bytes: u64,
    /// Time spent reading, summed over the readers.
    pub time: Duration,
    /// Time the workers waited for a read to finish, summed.
    pub wait: Duration,
    /// The most bytes read ahead and not yet taken at once.
    pub peak: u64,
}

/// The state of a position that was started.
#[derive(Debug, Clone, Copy)]
enum Status {
    /// Being read.
    Reading,
    /// Read: this many bytes are kept for it.
    Done(u64),
}

#[derive(Debug, Default)]
struct State {
    /// The next position to start.
    next: usize,
    /// Positions started and not yet taken.
    started: HashMap<usize, Status>,
    /// Bytes of the positions done and not yet taken.
    held: u64,
    /// Positions taken (their bytes left the stage).
    taken: usize,
}

/// The read stage of one epoch: see the [module docs](self).
pub(crate) struct ReadAhead {
    /// The epoch's dataset indices (this rank's), in order.
    order: Arc<[usize]>,
    bound: u64,
    state: Mutex<State>,
    changed: Condvar,
    stop: AtomicBool,
    /// The loader-wide statistics, added to as reads happen.
    stats: Arc<Mutex<ReadStatistics>>,
}

impl ReadAhead {
    pub(crate) fn new(order: Arc<[usize]>, bound: u64, stats: Arc<Mutex<ReadStatistics>>) -> Self {
        ReadAhead {
            order,
            bound,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
            stats,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stats(&self) -> MutexGuard<'_, ReadStatistics> {
        self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One reader: start positions in order and fetch them, until the
    /// order ends or the epoch stops.
    pub(crate) fn run_reader<D: Dataset>(&self, dataset: &D) {
        while let Some(position) = self.start_next() {
            let index = self.order[position];
            let began = Instant::now();
            let fetched = dataset.fetch(index);
            let took = began.elapsed();
            let bytes = *fetched.as_ref().unwrap_or(&0);
            {
                let mut stats = self.stats();
                stats.reads += 1;
                stats.failed += u64::from(fetched.is_err());
                stats.bytes += bytes;
                stats.time += took;
            }
            let mut state = self.state();
            if self.stop.load(Ordering::Acquire) {
                // Nobody takes it any more.
                state.started.remove(&position);
                drop(state);
                dataset.release(index);
                continue;
            }
            state.started.insert(position, Status::Done(bytes));
            state.held += bytes;
            let held = state.held;
            drop(state);
            self.changed.notify_all();
            let mut stats = self.stats();
            stats.peak = stats.peak.max(held);
        }
    }

    /// The next position to read, once the bytes held are under the bound
    /// (or nothing is held); `None` at the end of the order or when the
    /// epoch stopped.
    fn start_next(&self) -> Option<usize> {
        let mut state = self.state();
        loop {
            if self.stop.load(Ordering::Acquire) || state.next >= self.order.len() {
                return None;
            }
            if state.held < self.bound || state.held == 0 {
                let position = state.next;
                state.next += 1;
                state.started.insert(position, Status::Reading);
                return Some(position);
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Wait until `position` is read, then take it: its bytes leave the
    /// stage (the `get` that follows uses them). Returns at once for a
    /// position out of the order or after the epoch stopped.
    pub(crate) fn take(&self, position: usize) {
        if position >= self.order.len() {
            return;
        }
        let began = Instant::now();
        let mut waited = false;
        let mut state = self.state();
        loop {
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            match state.started.get(&position) {
                Some(Status::Done(bytes)) => {
                    let bytes = *bytes;
                    state.started.remove(&position);
                    state.held -= bytes;
                    state.taken += 1;
                    break;
                }
                // Not started yet, or being read.
                _ if position >= state.next || state.started.contains_key(&position) => {
                    waited = true;
                    state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                }
                // Taken already (a position read twice by a retry): nothing
                // is kept for it.
                _ => return,
            }
        }
        drop(state);
        // The bound has room again.
        self.changed.notify_all();
        if waited {
            self.stats().wait += began.elapsed();
        }
    }

    /// Stop the stage: readers start nothing more, waiters return, and
    /// what was read ahead and not taken is released in `dataset`.
    pub(crate) fn stop<D: Dataset>(&self, dataset: &D) {
        self.stop.store(true, Ordering::Release);
        let mut state = self.state();
        let done: Vec<usize> = state
            .started
            .iter()
            .filter(|(_, status)| matches!(status, Status::Done(_)))
            .map(|(&position, _)| position)
            .collect();
        for position in &done {
            state.started.remove(position);
        }
        state.held = 0;
        drop(state);
        self.changed.notify_all();
        for position in done {
            dataset.release(self.order[position]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adl_core::Result;
    use std::sync::atomic::AtomicU64;

    /// A dataset whose fetch keeps `size` bytes per sample and counts what
    /// it holds.
    struct Held {
        len: usize,
        size: u64,
        held: AtomicU64,
        most: AtomicU64,
    }

    impl Dataset for Held {
        type Sample = usize;
        fn len(&self) -> usize {
            self.len
        }
        fn get(&self, index: usize) -> Result<usize> {
            Ok(index)
        }
        fn fetches(&self) -> bool {
            true
        }
        fn fetch(&self, _index: usize) -> Result<u64> {
            let now = self.held.fetch_add(self.size, Ordering::SeqCst) + self.size;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(1));
            Ok(self.size)
        }
        fn release(&self, _index: usize) {
            self.held.fetch_sub(self.size, Ordering::SeqCst);
        }
    }

    #[test]
    fn readers_stay_within_the_bound_and_every_position_is_taken_once() {
        let data = Arc::new(Held {
            len: 200,
            size: 100,
            held: AtomicU64::new(0),
            most: AtomicU64::new(0),
        });
        let order: Arc<[usize]> = (0..200).rev().collect();
        let stats = Arc::new(Mutex::new(ReadStatistics::default()));
        let stage = Arc::new(ReadAhead::new(order, 1_000, Arc::clone(&stats)));
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let (stage, data) = (Arc::clone(&stage), Arc::clone(&data));
                std::thread::spawn(move || stage.run_reader(&*data))
            })
            .collect();
        for position in 0..200 {
            stage.take(position);
            // The sample's get consumes what was kept.
            data.release(0);
        }
        for r in readers {
            r.join().unwrap();
        }
        let stats = *stats.lock().unwrap();
        assert_eq!(stats.reads, 200);
        assert_eq!(stats.bytes, 20_000);
        // The bound, plus one read per reader.
        assert!(stats.peak <= 1_000 + 4 * 100, "{stats:?}");
        assert!(data.most.load(Ordering::SeqCst) <= 1_000 + 4 * 100 + 100);
        assert_eq!(data.held.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn stopping_releases_what_was_not_taken() {
        let data = Arc::new(Held {
            len: 50,
            size: 10,
            held: AtomicU64::new(0),
            most: AtomicU64::new(0),
        });
        let order: Arc<[usize]> = (0..50).collect();
        let stats = Arc::new(Mutex::new(ReadStatistics::default()));
        let stage = Arc::new(ReadAhead::new(order, 100, stats));
        let reader = {
            let (stage, data) = (Arc::clone(&stage), Arc::clone(&data));
            std::thread::spawn(move || stage.run_reader(&*data))
        };
        stage.take(0);
        data.release(0);
        stage.stop(&*data);
        reader.join().unwrap();
        // Nothing held: taken ones were consumed, the others released.
        assert_eq!(data.held.load(Ordering::SeqCst), 0);
        // A take after the stop returns at once.
        stage.take(40);
    }
}

//! The read stage: one epoch's reads, done ahead of the sample stage on
//! threads of their own.
//!
//! Reads are I/O: a thread waiting on a disk or a store holds no CPU, so
//! the read stage has threads of its own, apart from the workers: as many
//! as fit the machine, more while the reads wait on I/O and the workers
//! wait for them (the loader's policy says the rule). It knows the epoch's order, and walks it: each reader takes
//! the next part of a position (a sample's fetch is made of
//! [`parts`](adl_core::storage::Storage::parts) reads, one per sensor for a
//! recording, so that a slow store is waited on once per sample, not once
//! per sensor), asks the dataset's reads ahead to [`fetch_part`](adl_core::storage::Storage::fetch_part)
//! it (its bytes, a [`Fetched`], kept here under the position), and the
//! position is done when its last part is. A worker, before its `get` of
//! a sample, waits until the sample's position is done (counted as the
//! read stage's *wait*), then takes its reads and hands them to the
//! sample's `get_fetched`: they leave the stage. Each position has its
//! own reads, so an index twice in an epoch is read twice, each for its
//! own `get`, and nothing is kept in the dataset.
//!
//! The stage is bounded in bytes: a reader starts a read only while the
//! bytes fetched and not yet taken are under the bound, so the memory the
//! stage holds is at most the bound plus one read per reader. Positions
//! (and a position's parts) are started in order, so the position a worker waits for is always
//! started before any later one: the bound never holds back the sample a
//! worker needs (no deadlock), and a failed fetch keeps nothing (the `get`
//! reads again and reports the error where it belongs, on its sample).
//! Stopping the stage drops what it holds.
//!
//! Between epochs: an epoch's stage also reads the first positions of the
//! next epoch's order once its own are all started ([`ReadAhead::read_into_next`]),
//! within the same bound, so that the next epoch's first batch does not
//! wait for its reads. The loader keeps such a stage when its epoch ends
//! and the next epoch, started from its beginning, takes it over
//! ([`ReadAhead::start_next_epoch`]); any other start stops it, dropping
//! what it read. Reads done for the next epoch are counted in the
//! statistics when that epoch takes them over, so an epoch's reads count
//! its own samples, and reads never used are never counted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use adl_core::Dataset;
use adl_core::storage::Fetched;

use super::builder::reads_of;

use super::policy::Policy;
use super::policy::readers::{self, Readers, Verdict, Window};
use super::sensor_reads::PartCounters;
use super::shard_order::ShardOrder;
use super::timeline::{About, Timeline, What};

/// What the read stage did, over the loader's life.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadStatistics {
    /// Reader threads (0: no read stage; the workers read for themselves):
    /// as many as the stage has now, after any growth (see
    /// the loader's policy).
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
    /// Reads ahead that the dataset's `get` dropped without using them:
    /// read for nothing (a wrapper that gives its source's `storage()`
    /// but not its `get_fetched()`; the loader says so once).
    pub unused: u64,
}

/// A position that was started: its parts ([`Storage::parts`](adl_core::storage::Storage::parts))
/// not yet read, and the reads of those that were.
#[derive(Debug)]
struct Started {
    /// Parts not yet read (started or not): the position is read at 0.
    left: usize,
    /// Bytes held by its parts read.
    bytes: u64,
    /// Whether one of its parts failed.
    failed: bool,
    /// Each part's read, in order ([`Fetched::Nothing`] until read, or
    /// where it failed).
    reads: Vec<Fetched>,
}

/// A part's read, as the statistics count it (one done for the next
/// epoch waits in the stage until that epoch takes the stage over).
#[derive(Debug)]
struct Uncounted {
    part: usize,
    took: Duration,
    bytes: u64,
    /// Whether this part's read failed.
    failed: bool,
    /// Where it was its position's last part: whether any part of the
    /// position failed.
    position: Option<bool>,
}

#[derive(Debug, Default)]
struct State {
    /// The orders walked, one after the other, each with the position it
    /// starts at: the epoch's, then the next epoch's while its first
    /// positions are read ahead (at most two).
    orders: Vec<(usize, Arc<ShardOrder>)>,
    /// The position the readers stop before: the end of the epoch's
    /// order, or past it, into the next epoch's first positions.
    limit: usize,
    /// The epoch the readers read for (0, 1, ... as the stage is taken
    /// over): a reader started for an earlier one ends.
    generation: u64,
    /// Reads done for the next epoch, not yet counted.
    uncounted: Vec<Uncounted>,
    /// The next position to start a part of.
    next: usize,
    /// The next part of `next` to start (0: none started yet).
    next_part: usize,
    /// The parts of `next` (once its first part started).
    parts: usize,
    /// Positions started and not yet taken.
    started: HashMap<usize, Started>,
    /// Bytes read ahead and not yet taken (of positions read or not).
    held: u64,
    /// Positions taken (their bytes left the stage).
    taken: usize,
}

/// The read stage of one epoch: see the [module docs](self).
pub(crate) struct ReadAhead {
    /// The bound on bytes held (a memory budget may change it while the
    /// epoch runs).
    bound: AtomicU64,
    state: Mutex<State>,
    changed: Condvar,
    stop: AtomicBool,
    /// The loader-wide statistics, added to as reads happen.
    stats: Arc<Mutex<ReadStatistics>>,
    /// The loader's reader threads: how many, and how many they may grow
    /// to.
    readers: Arc<Readers>,
    /// The reads watched to decide whether the readers grow; none where
    /// they may not.
    window: Option<Mutex<Window>>,
    /// The loader-wide counts per part (per sensor).
    parts: Arc<PartCounters>,
    /// The loader-wide count of reads handed to a `get` that dropped them
    /// unused.
    unused: Arc<AtomicU64>,
    /// Whether this stage said so ([`ReadAhead::say_unused`]).
    said_unused: AtomicBool,
    /// The run's timeline, where there is one: every read is a span.
    timeline: Option<Arc<Timeline>>,
}

impl ReadAhead {
    pub(crate) fn new(
        order: Arc<ShardOrder>,
        bound: u64,
        stats: Arc<Mutex<ReadStatistics>>,
        readers: Arc<Readers>,
        parts: Arc<PartCounters>,
        unused: Arc<AtomicU64>,
        timeline: Option<Arc<Timeline>>,
    ) -> Self {
        let window = readers.adapts().then(|| {
            let waited = stats.lock().unwrap_or_else(|p| p.into_inner()).wait;
            Mutex::new(Window::new(waited))
        });
        let state = State {
            limit: order.len(),
            orders: vec![(0, order)],
            ..State::default()
        };
        ReadAhead {
            bound: AtomicU64::new(bound.max(1)),
            state: Mutex::new(state),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
            stats,
            readers,
            window,
            parts,
            unused,
            said_unused: AtomicBool::new(false),
            timeline,
        }
    }

    /// The dataset index at `position`, which is inside one of `state`'s
    /// orders (a position past them, which the stage never starts, would
    /// name no sample: `usize::MAX`, out of every dataset's range).
    fn index(state: &State, position: usize) -> usize {
        state
            .orders
            .iter()
            .find_map(|(start, order)| order.get(position.checked_sub(*start)?))
            .unwrap_or(usize::MAX)
    }

    /// Where the epoch's own order ends (the next epoch's, read ahead,
    /// starts there).
    fn epoch_end(state: &State) -> usize {
        state
            .orders
            .first()
            .map_or(0, |(start, order)| start + order.len())
    }

    /// Once the epoch's positions are all started, read the first
    /// `positions` of `next` (the next epoch's order, from its start) too,
    /// within the same bound: see the [module docs](self). Once only.
    pub(crate) fn read_into_next(&self, next: Arc<ShardOrder>, positions: usize) {
        let mut state = self.state();
        if state.orders.len() != 1 || positions == 0 {
            return;
        }
        let end = Self::epoch_end(&state);
        state.limit = end + positions.min(next.len());
        state.orders.push((end, next));
        drop(state);
        self.changed.notify_all();
    }

    /// Take the stage over for the next epoch (whose order it read the
    /// first positions of): its reads so far are counted now, its
    /// readers read on to the end of that order (readers started for the
    /// epoch before end), and its positions start where this returns,
    /// with the order. `None` where it read nothing ahead or stopped.
    pub(crate) fn start_next_epoch(&self) -> Option<(usize, Arc<ShardOrder>)> {
        let mut state = self.state();
        if self.stop.load(Ordering::Acquire) || state.orders.len() != 2 {
            return None;
        }
        state.orders.remove(0);
        let (start, order) = state.orders[0].clone();
        state.limit = start + order.len();
        state.generation += 1;
        // What the epoch before read and did not take (the samples past
        // its last whole batch, under `drop_last`) is dropped, and what it
        // did not start is passed over.
        let stale: Vec<usize> = state
            .started
            .keys()
            .copied()
            .filter(|&p| p < start)
            .collect();
        let mut dropped = Vec::with_capacity(stale.len());
        for position in stale {
            if let Some(entry) = state.started.remove(&position) {
                state.held -= entry.bytes;
                dropped.push(entry);
            }
        }
        if state.next < start {
            state.next = start;
            state.next_part = 0;
        }
        let uncounted = std::mem::take(&mut state.uncounted);
        drop(state);
        drop(dropped);
        for read in uncounted {
            self.count(read);
        }
        self.changed.notify_all();
        Some((start, order))
    }

    /// Count `read` in the loader's statistics and its part's.
    fn count(&self, read: Uncounted) {
        self.parts
            .count(read.part, read.took, read.bytes, read.failed);
        let mut stats = self.stats();
        stats.time += read.took;
        stats.bytes += read.bytes;
        if let Some(failed) = read.position {
            stats.reads += 1;
            stats.failed += u64::from(failed);
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hold at most `bytes` read ahead from now on (at least 1); readers
    /// waiting for room look again.
    pub(crate) fn set_bound(&self, bytes: u64) {
        self.bound.store(bytes.max(1), Ordering::Relaxed);
        self.stats().bound = bytes.max(1);
        // Under the state's lock, so that a reader between its check and
        // its wait does not miss the change.
        let state = self.state();
        drop(state);
        self.changed.notify_all();
    }

    fn stats(&self) -> MutexGuard<'_, ReadStatistics> {
        self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One reader: start parts of positions in order and fetch them, until
    /// the order ends or the epoch stops. A sample's parts (a recording's
    /// sensors) go to whichever readers are free, so they are read at once.
    /// Where the readers may grow ([`Readers`]), it watches its reads and
    /// calls `spawn` with a new reader's number for each reader to add;
    /// reader `id` ends before its next read once the readers shrink below
    /// it.
    pub(crate) fn run_reader<D: Dataset>(&self, id: usize, dataset: &D, spawn: &dyn Fn(usize)) {
        let mut done = 0u64;
        let generation = self.state().generation;
        // A reader past the count (the readers shrank) ends here.
        while !self.readers.retired(id) {
            let Some((position, part, index)) = self.start_next(dataset, generation) else {
                break;
            };
            // Busy time (running, or waiting for a core) on one read in
            // eight: enough to tell reads that block from reads that work.
            let before = (self.window.is_some() && done.is_multiple_of(8))
                .then(readers::thread_busy)
                .flatten();
            done += 1;
            let began = Instant::now();
            // A panicking fetch is a failed one: the sample's own read
            // reports it, where the workers catch it.
            let fetched = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                fetch_part(dataset, index, part)
            })) {
                Ok(Ok(fetched)) => Ok(fetched),
                Ok(Err(_)) | Err(_) => Err(()),
            };
            let took = began.elapsed();
            let busy = before.and_then(|b| Some(readers::thread_busy()?.saturating_sub(b)));
            self.watch(took, busy, spawn);
            let failed = fetched.is_err();
            let fetched = fetched.unwrap_or_default();
            let bytes = fetched.bytes();
            if let Some(timeline) = &self.timeline {
                timeline.span(What::Read(part), About::Read { index, bytes }, began);
            }
            let mut state = self.state();
            // A read for the next epoch is counted if that epoch takes the
            // stage over, all of it then; the epoch's own, as it ends.
            let ahead = position >= Self::epoch_end(&state);
            let mut read = Uncounted {
                part,
                took,
                bytes,
                failed,
                position: None,
            };
            let entry = match state.started.get_mut(&position) {
                Some(entry) if !self.stop.load(Ordering::Acquire) => entry,
                // Nobody takes it any more: dropped here.
                _ => {
                    drop(state);
                    if !ahead {
                        self.parts.count(part, took, bytes, failed);
                        self.stats().time += took;
                    }
                    continue;
                }
            };
            entry.left -= 1;
            entry.bytes += bytes;
            entry.failed |= failed;
            if let Some(slot) = entry.reads.get_mut(part) {
                *slot = fetched;
            }
            read.position = (entry.left == 0).then_some(entry.failed);
            let read_whole = read.position.is_some();
            state.held += bytes;
            let held = state.held;
            if ahead {
                state.uncounted.push(read);
            } else {
                // Counted before the state's lock is let go: the sample's
                // `take` needs that lock to see the read whole, so
                // statistics taken once an epoch's batches are all
                // delivered count every read of it.
                self.count(read);
            }
            drop(state);
            {
                let mut stats = self.stats();
                stats.peak = stats.peak.max(held);
            }
            if read_whole {
                self.changed.notify_all();
            }
        }
    }

    /// Count a read that took `took` (`busy` of it on its thread, running
    /// or waiting for a core, where measured) in the window; at the
    /// window's end, grow or shrink the readers if the
    /// loader's policy says so, calling `spawn` for each
    /// one added.
    fn watch(&self, took: Duration, busy: Option<Duration>, spawn: &dyn Fn(usize)) {
        let Some(window) = &self.window else {
            return;
        };
        let mut window = window.lock().unwrap_or_else(|p| p.into_inner());
        window.count(took, busy);
        let waited = self.stats().wait;
        let threads = self.readers.now();
        let verdict = Policy::readers_verdict(&window.seen(waited), threads, self.readers.start());
        if verdict == Verdict::NotYet {
            return;
        }
        *window = window.next(waited);
        drop(window);
        match verdict {
            Verdict::Grow(factor) => {
                if let Some(to) = self.readers.grow(threads, factor) {
                    self.stats().threads = to;
                    for id in threads..to {
                        spawn(id);
                    }
                }
            }
            Verdict::Shrink(factor) => {
                if let Some(to) = self.readers.shrink(threads, factor) {
                    self.stats().threads = to;
                }
            }
            Verdict::NotYet | Verdict::Keep => {}
        }
    }

    /// The next part to read (its position, its part, its sample's
    /// dataset index), once the bytes held are under the bound (or
    /// nothing is held); `None` at the limit (the end of the order, or of
    /// the next epoch's positions read ahead), when the epoch stopped, or
    /// for a reader of an earlier `generation`.
    fn start_next<D: Dataset>(
        &self,
        dataset: &D,
        generation: u64,
    ) -> Option<(usize, usize, usize)> {
        let mut state = self.state();
        loop {
            if self.stop.load(Ordering::Acquire)
                || state.generation != generation
                || state.next >= state.limit
            {
                return None;
            }
            if state.held < self.bound.load(Ordering::Relaxed) || state.held == 0 {
                let position = state.next;
                let index = Self::index(&state, position);
                if state.next_part == 0 {
                    let parts = parts(dataset, index);
                    state.parts = parts;
                    state.started.insert(
                        position,
                        Started {
                            left: parts,
                            bytes: 0,
                            failed: false,
                            reads: (0..parts).map(|_| Fetched::Nothing).collect(),
                        },
                    );
                }
                let part = state.next_part;
                state.next_part += 1;
                if state.next_part == state.parts {
                    state.next += 1;
                    state.next_part = 0;
                }
                return Some((position, part, index));
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Wait until `position` is read, then take its reads: they leave the
    /// stage, for the sample's `get_fetched`. Nothing for a position out
    /// of the order, after the epoch stopped, or taken already (a batch
    /// built again by a retry: its `get` reads for itself).
    pub(crate) fn take(&self, position: usize) -> Fetched {
        let began = Instant::now();
        let mut waited = false;
        let mut state = self.state();
        if position >= state.limit {
            return Fetched::Nothing;
        }
        let reads = loop {
            if self.stop.load(Ordering::Acquire) {
                return Fetched::Nothing;
            }
            match state.started.get(&position) {
                Some(entry) if entry.left == 0 => {
                    let Some(entry) = state.started.remove(&position) else {
                        return Fetched::Nothing;
                    };
                    state.held -= entry.bytes;
                    state.taken += 1;
                    break entry.reads;
                }
                // Not started yet, or being read.
                _ if position >= state.next || state.started.contains_key(&position) => {
                    waited = true;
                    state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                }
                _ => return Fetched::Nothing,
            }
        };
        drop(state);
        // The bound has room again.
        self.changed.notify_all();
        if waited {
            self.stats().wait += began.elapsed();
        }
        let mut fetched = Fetched::parts(reads);
        fetched.count_unused(&self.unused);
        fetched
    }

    /// Where reads handed out were dropped unused by `dataset`'s get (the
    /// name of its type), say so: once per process (a notice), looked at
    /// until this stage has said it.
    pub(crate) fn say_unused(&self, dataset: &str) {
        if self.said_unused.load(Ordering::Relaxed) || self.unused.load(Ordering::Relaxed) == 0 {
            return;
        }
        self.said_unused.store(true, Ordering::Relaxed);
        crate::notice::once_for(
            crate::notice::Key::UnusedReads,
            &format!(
                "the reads ahead of {dataset} are dropped unused by its get: a wrapper in it gives its source's storage() but not get_fetched(), so each sample is read twice (see adl::storage)"
            ),
        );
    }

    /// Stop the stage: readers start nothing more, waiters return, and
    /// what was read ahead and not taken is dropped (a part still being
    /// read, by the reader that ends it).
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        let mut state = self.state();
        let held = std::mem::take(&mut state.started);
        state.held = 0;
        // Reads for a next epoch that will not take them: never counted.
        state.uncounted.clear();
        drop(state);
        self.changed.notify_all();
        drop(held);
    }
}

/// Part `part` of sample `index`'s reads ahead; nothing where the dataset
/// reads nothing ahead.
fn fetch_part<D: Dataset + ?Sized>(
    dataset: &D,
    index: usize,
    part: usize,
) -> adl_core::Result<Fetched> {
    match reads_of(dataset) {
        Some(reads) => reads.fetch_part(index, part),
        None => Ok(Fetched::Nothing),
    }
}

/// The parts of sample `index`'s reads (at least one).
fn parts<D: Dataset + ?Sized>(dataset: &D, index: usize) -> usize {
    reads_of(dataset).map_or(1, |reads| reads.parts(index).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::Shard;
    use crate::loader::order::{Listed, Order};

    /// This whole order, on one rank.
    fn test_order(indices: Vec<usize>) -> Arc<ShardOrder> {
        let order = Listed::new(indices).epoch(0, 0).unwrap();
        Arc::new(ShardOrder::new(order, Shard::default(), 0))
    }
    use adl_core::Origin;
    use adl_core::Result;
    use adl_core::storage::{Ahead, Storage};
    use std::sync::atomic::AtomicU64;

    /// `n` reader threads of `stage` over `data`.
    fn spawn_readers<D: Dataset + Send + Sync + 'static>(
        stage: &Arc<ReadAhead>,
        data: &Arc<D>,
        n: usize,
    ) -> Vec<std::thread::JoinHandle<()>> {
        (0..n)
            .map(|_| {
                let (stage, data) = (Arc::clone(stage), Arc::clone(data));
                std::thread::spawn(move || stage.run_reader(0, &*data, &|_| {}))
            })
            .collect()
    }

    /// Bytes read ahead, counted in `held` while they live.
    struct Bytes {
        size: u64,
        held: Arc<AtomicU64>,
    }

    impl Drop for Bytes {
        fn drop(&mut self) {
            self.held.fetch_sub(self.size, Ordering::SeqCst);
        }
    }

    /// A dataset whose fetch reads `size` bytes per sample and counts
    /// what lives of them.
    struct Held {
        len: usize,
        size: u64,
        held: Arc<AtomicU64>,
        most: AtomicU64,
    }

    impl Held {
        fn new(len: usize, size: u64) -> Self {
            Held {
                len,
                size,
                held: Arc::default(),
                most: AtomicU64::new(0),
            }
        }
    }

    impl Dataset for Held {
        type Sample = usize;
        fn len(&self) -> usize {
            self.len
        }
        fn get(&self, index: usize) -> Result<usize> {
            Ok(index)
        }
        fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
            Some(self)
        }
    }

    impl Storage for Held {
        type Origin = Origin;

        fn ahead(&self) -> Ahead {
            Ahead::Reads
        }

        fn fetch(&self, _index: usize) -> Result<Fetched> {
            let now = self.held.fetch_add(self.size, Ordering::SeqCst) + self.size;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(1));
            let bytes = Bytes {
                size: self.size,
                held: Arc::clone(&self.held),
            };
            Ok(Fetched::read(bytes, self.size))
        }
    }

    #[test]
    fn readers_stay_within_the_bound_and_every_position_is_taken_once() {
        let data = Arc::new(Held::new(200, 100));
        let order = test_order((0..200).rev().collect());
        let stats = Arc::new(Mutex::new(ReadStatistics::default()));
        let stage = Arc::new(ReadAhead::new(
            order,
            1_000,
            Arc::clone(&stats),
            Arc::new(Readers::fixed(4)),
            Arc::new(PartCounters::new(Vec::new())),
            Arc::default(),
            None,
        ));
        let readers = spawn_readers(&stage, &data, 4);
        for position in 0..200 {
            // The sample's get consumes what was read, and drops it.
            let read = stage.take(position);
            assert_eq!(read.bytes(), 100, "position {position}");
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
    fn an_index_twice_in_the_order_is_read_for_each_position() {
        let data = Arc::new(Held::new(3, 10));
        let stats = Arc::new(Mutex::new(ReadStatistics::default()));
        let stage = Arc::new(ReadAhead::new(
            test_order(vec![1, 1, 2, 1]),
            1_000,
            Arc::clone(&stats),
            Arc::new(Readers::fixed(2)),
            Arc::new(PartCounters::new(Vec::new())),
            Arc::default(),
            None,
        ));
        let readers = spawn_readers(&stage, &data, 2);
        let reads: Vec<Fetched> = (0..4).map(|p| stage.take(p)).collect();
        assert!(reads.iter().all(|r| r.bytes() == 10), "{reads:?}");
        assert_eq!(
            data.held.load(Ordering::SeqCst),
            40,
            "four reads, each its own"
        );
        drop(reads);
        for r in readers {
            r.join().unwrap();
        }
        assert_eq!(stats.lock().unwrap().reads, 4);
        assert_eq!(data.held.load(Ordering::SeqCst), 0);
    }

    /// A read that says where it was dropped unused.
    struct Part {
        at: (usize, usize),
        dropped: Arc<Mutex<Vec<usize>>>,
    }

    impl Drop for Part {
        fn drop(&mut self) {
            self.dropped.lock().unwrap().push(self.at.0);
        }
    }

    /// A dataset of `parts` parts per sample, each of which waits until
    /// every part of its sample has begun: it fails unless the parts are
    /// read at once.
    struct Meeting {
        len: usize,
        parts: usize,
        begun: Mutex<HashMap<usize, usize>>,
        all_begun: Condvar,
        dropped: Arc<Mutex<Vec<usize>>>,
    }

    impl Meeting {
        fn new(len: usize, parts: usize) -> Self {
            Meeting {
                len,
                parts,
                begun: Mutex::default(),
                all_begun: Condvar::new(),
                dropped: Arc::default(),
            }
        }
    }

    impl Dataset for Meeting {
        type Sample = usize;
        fn len(&self) -> usize {
            self.len
        }
        fn get(&self, index: usize) -> Result<usize> {
            Ok(index)
        }
        fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
            Some(self)
        }
    }

    impl Storage for Meeting {
        type Origin = Origin;

        fn ahead(&self) -> Ahead {
            Ahead::Reads
        }

        fn parts(&self, _index: usize) -> usize {
            self.parts
        }
        fn fetch_part(&self, index: usize, part: usize) -> Result<Fetched> {
            let mut begun = self.begun.lock().unwrap();
            *begun.entry(index).or_default() += 1;
            self.all_begun.notify_all();
            let (begun, timeout) = self
                .all_begun
                .wait_timeout_while(begun, Duration::from_secs(20), |b| b[&index] < self.parts)
                .unwrap();
            drop(begun);
            if timeout.timed_out() {
                return Err(adl_core::Error::invalid("part", "read alone"));
            }
            let read = Part {
                at: (index, part),
                dropped: Arc::clone(&self.dropped),
            };
            Ok(Fetched::read(read, 10))
        }
    }

    #[test]
    fn a_samples_parts_are_read_at_once_and_it_is_read_when_all_are() {
        let data = Arc::new(Meeting::new(30, 4));
        let order = test_order((0..30).collect());
        let stats = Arc::new(Mutex::new(ReadStatistics::default()));
        // Four readers, four parts a sample: each sample's parts meet.
        let stage = Arc::new(ReadAhead::new(
            order,
            1_000_000,
            Arc::clone(&stats),
            Arc::new(Readers::fixed(4)),
            Arc::new(PartCounters::new(Vec::new())),
            Arc::default(),
            None,
        ));
        let readers = spawn_readers(&stage, &data, 4);
        for position in 0..30 {
            let read = stage.take(position);
            // Taken only once every part was read, each in its place.
            assert_eq!(data.begun.lock().unwrap()[&position], 4);
            let parts: Vec<(usize, usize)> = read
                .split(4)
                .map(|p| {
                    let part = p.take::<Part>().expect("a part read");
                    let at = part.at;
                    std::mem::forget(part);
                    at
                })
                .collect();
            assert_eq!(parts, (0..4).map(|p| (position, p)).collect::<Vec<_>>());
        }
        for r in readers {
            r.join().unwrap();
        }
        let stats = *stats.lock().unwrap();
        assert_eq!(
            (stats.reads, stats.failed, stats.bytes),
            (30, 0, 30 * 4 * 10)
        );
        assert!(data.dropped.lock().unwrap().is_empty());
    }

    #[test]
    fn stopping_in_a_samples_parts_drops_its_reads_as_they_end() {
        // Two readers, four parts: the first sample's two parts begun wait
        // for the two that the stop leaves unstarted.
        let data = Arc::new(Meeting::new(5, 4));
        let order = test_order((0..5).collect());
        let stats = Arc::new(Mutex::new(ReadStatistics::default()));
        let stage = Arc::new(ReadAhead::new(
            order,
            1_000_000,
            Arc::clone(&stats),
            Arc::new(Readers::fixed(4)),
            Arc::new(PartCounters::new(Vec::new())),
            Arc::default(),
            None,
        ));
        let readers = spawn_readers(&stage, &data, 2);
        // Both readers are in sample 0's parts.
        {
            let begun = data.begun.lock().unwrap();
            let _ = data
                .all_begun
                .wait_timeout_while(begun, Duration::from_secs(20), |b| b.get(&0) != Some(&2))
                .unwrap();
        }
        stage.stop();
        // Let the two parts end (they meet nobody).
        {
            let mut begun = data.begun.lock().unwrap();
            *begun.get_mut(&0).unwrap() += 2;
            data.all_begun.notify_all();
        }
        for r in readers {
            r.join().unwrap();
        }
        assert_eq!(*data.dropped.lock().unwrap(), vec![0, 0]);
        assert_eq!(stats.lock().unwrap().reads, 0);
    }

    #[test]
    fn stopping_drops_what_was_not_taken() {
        let data = Arc::new(Held::new(50, 10));
        let order = test_order((0..50).collect());
        let stats = Arc::new(Mutex::new(ReadStatistics::default()));
        let stage = Arc::new(ReadAhead::new(
            order,
            100,
            stats,
            Arc::new(Readers::fixed(4)),
            Arc::new(PartCounters::new(Vec::new())),
            Arc::default(),
            None,
        ));
        let reader = {
            let (stage, data) = (Arc::clone(&stage), Arc::clone(&data));
            std::thread::spawn(move || stage.run_reader(0, &*data, &|_| {}))
        };
        drop(stage.take(0));
        stage.stop();
        reader.join().unwrap();
        // Nothing lives: taken ones were consumed, the others dropped.
        assert_eq!(data.held.load(Ordering::SeqCst), 0);
        // A take after the stop returns at once, with nothing.
        assert!(stage.take(40).is_nothing());
    }
}

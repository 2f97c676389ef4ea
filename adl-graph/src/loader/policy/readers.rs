//! How many reader threads the read stage runs: by default, a number that
//! fits the machine to start with, and more only while the reads wait on
//! I/O and the workers wait for them ([`starting_readers`] says the rule).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Samples the read stage reads at once at most when it grows by default
/// ([`most_readers`]): behind a store of 20 ms, 32 samples at once give
/// 1,600 samples/s.
pub(crate) const READERS: usize = 32;

/// The most reader threads the read stage runs by default (more are for
/// [`LoaderBuilder::readers`](crate::loader::LoaderBuilder::readers) to ask).
pub(crate) const MAX_READERS: usize = 256;

/// The cores of this machine (1 where it cannot say).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The read stage's reader threads at the start, by default, for samples
/// of `parts` reads each: one sample per core at once (at least two), a
/// thread per read: `max(cores, 2) x parts`, at most [`MAX_READERS`].
///
/// The rule, for samples of `k` reads at once
/// ([`Storage::parts`](adl_core::storage::Storage::parts): a
/// recording's sensors):
///
/// - **Start** with one sample per core at once, each of its reads on a
///   thread: `max(cores, 2) x k` threads (this function), at most
///   [`MAX_READERS`]. Reads from the page cache or a local disk take the
///   CPU; more threads than that would only take turns on the cores.
/// - **Grow**, doubling (or fourfold while the workers wait as long as
///   the reads take), up to [`READERS`] samples at once (`32 x k`,
///   [`most_readers`]), while the workers wait for reads and the reads
///   block: a read whose thread ran, or waited for a core, for less than
///   half of its time (on Linux, measured on one read in eight) waits on a
///   disk or a store, and more reads in flight hide that latency (behind a store
///   of latency `L`, `n` readers give at most `n / (k L)` samples/s). The
///   readers a loader grew to are kept for its next epochs.
/// - **Shrink**, by half, down to the start, while the reads do not block
///   (a disk read cold in one epoch is in the page cache the next): more
///   threads then only take turns on the cores. A reader past the count
///   ends before its next read.
/// - A count the program sets ([`LoaderBuilder::readers`](crate::loader::LoaderBuilder::readers))
///   is kept as it is: no growth.
///
pub(crate) fn starting_readers(parts: usize) -> usize {
    cores().max(2).saturating_mul(parts.max(1)).min(MAX_READERS)
}

/// The most reader threads the read stage grows to, by default, for
/// samples of `parts` reads each: [`READERS`] samples at once, `32 x
/// parts`, at most [`MAX_READERS`] (and never fewer than it starts with).
pub(crate) fn most_readers(parts: usize) -> usize {
    READERS
        .saturating_mul(parts.max(1))
        .min(MAX_READERS)
        .max(starting_readers(parts))
}

/// A loader's reader threads: how many an epoch starts, and how many
/// they may grow to.
#[derive(Debug)]
pub(crate) struct Readers {
    now: AtomicUsize,
    start: usize,
    /// The most they may grow to now (a memory budget may lower it).
    most: AtomicUsize,
    /// The most they may ever grow to.
    ceiling: usize,
}

impl Readers {
    /// Always `threads` (set by the program).
    pub(crate) fn fixed(threads: usize) -> Self {
        Readers {
            now: AtomicUsize::new(threads),
            start: threads,
            most: AtomicUsize::new(threads),
            ceiling: threads,
        }
    }

    /// `start`, growing up to `most` (and shrinking back to `start`).
    pub(crate) fn growing(start: usize, most: usize) -> Self {
        Readers {
            now: AtomicUsize::new(start),
            start,
            most: AtomicUsize::new(most.max(start)),
            ceiling: most.max(start),
        }
    }

    /// Grow to at most `most` from now on, within the start and the most
    /// they were built with (a count above it shrinks to it: its readers
    /// end before their next read).
    pub(crate) fn cap(&self, most: usize) {
        let most = most.clamp(self.start, self.ceiling);
        self.most.store(most, Ordering::Release);
        self.now.fetch_min(most, Ordering::AcqRel);
    }

    /// The most they may ever grow to.
    pub(crate) fn ceiling(&self) -> usize {
        self.ceiling
    }

    /// The most they may grow to now.
    pub(crate) fn most(&self) -> usize {
        self.most.load(Ordering::Acquire)
    }

    /// Threads now: what an epoch starts.
    pub(crate) fn now(&self) -> usize {
        self.now.load(Ordering::Acquire)
    }

    /// Whether the count may change at all (not one the program set).
    pub(crate) fn adapts(&self) -> bool {
        self.ceiling > self.start
    }

    /// The count they start with and never shrink below.
    pub(crate) fn start(&self) -> usize {
        self.start
    }

    /// Whether reader `id` (numbered from 0) is past the count now: it
    /// ends before its next read.
    pub(crate) fn retired(&self, id: usize) -> bool {
        id >= self.now()
    }

    /// Grow `factor` times from `from` (up to the most), unless another
    /// reader did already: the new count, when this call grew it.
    pub(crate) fn grow(&self, from: usize, factor: usize) -> Option<usize> {
        let to = from.saturating_mul(factor).min(self.most());
        (to > from).then(|| self.change(from, to)).flatten()
    }

    /// Shrink `factor` times from `from` (down to the start), unless
    /// another reader did already: the new count, when this call shrank
    /// it. The readers past it end before their next read.
    pub(crate) fn shrink(&self, from: usize, factor: usize) -> Option<usize> {
        let to = (from / factor.max(1)).max(self.start);
        (to < from).then(|| self.change(from, to)).flatten()
    }

    /// The count from `from` to `to`, unless another reader changed it
    /// first: `to` when this call changed it.
    fn change(&self, from: usize, to: usize) -> Option<usize> {
        self.now
            .compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| to)
    }
}

/// What one window of reads saw, to decide whether the readers grow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Seen {
    /// The window's length.
    pub(crate) elapsed: Duration,
    /// Reads done in it.
    pub(crate) reads: u64,
    /// The workers' wait for reads in it, summed.
    pub(crate) waited: Duration,
    /// Of the reads whose busy time ([`thread_busy`]) was measured (in
    /// this window and the ones before): their time...
    pub(crate) wall: Duration,
    /// ...and their busy time (none where none could be measured).
    pub(crate) busy: Option<Duration>,
}

/// What to do after a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Too few reads yet to say: go on with this window.
    NotYet,
    /// Keep the readers as they are (start a new window).
    Keep,
    /// Grow the readers this many times (start a new window).
    Grow(usize),
    /// Shrink the readers this many times, down to the start (start a new
    /// window).
    Shrink(usize),
}

/// The shortest window decided on.
const SHORTEST: Duration = Duration::from_millis(5);

/// What to do after a window that saw `seen` on `threads` readers
/// (`start` at the start): decide once there were as many reads as
/// readers (and at least [`SHORTEST`] passed); grow when the workers
/// waited for reads a tenth of the window or more, and the reads block
/// (their busy time is under half their time, or cannot be measured):
/// twice as many readers, four times as many when the workers together
/// waited as long as the window (one idle throughout). Shrink by half,
/// down to `start`, when the reads are measured not to block (a store or
/// a disk that was slow is now fast, as files read once are in the page
/// cache the next epoch): more threads than that only take turns on the
/// cores.
pub(crate) fn verdict(seen: &Seen, threads: usize, start: usize) -> Verdict {
    if seen.reads < threads.max(1) as u64 || seen.elapsed < SHORTEST {
        return Verdict::NotYet;
    }
    let starved = seen.waited * 10 >= seen.elapsed;
    let blocking = seen.busy.map(|busy| busy * 2 < seen.wall);
    if starved && blocking != Some(false) {
        Verdict::Grow(if seen.waited >= seen.elapsed { 4 } else { 2 })
    } else if blocking == Some(false) && threads > start {
        Verdict::Shrink(2)
    } else {
        Verdict::Keep
    }
}

/// A window of reads being watched.
#[derive(Debug)]
pub(crate) struct Window {
    began: Instant,
    reads: u64,
    /// The workers' summed wait for reads when it began.
    waited_before: Duration,
    wall: Duration,
    busy: Option<Duration>,
}

impl Window {
    /// A window beginning now, the workers having waited `waited` so far.
    pub(crate) fn new(waited: Duration) -> Self {
        Window {
            began: Instant::now(),
            reads: 0,
            waited_before: waited,
            wall: Duration::ZERO,
            busy: None,
        }
    }

    /// Count a read that took `took`, of which `busy` on its thread where
    /// it was measured.
    pub(crate) fn count(&mut self, took: Duration, busy: Option<Duration>) {
        self.reads += 1;
        if let Some(busy) = busy {
            self.wall += took;
            self.busy = Some(self.busy.unwrap_or_default() + busy);
        }
    }

    /// The window after this one, beginning now, the workers having
    /// waited `waited` in all by now: it counts reads and waits afresh,
    /// and keeps the busy times measured so far (whether reads block does
    /// not change from one window to the next, and few reads of a window
    /// are measured).
    pub(crate) fn next(&self, waited: Duration) -> Self {
        Window {
            wall: self.wall,
            busy: self.busy,
            ..Window::new(waited)
        }
    }

    /// What it saw, the workers having waited `waited` in all by now.
    pub(crate) fn seen(&self, waited: Duration) -> Seen {
        Seen {
            elapsed: self.began.elapsed(),
            reads: self.reads,
            waited: waited.saturating_sub(self.waited_before),
            wall: self.wall,
            busy: self.busy,
        }
    }
}

/// The time the calling thread has run so far, or been ready to run and
/// waited for a core, where the system says it (Linux:
/// `/proc/thread-self/schedstat`, its first two fields): all of its time
/// but what it spent blocked (on a disk, a socket, a lock). A read on a
/// machine whose cores are all busy waits for a core, not for I/O, and
/// more readers would not make it faster.
pub(crate) fn thread_busy() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        let mut fields = text.split_whitespace();
        let mut next = || fields.next()?.parse::<u64>().ok();
        let (ran, waited) = (next()?, next()?);
        Some(Duration::from_nanos(ran.saturating_add(waited)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_start_at_a_sample_per_core_and_grow_to_32_samples() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(starting_readers(4), (cores.max(2) * 4).min(MAX_READERS));
        assert_eq!(most_readers(4), 128.max(starting_readers(4)));
        assert_eq!(most_readers(100), MAX_READERS);
    }

    fn seen(reads: u64, waited_ms: u64, wall_ms: u64, busy_ms: Option<u64>) -> Seen {
        Seen {
            elapsed: Duration::from_millis(100),
            reads,
            waited: Duration::from_millis(waited_ms),
            wall: Duration::from_millis(wall_ms),
            busy: busy_ms.map(Duration::from_millis),
        }
    }

    #[test]
    fn readers_grow_only_while_workers_wait_for_reads_that_block() {
        // As many reads as the 8 readers: decide.
        assert_eq!(verdict(&seen(7, 50, 80, Some(1)), 8, 8), Verdict::NotYet);
        // A store's latency, workers waiting: grow.
        assert_eq!(verdict(&seen(8, 50, 80, Some(1)), 8, 8), Verdict::Grow(2));
        // Workers waiting all along: faster.
        assert_eq!(verdict(&seen(8, 100, 80, Some(1)), 8, 8), Verdict::Grow(4));
        // Reads that take the CPU (the page cache): more threads would
        // take turns on the cores.
        assert_eq!(verdict(&seen(16, 50, 80, Some(70)), 8, 8), Verdict::Keep);
        // The workers hardly waited: the readers keep up.
        assert_eq!(verdict(&seen(16, 9, 80, Some(1)), 8, 8), Verdict::Keep);
        // Where busy time cannot be measured, waiting workers decide.
        assert_eq!(verdict(&seen(16, 10, 80, None), 8, 8), Verdict::Grow(2));
        // Too short a window.
        let short = Seen {
            elapsed: Duration::from_millis(2),
            ..seen(64, 50, 80, Some(1))
        };
        assert_eq!(verdict(&short, 8, 8), Verdict::NotYet);
    }

    #[test]
    fn readers_shrink_to_the_start_once_reads_stop_blocking() {
        // Reads that take the CPU, on more readers than the start: halve.
        assert_eq!(
            verdict(&seen(64, 50, 80, Some(70)), 64, 8),
            Verdict::Shrink(2)
        );
        assert_eq!(
            verdict(&seen(64, 0, 80, Some(70)), 64, 8),
            Verdict::Shrink(2)
        );
        // At the start: keep.
        assert_eq!(verdict(&seen(64, 50, 80, Some(70)), 8, 8), Verdict::Keep);
        // Reads that block still, or cannot be measured: never shrink.
        assert_eq!(verdict(&seen(64, 0, 80, Some(1)), 64, 8), Verdict::Keep);
        assert_eq!(verdict(&seen(64, 0, 80, None), 64, 8), Verdict::Keep);
        let readers = Readers::growing(8, 128);
        assert_eq!(readers.grow(8, 4), Some(32));
        assert!(!readers.retired(31) && readers.retired(32));
        assert_eq!(readers.shrink(32, 2), Some(16));
        assert!(readers.retired(16) && !readers.retired(15));
        // Another reader shrank it already.
        assert_eq!(readers.shrink(32, 2), None);
        assert_eq!(readers.shrink(16, 4), Some(8));
        assert_eq!(readers.shrink(8, 2), None);
        assert_eq!(readers.now(), 8);
        // A count the program set neither grows nor shrinks.
        let fixed = Readers::fixed(3);
        assert!(!fixed.adapts());
        assert_eq!(fixed.shrink(3, 2), None);
    }

    #[test]
    fn growth_multiplies_up_to_the_most_once_per_count() {
        let readers = Readers::growing(8, 20);
        assert!(readers.adapts());
        assert_eq!(readers.grow(8, 2), Some(16));
        // Another reader saw 8 too: grown already.
        assert_eq!(readers.grow(8, 2), None);
        assert_eq!(readers.grow(16, 4), Some(20));
        assert_eq!(readers.grow(20, 2), None);
        assert_eq!(readers.now(), 20);
        let fixed = Readers::fixed(3);
        assert!(!fixed.adapts());
        assert_eq!(fixed.grow(3, 4), None);
    }

    #[test]
    fn the_rule_fits_the_machine() {
        let cores = cores().max(2);
        assert_eq!(starting_readers(1), cores.min(MAX_READERS));
        assert_eq!(starting_readers(4), (4 * cores).min(MAX_READERS));
        assert!(most_readers(4) >= starting_readers(4));
        assert!(most_readers(4) >= 4 * READERS);
        assert_eq!(most_readers(1000), MAX_READERS);
    }

    #[test]
    fn a_window_counts_what_it_saw() {
        let mut window = Window::new(Duration::from_millis(5));
        window.count(Duration::from_millis(20), Some(Duration::from_millis(1)));
        window.count(Duration::from_millis(20), None);
        let seen = window.seen(Duration::from_millis(12));
        assert_eq!(seen.reads, 2);
        assert_eq!(seen.waited, Duration::from_millis(7));
        assert_eq!(seen.wall, Duration::from_millis(20));
        assert_eq!(seen.busy, Some(Duration::from_millis(1)));
        // The next window counts afresh, and keeps the busy times.
        let next = window
            .next(Duration::from_millis(12))
            .seen(Duration::from_millis(15));
        assert_eq!((next.reads, next.waited), (0, Duration::from_millis(3)));
        assert_eq!(next.busy, Some(Duration::from_millis(1)));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_threads_busy_time_grows_while_it_runs_and_not_while_it_sleeps() {
        let before = thread_busy().expect("Linux says a thread's run and run-queue times");
        let spin = Instant::now();
        let mut x = 0u64;
        while spin.elapsed() < Duration::from_millis(30) {
            x = x.wrapping_mul(31).wrapping_add(1);
        }
        std::hint::black_box(x);
        let spun = thread_busy().unwrap() - before;
        std::thread::sleep(Duration::from_millis(30));
        let slept = thread_busy().unwrap() - before - spun;
        assert!(spun > slept, "spun {spun:?}, slept {slept:?}");
    }
}

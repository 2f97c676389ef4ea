//! The rayon execution context of the loader's jobs: branches joined on the
//! worker pool, nodes counted and (one call in [`TIME_EVERY`]) timed into
//! job-local counters, per-sample random generators, the plan's fusion
//! setting, its services (the device, the loader's pool of batch memory),
//! and a record of how each kernel node ran ([`Runs`]).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use adl_core::description::Device;
use adl_exec::Accelerator;
use adl_exec::{Buffers, Context, NodeId, SampleRng, Services};

use super::timeline::{About, Timeline, What};

/// One call in this many of each node is timed (the first of each run of
/// calls of a job): reading the clock around every call would cost as much
/// as a small node. Node times are estimated from the timed calls.
pub(crate) const TIME_EVERY: u64 = 64;

/// One batch in this many has its per-batch work timed (its samples'
/// reads and sample stage where a dataset reads them together, its
/// collate, its batch stage), besides an epoch's first
/// [`TIME_BATCHES_FIRST`]: a small batch is a few microseconds, and its
/// clock reads would be some 2% of it; the times of the others are
/// estimated from these.
pub(crate) const TIME_BATCHES_EVERY: usize = 8;

/// An epoch's first batches are all timed, so that a memory budget's
/// tuner, which sizes the loader from these times after an epoch's first
/// batches, sees more than its coldest.
pub(crate) const TIME_BATCHES_FIRST: usize = 4;

/// What reading the clock around a call costs on this machine, in
/// nanoseconds (the least of a few back-to-back reads), taken off every
/// timed call: a node that does nothing would otherwise be timed at this
/// much (W1's row keys read as 30-40 ns instead of a few).
pub(crate) fn clock_cost() -> u64 {
    static COST: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *COST.get_or_init(|| {
        (0..64)
            .map(|_| Instant::now().elapsed().as_nanos() as u64)
            .min()
            .unwrap_or(0)
    })
}

/// The nanoseconds since `start`, less the clock's own cost.
#[inline]
pub(crate) fn since(start: Instant) -> u64 {
    (start.elapsed().as_nanos() as u64).saturating_sub(clock_cost())
}

/// One node slot's counts: calls, timed calls, nanoseconds of the timed
/// calls.
#[derive(Debug, Default)]
pub(crate) struct SlotCounts {
    pub(crate) calls: AtomicU64,
    pub(crate) timed: AtomicU64,
    pub(crate) nanos: AtomicU64,
}

impl SlotCounts {
    fn each(&self) -> [&AtomicU64; 3] {
        [&self.calls, &self.timed, &self.nanos]
    }
}

/// Counters of every node slot, in one allocation (a job makes its own
/// for every batch). A job fills its own and adds them to the loader's at
/// its end, so the hot path touches no shared cache line.
#[derive(Debug)]
pub(crate) struct Counters {
    slots: Box<[SlotCounts]>,
    /// Whether one thread alone counts into these (a worker's piece of a
    /// batch): a count is then a plain load and store, not a locked
    /// read-modify-write.
    local: bool,
}

impl Counters {
    /// Counters that several threads may count into at once.
    pub(crate) fn new(slots: usize) -> Self {
        Counters {
            slots: (0..slots).map(|_| SlotCounts::default()).collect(),
            local: false,
        }
    }

    /// Counters that one thread alone counts into.
    pub(crate) fn local(slots: usize) -> Self {
        Counters {
            local: true,
            ..Self::new(slots)
        }
    }

    /// Slot `slot`'s counts, if there is such a slot.
    #[inline]
    pub(crate) fn slot(&self, slot: usize) -> Option<&SlotCounts> {
        self.slots.get(slot)
    }

    /// Add `n` to `counter`, returning its value before.
    #[inline]
    fn add(&self, counter: &AtomicU64, n: u64) -> u64 {
        if self.local {
            let before = counter.load(Relaxed);
            counter.store(before + n, Relaxed);
            before
        } else {
            counter.fetch_add(n, Relaxed)
        }
    }

    /// Every counter back to zero.
    pub(crate) fn reset(&self) {
        for counter in self.slots.iter().flat_map(SlotCounts::each) {
            counter.store(0, Relaxed);
        }
    }

    /// Add `other` into these counters.
    pub(crate) fn absorb(&self, other: &Counters) {
        for (mine, theirs) in self.slots.iter().zip(&other.slots) {
            for (a, b) in mine.each().into_iter().zip(theirs.each()) {
                let v = b.load(Relaxed);
                if v != 0 {
                    a.fetch_add(v, Relaxed);
                }
            }
        }
    }

    /// Count a call of `slot`; the start time if this call is timed.
    #[inline]
    pub(crate) fn enter(&self, slot: usize) -> Option<Instant> {
        let counts = self.slots.get(slot)?;
        if self.add(&counts.calls, 1).is_multiple_of(TIME_EVERY) {
            Some(Instant::now())
        } else {
            None
        }
    }

    /// The calls of `slot`, how many were timed, and their time: measured
    /// for the timed ones, estimated from their mean for the others.
    pub(crate) fn estimate(&self, slot: usize) -> (u64, u64, Duration) {
        let (calls, timed, nanos) = self.slots.get(slot).map_or((0, 0, 0), |c| {
            let [calls, timed, nanos] = c.each().map(|v| v.load(Relaxed));
            (calls, timed, nanos)
        });
        let estimate = if timed == 0 {
            0
        } else {
            (u128::from(nanos) * u128::from(calls) / u128::from(timed)) as u64
        };
        (calls, timed, Duration::from_nanos(estimate))
    }

    /// Record the time of a timed call of `slot`.
    #[inline]
    pub(crate) fn leave(&self, slot: usize, entered: Option<Instant>) {
        if let (Some(start), Some(counts)) = (entered, self.slots.get(slot)) {
            self.add(&counts.timed, 1);
            self.add(&counts.nanos, since(start));
        }
    }

    /// Count `calls` calls of `slot`, all timed, that took `nanos`
    /// together ([`since`] their start), or none of them timed where
    /// `nanos` is `None` (their time then estimated from the timed ones):
    /// one call that did the work of many (a dataset's `get_many` of a
    /// batch's samples), counted as the calls it stands for.
    pub(crate) fn record_many(&self, slot: usize, calls: usize, nanos: Option<u64>) {
        if let Some(counts) = self.slots.get(slot) {
            self.add(&counts.calls, calls as u64);
            if let Some(nanos) = nanos {
                self.add(&counts.timed, calls as u64);
                self.add(&counts.nanos, nanos);
            }
        }
    }

    /// Run `f` as one call of `slot` (per-batch work), timed where `timed`
    /// ([`JobContext::times_batch`]).
    pub(crate) fn time<R>(&self, slot: usize, timed: bool, f: impl FnOnce() -> R) -> R {
        let start = timed.then(Instant::now);
        let out = f();
        self.record_many(slot, 1, start.map(since));
        out
    }
}

/// How each kernel node ran, by node slot: the device and the group it
/// ran in (its first node and length), from [`Context::ran`]; and whether
/// that ever changed from one batch to another.
///
/// One word per node: bit 63 says it ran, bit 62 that it ran in more than
/// one way, bits 56-61 the device, bits 28-55 the group's first node,
/// bits 0-27 the group's length.
#[derive(Debug)]
pub(crate) struct Runs {
    slots: Vec<AtomicU64>,
}

/// How a kernel node ran, as [`Runs`] recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ran {
    pub(crate) device: Device,
    /// The group's first node and its length.
    pub(crate) group: (usize, usize),
    /// Whether it ran in more than one way.
    pub(crate) varied: bool,
}

const RAN: u64 = 1 << 63;
const VARIED: u64 = 1 << 62;
const FIELD: u64 = (1 << 28) - 1;

impl Runs {
    pub(crate) fn new(nodes: usize) -> Self {
        Runs {
            slots: (0..nodes).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Record that `group` (consecutive node ids) ran as one on `device`.
    pub(crate) fn record(&self, group: &[NodeId], device: Device) {
        let Some(first) = group.first() else { return };
        let code = match device {
            Device::OpenCl => 1u64,
            _ => 0,
        };
        let word = RAN
            | (code << 56)
            | ((first.index() as u64 & FIELD) << 28)
            | (group.len() as u64 & FIELD);
        for id in group {
            if let Some(slot) = self.slots.get(id.index()) {
                let _ = slot.fetch_update(Relaxed, Relaxed, |old| {
                    if old == 0 || old == word {
                        Some(word)
                    } else if old & !VARIED == word {
                        None
                    } else {
                        Some(word | VARIED)
                    }
                });
            }
        }
    }

    /// How node `slot` ran, if it ran as a kernel.
    pub(crate) fn get(&self, slot: usize) -> Option<Ran> {
        let word = self.slots.get(slot)?.load(Relaxed);
        (word & RAN != 0).then_some(Ran {
            device: if (word >> 56) & 0x3f == 1 {
                Device::OpenCl
            } else {
                Device::Cpu
            },
            group: (((word >> 28) & FIELD) as usize, (word & FIELD) as usize),
            varied: word & VARIED != 0,
        })
    }

    /// Forget every record.
    pub(crate) fn reset(&self) {
        for slot in &self.slots {
            slot.store(0, Relaxed);
        }
    }
}

/// The context of one batch job.
pub(crate) struct JobContext<'a> {
    pub(crate) counters: &'a Counters,
    /// How many slots are the pipeline's nodes (the rest are the loader's
    /// own: read, stages); ids past them are not counted.
    pub(crate) nodes: usize,
    /// Whether the job runs on the worker pool (joins go to rayon) or on the
    /// consumer's thread (joins run in order).
    pub(crate) pooled: bool,
    pub(crate) seed: u64,
    pub(crate) epoch: u64,
    /// The sample being transformed, in the sample stage.
    pub(crate) index: Option<usize>,
    /// The batch the job builds (its number in the epoch).
    pub(crate) batch: usize,
    /// The device of the batch kernels.
    pub(crate) accelerator: Option<&'a dyn Accelerator>,
    /// The loader's pool of batch memory.
    pub(crate) buffers: Buffers<'a>,
    /// Whether batch kernels fuse (the plan's setting).
    pub(crate) fusion: bool,
    /// Where kernel nodes record how they ran.
    pub(crate) runs: &'a Runs,
    /// The run's timeline, where there is one: every node call is a span.
    pub(crate) timeline: Option<&'a Timeline>,
}

impl<'a> JobContext<'a> {
    /// This context, counting into `counters`.
    pub(crate) fn with_counters<'b>(&self, counters: &'b Counters) -> JobContext<'b>
    where
        'a: 'b,
    {
        JobContext {
            counters,
            nodes: self.nodes,
            pooled: self.pooled,
            seed: self.seed,
            epoch: self.epoch,
            index: self.index,
            batch: self.batch,
            accelerator: self.accelerator,
            buffers: self.buffers,
            fusion: self.fusion,
            runs: self.runs,
            timeline: self.timeline,
        }
    }
}

impl JobContext<'_> {
    /// Whether this job's per-batch work is timed: an epoch's first
    /// [`TIME_BATCHES_FIRST`] batches, then one in [`TIME_BATCHES_EVERY`].
    pub(crate) fn times_batch(&self) -> bool {
        self.batch < TIME_BATCHES_FIRST || self.batch.is_multiple_of(TIME_BATCHES_EVERY)
    }

    /// This context, for the sample of dataset index `index`.
    pub(crate) fn at(&self, index: usize) -> JobContext<'_> {
        JobContext {
            counters: self.counters,
            nodes: self.nodes,
            pooled: self.pooled,
            seed: self.seed,
            epoch: self.epoch,
            index: Some(index),
            batch: self.batch,
            accelerator: self.accelerator,
            buffers: self.buffers,
            fusion: self.fusion,
            runs: self.runs,
            timeline: self.timeline,
        }
    }
}

impl Context for JobContext<'_> {
    fn join_dyn(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        if self.pooled {
            rayon::join(a, b);
        } else {
            a();
            b();
        }
    }

    #[inline]
    fn enter(&self, node: NodeId) -> Option<Instant> {
        if node.index() < self.nodes {
            let timed = self.counters.enter(node.index());
            // On a timeline every call is timed (and so counted as timed).
            if self.timeline.is_some() {
                timed.or_else(|| Some(Instant::now()))
            } else {
                timed
            }
        } else {
            None
        }
    }

    #[inline]
    fn leave(&self, node: NodeId, entered: Option<Instant>) {
        if node.index() < self.nodes {
            if let (Some(timeline), Some(began)) = (self.timeline, entered) {
                let about = match self.index {
                    Some(index) => About::Sample(index),
                    None => About::InBatch(self.batch),
                };
                timeline.span(What::Node(node.index()), about, began);
            }
            self.counters.leave(node.index(), entered)
        }
    }

    fn rng(&self, node: NodeId) -> SampleRng {
        SampleRng::new(self.seed, self.epoch, self.index.unwrap_or(0) as u64, node)
    }

    fn sample_index(&self) -> Option<usize> {
        self.index
    }

    fn services(&self) -> Services<'_> {
        let services = Services::new().with_buffers(self.buffers);
        match self.accelerator {
            Some(accelerator) => services.with_accelerator(accelerator),
            None => services,
        }
    }

    fn fusion(&self) -> bool {
        self.fusion
    }

    fn ran(&self, group: &[NodeId], device: Device) {
        if group.iter().all(|id| id.index() < self.nodes) {
            self.runs.record(group, device);
        }
    }
}

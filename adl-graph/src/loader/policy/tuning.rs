//! [`Tuning`]: how a loader with a [memory
//! budget](crate::loader::LoaderBuilder::memory_budget) sizes its batches ahead,
//! its read stage and the batches it builds at once, from what it
//! measured; the rule is [`choose`], in one place (described on
//! [`Tuning`]).

use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::READ_BOUND;

/// What a loader under a [memory
/// budget](crate::loader::LoaderBuilder::memory_budget) chose, and why: in
/// [`Statistics::tuning`](crate::loader::Statistics::tuning), chosen at the start
/// of each epoch and again as its measurements grow (after 1, 4, 16 and
/// 64 batches, then every 64).
///
/// The memory a loader holds is its batches and its reads ahead:
///
/// - **batches**: the window of batches built or waiting (`batches_ahead`),
///   the consumer's batch, and one given back and not yet reused: two
///   more than the window, each of a batch's bytes as measured: the
///   largest batch given back to the loader's
///   [`BufferPool`](adl_exec::BufferPool) (its arrays, pooled or too
///   small to pool), and what its type holds outside the pool
///   ([`Recycle::unpooled_bytes`](adl_exec::Recycle::unpooled_bytes):
///   a Python batch's arrays);
/// - **reads ahead**: the read stage's bound, plus one read per reader in
///   progress (the readers may grow only to as many reads as the bound
///   holds).
///
/// Within the budget, the rule wants (Little's law, from measured times):
///
/// - **batches built at once**: as many as keep up with the consumer, a
///   batch's worker time over the consumer's time per batch (every worker
///   until the consumer's time is measured, and when the consumer takes
///   no time of its own, as in a benchmark loop). The loader gives its
///   workers no more batch jobs at once than that: the other workers
///   stay idle, and hold no samples in progress;
/// - **batches ahead**: those, plus two (the consumer's next, and one
///   against jitter);
/// - **reads ahead**: twice the samples that keep the readers busy and the
///   batches being built fed: samples/s times a read's time, plus a batch
///   per batch being built.
///
/// Where that is over the budget, it gives up, in order: the spare batch,
/// the reads' headroom, batches ahead down to one, reads ahead down to one
/// batch of samples. A budget that holds not even that is reported
/// ([`Tuning::over_budget`]), and the loader runs with the least.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Tuning {
    /// The budget, in bytes.
    pub budget: u64,
    /// Batches built or waiting ahead of the consumer.
    pub batches_ahead: usize,
    /// The workers needed to keep up with the consumer, as measured: the
    /// loader runs at most this many batch jobs at once, and the window
    /// holds a batch for each to build, and two more.
    pub building: usize,
    /// The read stage's bound on bytes read ahead (0: no read stage).
    pub read_bound: u64,
    /// The most reader threads the read stage may grow to (0: no read
    /// stage).
    pub readers: usize,
    /// One batch's bytes, as measured (`None` before the first batch).
    pub batch_bytes: Option<u64>,
    /// The memory planned: batches and reads ahead, in bytes.
    pub planned: u64,
    /// Whether even the least (one batch ahead, one batch of samples read
    /// ahead) is over the budget.
    pub over_budget: bool,
    /// Why, one line per choice.
    pub why: Vec<String>,
}

/// A loader's budget and what it chose last: the window of batches ahead
/// its epochs open, read by their jobs as they go.
#[derive(Debug)]
pub(crate) struct Tuner {
    pub(crate) budget: u64,
    window: AtomicUsize,
    /// The batches built at once chosen last (`usize::MAX` before the
    /// first choice: no limit).
    building: AtomicUsize,
    last: Mutex<Option<Tuning>>,
    /// What was measured so far, kept across epochs and statistics
    /// resets.
    measured: Mutex<Option<Measures>>,
}

impl Tuner {
    /// Before anything is measured: one batch ahead.
    pub(crate) fn new(budget: u64) -> Self {
        Tuner {
            budget,
            window: AtomicUsize::new(1),
            building: AtomicUsize::new(usize::MAX),
            last: Mutex::new(None),
            measured: Mutex::new(None),
        }
    }

    /// Choose from `fresh` measures, with what was measured before where
    /// they have nothing (a new epoch's first choice, after the
    /// statistics were reset), and take the choice from now on.
    pub(crate) fn choose(&self, fresh: Measures) -> Tuning {
        let measures = {
            let mut measured = self.measured.lock().unwrap_or_else(|p| p.into_inner());
            let merged = match measured.take() {
                Some(earlier) => fresh.or(&earlier),
                None => fresh,
            };
            *measured = Some(merged.clone());
            merged
        };
        let tuning = choose(&measures);
        self.set(tuning.clone());
        tuning
    }

    /// The batches ahead chosen last.
    pub(crate) fn window(&self) -> usize {
        self.window.load(Ordering::Relaxed).max(1)
    }

    /// The batch jobs the workers may run at once, as chosen last (no
    /// limit before the first choice).
    pub(crate) fn building(&self) -> usize {
        self.building.load(Ordering::Relaxed).max(1)
    }

    /// Take `tuning` as the choice from now on.
    fn set(&self, tuning: Tuning) {
        self.window.store(tuning.batches_ahead, Ordering::Relaxed);
        self.building.store(tuning.building, Ordering::Relaxed);
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(tuning);
    }

    /// What was chosen last.
    pub(crate) fn last(&self) -> Option<Tuning> {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Whether a loader retunes after delivering its `delivered`th batch of an
/// epoch: after 1, 4, 16 and 64, then every 64.
pub(crate) fn retunes_after(delivered: usize) -> bool {
    matches!(delivered, 1 | 4 | 16) || (delivered > 0 && delivered.is_multiple_of(64))
}

/// What the rule is given: the budget, the loader's settings and what was
/// measured so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Measures {
    /// The budget, in bytes.
    pub(crate) budget: u64,
    /// Worker threads (0: the consumer builds every batch).
    pub(crate) workers: usize,
    /// Samples per batch.
    pub(crate) batch_size: usize,
    /// Batches ahead the program set: kept.
    pub(crate) fixed_window: Option<usize>,
    /// A read bound the program set: kept.
    pub(crate) fixed_bound: Option<u64>,
    /// A batch's bytes.
    pub(crate) batch_bytes: Option<u64>,
    /// A batch's time on the workers: reading or decoding its samples,
    /// the sample, collate and batch stages.
    pub(crate) build: Option<Duration>,
    /// The consumer's own time per batch (between asking for batches,
    /// what it waited left out).
    pub(crate) consumer: Option<Duration>,
    /// The read stage, where there is one.
    pub(crate) read: Option<ReadMeasures>,
}

impl Measures {
    /// These, with what `earlier` measured where these have nothing.
    fn or(self, earlier: &Measures) -> Measures {
        let read = match (self.read, earlier.read) {
            (Some(now), Some(then)) => Some(ReadMeasures {
                sample_bytes: now.sample_bytes.or(then.sample_bytes),
                read_bytes: now.read_bytes.or(then.read_bytes),
                latency: now.latency.or(then.latency),
                rate: now.rate.or(then.rate),
                ..now
            }),
            (now, _) => now,
        };
        Measures {
            batch_bytes: self.batch_bytes.or(earlier.batch_bytes),
            build: self.build.or(earlier.build),
            consumer: self.consumer.or(earlier.consumer),
            read,
            ..self
        }
    }
}

/// What the read stage measured.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ReadMeasures {
    /// The reader threads it starts with (never fewer).
    pub(crate) start: usize,
    /// The most it may grow to without a budget.
    pub(crate) most: usize,
    /// A sample's bytes.
    pub(crate) sample_bytes: Option<u64>,
    /// The bytes of a reader's read (a part of a sample: its largest
    /// sensor's, on average).
    pub(crate) read_bytes: Option<u64>,
    /// A sample's read time.
    pub(crate) latency: Option<Duration>,
    /// Samples delivered per second.
    pub(crate) rate: Option<f64>,
}

/// What the rule wants of the read stage: its measures, a sample's bytes
/// (where measured), the bound wanted, without headroom, and the least,
/// and why, in words.
struct ReadWants {
    measures: ReadMeasures,
    sample: Option<u64>,
    wanted: u64,
    lean: u64,
    least: u64,
    why: String,
}

/// The memory of `window` batches ahead of `batch` bytes: with the
/// consumer's and one given back.
fn batches_memory(window: usize, batch: u64) -> u64 {
    (window as u64 + 2).saturating_mul(batch)
}

/// The rule: see [`Tuning`].
pub(crate) fn choose(m: &Measures) -> Tuning {
    let mut why = Vec::new();
    let workers = m.workers;
    let batch_size = m.batch_size.max(1) as u64;
    // Batches built at once.
    let building = match (m.build, m.consumer) {
        _ if workers == 0 => {
            why.push("the consumer builds each batch when it asks (no workers)".to_owned());
            1
        }
        (Some(build), Some(consumer)) if !consumer.is_zero() => {
            let need = (build.as_secs_f64() / consumer.as_secs_f64()).ceil() as usize;
            let need = need.clamp(1, workers);
            why.push(format!(
                "{need} of {workers} workers build at once: a batch takes {} of worker time, the consumer {} of its own",
                crate::loader::stats::human(build),
                crate::loader::stats::human(consumer)
            ));
            need
        }
        (_, Some(_)) => {
            why.push(format!(
                "all {workers} workers build at once: the consumer takes no time of its own between batches"
            ));
            workers
        }
        _ => {
            why.push(format!(
                "all {workers} workers build at once until the consumer's time is measured"
            ));
            workers
        }
    };
    let wanted_window = m.fixed_window.unwrap_or(building + 2);
    // Reads ahead: wanted, without headroom, and the least.
    let read = m.read.map(|r| {
        let sample = r.sample_bytes.filter(|&b| b > 0);
        let feeding = building as u64 * batch_size;
        let (wanted, lean, why_reads) = match (sample, r.latency, r.rate) {
            (Some(bytes), Some(latency), Some(rate)) => {
                let in_flight = (rate * latency.as_secs_f64()).ceil() as u64;
                let samples = in_flight + feeding;
                (
                    2 * samples * bytes,
                    samples * bytes,
                    format!(
                        "reads ahead: twice {samples} samples of {} ({in_flight} in flight at {rate:.0} samples/s and {} a read, {feeding} for the batches being built)",
                        human_bytes(bytes),
                        crate::loader::stats::human(latency)
                    ),
                )
            }
            (Some(bytes), ..) => (
                2 * feeding * bytes,
                feeding * bytes,
                format!(
                    "reads ahead: twice the {feeding} samples of {} for the batches being built (the read time is not measured yet)",
                    human_bytes(bytes)
                ),
            ),
            _ => {
                let bound = READ_BOUND.min(m.budget / 4).max(1);
                (
                    bound,
                    bound,
                    format!(
                        "reads ahead: {} (a quarter of the budget, at most the default) until a read is measured",
                        human_bytes(bound)
                    ),
                )
            }
        };
        let least = sample.map_or(1, |b| b * batch_size);
        ReadWants {
            measures: r,
            sample,
            wanted: wanted.max(1),
            lean: lean.max(least),
            least,
            why: why_reads,
        }
    });
    // The reads' memory at `bound`: the bound, and a read per reader,
    // the readers capped at as many reads as the bound holds.
    let readers_for = |bound: u64| -> (usize, u64) {
        match &read {
            None => (0, 0),
            Some(wants) => {
                let r = &wants.measures;
                let part = r.read_bytes.or(wants.sample).filter(|&b| b > 0);
                let readers = match part {
                    Some(part) => {
                        ((bound / part.max(1)) as usize).clamp(r.start, r.most.max(r.start))
                    }
                    // No read measured yet: the readers do not grow.
                    None => r.start,
                };
                (readers, bound + part.unwrap_or(0) * readers as u64)
            }
        }
    };
    let fixed_bound = m.fixed_bound.filter(|_| read.is_some());
    let bound_of = |choice: u64| fixed_bound.unwrap_or(choice);
    let (read_wanted, read_lean, read_least) = match &read {
        Some(wants) => (wants.wanted, wants.lean, wants.least),
        None => (0, 0, 0),
    };
    let fits = |window: usize, bound: u64| -> bool {
        let batch = m.batch_bytes.unwrap_or(0);
        batches_memory(window, batch) + readers_for(bound).1 <= m.budget
    };
    // The batches ahead the program set, else `choice`.
    let window_of = |choice: usize| m.fixed_window.unwrap_or(choice).max(1);
    let (window, bound) = match m.batch_bytes {
        None => {
            why.push("1 batch ahead until the first batch is measured".to_owned());
            (window_of(1), bound_of(read_wanted.min(m.budget / 2).max(1)))
        }
        Some(batch) => {
            // The largest bound in `low..=high` that fits beside `window`
            // batches ahead (the reads' memory grows with the bound), if
            // any; the bound the program set, if it did and it fits.
            let largest = |window: usize, low: u64, high: u64| -> Option<u64> {
                if let Some(fixed) = fixed_bound {
                    return fits(window, fixed).then_some(fixed);
                }
                if !fits(window, low) {
                    return None;
                }
                let (mut low, mut high) = (low, high.max(low));
                while low < high {
                    let mid = low + (high - low).div_ceil(2);
                    if fits(window, mid) {
                        low = mid;
                    } else {
                        high = mid - 1;
                    }
                }
                Some(low)
            };
            // Batches that take no pooled memory cost nothing ahead.
            let lean_window = if batch == 0 {
                window_of(wanted_window)
            } else {
                window_of(building + 1)
            };
            let full = window_of(wanted_window);
            // As many batches ahead as fit beside the lean reads (not
            // more than the lean window), where batches count and their
            // number is the loader's to choose.
            let fitting = || {
                let room = m.budget.saturating_sub(readers_for(bound_of(read_lean)).1);
                let window = ((room / batch.max(1)).saturating_sub(2) as usize).min(building + 1);
                (m.fixed_window.is_none() && batch > 0 && window >= 1).then_some(window)
            };
            const SPARE: &str = "the spare batch ahead";
            let (window, bound, gave_up): (usize, u64, &[&str]) =
                if fits(full, bound_of(read_wanted)) {
                    (full, bound_of(read_wanted), &[])
                } else if lean_window < full && fits(lean_window, bound_of(read_wanted)) {
                    (lean_window, bound_of(read_wanted), &[SPARE])
                } else if let Some(bound) = largest(lean_window, read_lean, read_wanted) {
                    let gave: &[&str] = if lean_window < full {
                        &[SPARE, "part of the reads' headroom"]
                    } else {
                        &["part of the reads' headroom"]
                    };
                    (lean_window, bound, gave)
                } else if let Some(window) = fitting() {
                    (
                        window,
                        bound_of(read_lean),
                        &["the reads' headroom", "batches ahead"],
                    )
                } else {
                    // One batch ahead, and the most reads that fit beside it.
                    let window = window_of(1);
                    let bound = largest(window, read_least, read_lean)
                        .unwrap_or_else(|| bound_of(read_least));
                    (window, bound.max(1), &["batches ahead", "reads ahead"])
                };
            if let Some((last, rest)) = gave_up.split_last() {
                why.push(if rest.is_empty() {
                    format!("the budget gave up {last}")
                } else {
                    format!("the budget gave up {} and {last}", rest.join(", "))
                });
            }
            (window, bound)
        }
    };
    let (readers, read_memory) = readers_for(bound);
    let planned = batches_memory(window, m.batch_bytes.unwrap_or(0)) + read_memory;
    if let Some(wants) = &read {
        why.push(wants.why.clone());
    }
    if let Some(window) = m.fixed_window {
        why.push(format!("{window} batches ahead, as set"));
    }
    if let Some(bound) = fixed_bound {
        why.push(format!("a read bound of {}, as set", human_bytes(bound)));
    }
    if m.batch_bytes == Some(0) {
        why.push("the batches are not built in the loader's memory: not counted".to_owned());
    }
    let over_budget = m.batch_bytes.is_some() && planned > m.budget;
    if over_budget {
        why.push(format!(
            "over budget: the least this loader runs with is {}",
            human_bytes(planned)
        ));
    }
    Tuning {
        budget: m.budget,
        batches_ahead: window,
        building: building.min(window),
        read_bound: if read.is_some() { bound } else { 0 },
        readers,
        batch_bytes: m.batch_bytes,
        planned,
        over_budget,
        why,
    }
}

fn human_bytes(bytes: u64) -> String {
    crate::loader::stats::bytes(usize::try_from(bytes).unwrap_or(usize::MAX))
}

impl fmt::Display for Tuning {
    /// `memory budget 256.0 MB: 4 batches ahead of 4.2 MB, 2 built at
    /// once, reads ahead 48.0 MB on at most 16 readers; 73.2 MB planned`,
    /// then the reasons, one a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "memory budget {}: {} batch{} ahead",
            human_bytes(self.budget),
            self.batches_ahead,
            if self.batches_ahead == 1 { "" } else { "es" }
        )?;
        match self.batch_bytes {
            Some(bytes) => write!(f, " of {}", human_bytes(bytes))?,
            None => f.write_str(" (a batch's size not measured yet)")?,
        }
        write!(f, ", {} built at once", self.building)?;
        if self.readers > 0 {
            write!(
                f,
                ", reads ahead {} on at most {} readers",
                human_bytes(self.read_bound),
                self.readers
            )?;
        }
        write!(f, "; {} planned", human_bytes(self.planned))?;
        if self.over_budget {
            f.write_str(" (over budget)")?;
        }
        for line in &self.why {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1_000_000;

    fn measured(budget: u64) -> Measures {
        Measures {
            budget,
            workers: 4,
            batch_size: 8,
            batch_bytes: Some(4 * MB),
            build: Some(Duration::from_millis(40)),
            consumer: Some(Duration::from_millis(5)),
            read: Some(ReadMeasures {
                start: 8,
                most: 128,
                sample_bytes: Some(MB),
                read_bytes: Some(MB / 2),
                latency: Some(Duration::from_millis(10)),
                rate: Some(800.0),
            }),
            ..Measures::default()
        }
    }

    #[test]
    fn a_roomy_budget_gets_what_the_measurements_want() {
        let t = choose(&measured(1_000 * MB));
        // 40 ms a batch over 5 ms of the consumer: 8, capped at 4 workers.
        assert_eq!(t.building, 4);
        assert_eq!(t.batches_ahead, 6);
        // 800/s x 10 ms = 8 in flight, 32 for 4 batches of 8: twice 40.
        assert_eq!(t.read_bound, 80 * MB);
        // As many readers as reads of 0.5 MB the bound holds, at most 128.
        assert_eq!(t.readers, 128);
        assert_eq!(t.planned, 8 * 4 * MB + 80 * MB + 128 * MB / 2);
        assert!(!t.over_budget && t.planned <= t.budget);
        assert!(t.why.iter().all(|l| !l.contains("gave up")), "{t}");
    }

    #[test]
    fn a_slow_consumer_needs_fewer_batches_at_once() {
        let mut m = measured(1_000 * MB);
        m.consumer = Some(Duration::from_millis(25));
        let t = choose(&m);
        assert_eq!((t.building, t.batches_ahead), (2, 4));
        assert!(t.why[0].starts_with("2 of 4 workers"), "{t}");
    }

    #[test]
    fn a_tight_budget_gives_up_in_order_and_stays_within() {
        let mut last = (usize::MAX, u64::MAX);
        for budget in [300, 200, 150, 100, 80, 60, 50, 45] {
            let t = choose(&measured(budget * MB));
            assert!(t.planned <= t.budget, "{budget} MB: {t}");
            assert!(!t.over_budget);
            assert!(t.batches_ahead >= 1 && t.read_bound >= 8 * MB, "{t}");
            // Less budget never gives more.
            assert!(t.batches_ahead <= last.0 && t.read_bound <= last.1, "{t}");
            last = (t.batches_ahead, t.read_bound);
        }
        let t = choose(&measured(150 * MB));
        assert!(
            t.why
                .iter()
                .any(|l| l.contains("gave up the spare batch ahead")),
            "{t}"
        );
    }

    #[test]
    fn a_budget_below_the_least_is_reported() {
        let t = choose(&measured(10 * MB));
        assert!(t.over_budget, "{t}");
        assert_eq!(t.batches_ahead, 1);
        // One batch of samples read ahead.
        assert_eq!(t.read_bound, 8 * MB);
        assert!(t.to_string().contains("(over budget)"));
    }

    #[test]
    fn until_a_batch_is_measured_one_is_built_ahead() {
        let mut m = measured(100 * MB);
        m.batch_bytes = None;
        m.read = Some(ReadMeasures {
            sample_bytes: None,
            read_bytes: None,
            latency: None,
            rate: None,
            ..m.read.unwrap_or_default()
        });
        let t = choose(&m);
        assert_eq!(t.batches_ahead, 1);
        assert_eq!(t.read_bound, 25 * MB);
        assert!(!t.over_budget);
        assert!(t.to_string().contains("not measured yet"), "{t}");
    }

    #[test]
    fn what_was_measured_before_fills_in_what_is_not_yet() {
        let tuner = Tuner::new(1_000 * MB);
        let first = tuner.choose(measured(1_000 * MB));
        // A new epoch after a statistics reset: nothing measured yet.
        let mut fresh = measured(1_000 * MB);
        fresh.batch_bytes = None;
        fresh.build = None;
        fresh.consumer = None;
        fresh.read = Some(ReadMeasures {
            sample_bytes: None,
            read_bytes: None,
            latency: None,
            rate: None,
            ..fresh.read.unwrap_or_default()
        });
        assert_eq!(tuner.choose(fresh), first);
        assert_eq!(tuner.window(), 6);
    }

    #[test]
    fn settings_the_program_made_are_kept() {
        let mut m = measured(60 * MB);
        m.fixed_window = Some(3);
        m.fixed_bound = Some(16 * MB);
        let t = choose(&m);
        assert_eq!((t.batches_ahead, t.read_bound), (3, 16 * MB));
        assert!(t.why.iter().any(|l| l == "3 batches ahead, as set"), "{t}");
    }

    #[test]
    fn without_a_read_stage_only_batches_count() {
        let mut m = measured(40 * MB);
        m.read = None;
        m.fixed_bound = Some(5);
        let t = choose(&m);
        // 10 batches of 4 MB: 8 ahead would fit, but 4 workers want 6.
        assert_eq!((t.batches_ahead, t.read_bound, t.readers), (6, 0, 0));
        assert_eq!(t.planned, 32 * MB);
    }
}

//! [`GilTime`]: what calling into Python costs a loader's threads: the
//! calls, the time spent waiting for the GIL, and the time spent in
//! Python once it was held (shown by `adl.Loader.statistics()`).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// The calls into Python of one loader, counted and timed.
#[derive(Debug, Default)]
pub(crate) struct GilTime {
    calls: AtomicU64,
    /// Nanoseconds waited for the GIL.
    waiting: AtomicU64,
    /// Nanoseconds spent holding it.
    running: AtomicU64,
    /// When the first call began, and the nanoseconds from then to the
    /// end of the latest.
    first: OnceLock<Instant>,
    span: AtomicU64,
}

impl GilTime {
    /// `f` with the GIL, counted: the wait to take it and the time in it.
    /// Once the interpreter has begun to exit, an error instead (see
    /// [`crate::exit`]): asking for the GIL then would end the thread.
    pub(crate) fn attach<T>(
        &self,
        f: impl for<'py> FnOnce(Python<'py>) -> adl_core::Result<T>,
    ) -> adl_core::Result<T> {
        let _inside = crate::exit::enter()?;
        let asked = Instant::now();
        let first = *self.first.get_or_init(|| asked);
        Python::attach(|py| {
            let held = Instant::now();
            let out = f(py);
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.waiting
                .fetch_add(nanos(held - asked), Ordering::Relaxed);
            self.running
                .fetch_add(nanos(held.elapsed()), Ordering::Relaxed);
            self.span
                .fetch_max(nanos(first.elapsed()), Ordering::Relaxed);
            out
        })
    }

    /// The time in Python and the time from the first call to the end of
    /// the latest, where there were enough calls to tell and Python held
    /// the GIL from half to all of that span: the calls ran one at a
    /// time, and the GIL is what the loader waits on. (Calls that release
    /// the GIL for their work, NumPy's on large arrays, adl's sensors',
    /// overlap: their time in Python adds up to more than the span.)
    pub(crate) fn held_back(&self) -> Option<(Duration, Duration)> {
        let calls = self.calls.load(Ordering::Relaxed);
        let running = Duration::from_nanos(self.running.load(Ordering::Relaxed));
        let span = Duration::from_nanos(self.span.load(Ordering::Relaxed));
        held_back(calls, running, span).then_some((running, span))
    }

    /// Take `calls`, `running` and `span` as what was measured, in place of
    /// what was: for tests of the choice that follows from them, which the
    /// machine's load must not decide.
    pub(crate) fn assume(&self, calls: u64, running: Duration, span: Duration) {
        self.calls.store(calls, Ordering::Relaxed);
        self.running.store(nanos(running), Ordering::Relaxed);
        self.span.store(nanos(span), Ordering::Relaxed);
    }

    /// A line for the statistics: the calls and their times (none: no
    /// line).
    pub(crate) fn report(&self) -> Option<String> {
        let calls = self.calls.load(Ordering::Relaxed);
        if calls == 0 {
            return None;
        }
        let waiting = Duration::from_nanos(self.waiting.load(Ordering::Relaxed));
        let running = Duration::from_nanos(self.running.load(Ordering::Relaxed));
        Some(format!(
            "Python: {calls} calls into the dataset and pipeline, {:.1} ms waiting for the GIL ({:.1} us a call), {:.1} ms running Python",
            waiting.as_secs_f64() * 1e3,
            waiting.as_secs_f64() * 1e6 / calls as f64,
            running.as_secs_f64() * 1e3
        ))
    }
}

/// Whether `calls` into Python that ran `running` in all, over `span` from
/// the first to the end of the latest, held the GIL one at a time: enough
/// of them (64), and Python busy from half to all of the span (its time
/// can exceed the span a little, by the clock's reads).
fn held_back(calls: u64, running: Duration, span: Duration) -> bool {
    let busy = running.as_secs_f64() / span.as_secs_f64().max(1e-9);
    calls >= 64 && (0.5..=1.1).contains(&busy)
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

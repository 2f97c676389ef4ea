//! [`GilTime`]: a loader's threads' calls into Python: made one at a time
//! where the user's code is not known to be thread-safe
//! ([`GilTime::one_at_a_time`]), and what they cost: the calls, the time
//! spent waiting for the GIL (and for the call before), and the time
//! spent in Python once it was held (shown by `adl.Loader.statistics()`).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
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
    /// Set: one call at a time, each holding `turn` from before it takes
    /// the GIL to its end (a C extension that releases the GIL mid-call
    /// lets no other call in).
    serial: AtomicBool,
    /// Whether a call holds the turn, and the condition its end signals.
    busy: Mutex<bool>,
    ended: Condvar,
}

thread_local! {
    /// Whether this thread holds a loader's turn now: a call made from
    /// inside another (a pipeline's `batch` calling back) does not wait
    /// for itself.
    static IN_TURN: Cell<bool> = const { Cell::new(false) };
}

impl GilTime {
    /// `f` with the GIL, counted: the wait to take it and the time in it.
    /// Once the interpreter has begun to exit, an error instead (see
    /// [`crate::exit`]): asking for the GIL then would end the thread.
    ///
    /// One call at a time ([`GilTime::one_at_a_time`]), the call waits for
    /// the one before to end, without the GIL (the call it waits for may
    /// need it), and that wait counts as waiting.
    pub(crate) fn attach<T>(
        &self,
        f: impl for<'py> FnOnce(Python<'py>) -> adl_core::Result<T>,
    ) -> adl_core::Result<T> {
        self.call(self.serial.load(Ordering::Acquire), f)
    }

    /// As [`GilTime::attach`], for a call into adl's own Python classes
    /// (an `adl.Dataset` of adl's sensors), thread-safe: never one at a
    /// time.
    pub(crate) fn attach_adl<T>(
        &self,
        f: impl for<'py> FnOnce(Python<'py>) -> adl_core::Result<T>,
    ) -> adl_core::Result<T> {
        self.call(false, f)
    }

    fn call<T>(
        &self,
        serial: bool,
        f: impl for<'py> FnOnce(Python<'py>) -> adl_core::Result<T>,
    ) -> adl_core::Result<T> {
        let _inside = crate::exit::enter()?;
        let asked = Instant::now();
        let serial = serial && !IN_TURN.get();
        Python::attach(|py| {
            let _turn = serial.then(|| py.detach(|| self.take_turn()));
            let held = Instant::now();
            let out = f(py);
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.waiting
                .fetch_add(nanos(held - asked), Ordering::Relaxed);
            self.running
                .fetch_add(nanos(held.elapsed()), Ordering::Relaxed);
            out
        })
    }

    /// Wait for the call before to end, then hold the turn until the
    /// [`Turn`] is dropped.
    fn take_turn(&self) -> Turn<'_> {
        let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        while *busy {
            busy = self
                .ended
                .wait(busy)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *busy = true;
        IN_TURN.set(true);
        Turn { of: self }
    }

    /// From now on, one call at a time: for Python code not known to be
    /// thread-safe on the loader's threads (a C extension may cache state
    /// and release the GIL mid-call: two calls at once would share it).
    /// Once set it stays set (a pipeline shared by two loaders is called
    /// one call at a time by both).
    pub(crate) fn one_at_a_time(&self) {
        self.serial.store(true, Ordering::Release);
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
            "Python: {calls} calls into the dataset and pipeline{}, {:.1} ms waiting for the GIL ({:.1} us a call), {:.1} ms running Python",
            match self.serial.load(Ordering::Relaxed) {
                true => " (one at a time: the wait is for the call before too)",
                false => "",
            },
            waiting.as_secs_f64() * 1e3,
            waiting.as_secs_f64() * 1e6 / calls as f64,
            running.as_secs_f64() * 1e3
        ))
    }
}

/// A call's turn, held to its end: dropped, the next call may begin.
struct Turn<'a> {
    of: &'a GilTime,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        IN_TURN.set(false);
        *self.of.busy.lock().unwrap_or_else(PoisonError::into_inner) = false;
        self.of.ended.notify_one();
    }
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

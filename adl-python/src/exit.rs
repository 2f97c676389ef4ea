//! [`enter`] and [`at_exit`]: no thread of adl's calls into Python once
//! the interpreter has begun to exit.
//!
//! Why: while CPython finalizes, a thread that asks for the GIL is ended
//! where it stands (`pthread_exit` up to 3.13; from 3.14 it hangs
//! forever). `pthread_exit` unwinds the thread by force, through adl's
//! frames and rayon's, and the first `catch_unwind` on the way (every job
//! of the loader's pool runs in one) stops that unwind: glibc then aborts
//! the process with "FATAL: exception not rethrown". A script that leaves
//! an epoch open (a `break`, an exception) and exits while a worker is
//! still making a batch through Python code was killed by SIGABRT that
//! way.
//!
//! So every call into Python from adl's threads passes a gate:
//! [`enter`] counts the thread in before it asks for the GIL, and refuses
//! once [`at_exit`] has closed the gate. `at_exit` runs from Python's
//! `atexit`, while the interpreter is still whole (before finalization
//! begins): it closes the gate, then waits with the GIL released until
//! every thread counted in has left Python. Those that were waiting for
//! the GIL get it and finish their call; after that no thread of adl's
//! asks for the GIL again, and the work they had left ends in an error
//! nobody reads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use adl_core::{Error, Result};
use pyo3::prelude::*;

/// Set by [`at_exit`]: no new call into Python.
static CLOSED: AtomicBool = AtomicBool::new(false);
/// Threads of adl's inside a call into Python, or waiting for the GIL to
/// make one.
static INSIDE: AtomicUsize = AtomicUsize::new(0);

/// A thread counted in by [`enter`]; counted out when dropped (also when
/// the call panics).
#[must_use = "the thread is counted in only while the guard lives"]
pub(crate) struct Inside(());

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Count this thread in before it asks for the GIL; an error once the
/// interpreter is exiting, instead of a call that would end the thread.
///
/// The count goes up before the gate is read, and [`at_exit`] closes the
/// gate before it reads the count (all `SeqCst`): either this thread sees
/// the gate closed, or `at_exit` sees this thread inside and waits for it.
pub(crate) fn enter() -> Result<Inside> {
    INSIDE.fetch_add(1, Ordering::SeqCst);
    let inside = Inside(());
    if CLOSED.load(Ordering::SeqCst) {
        return Err(Error::read(
            "a dataset or pipeline in Python",
            None,
            "the Python interpreter is exiting: the loader's work still in flight is dropped \
             instead of calling into Python",
        ));
    }
    Ok(inside)
}

/// Python's `atexit` hook (registered when `adl._native` is imported):
/// close the gate, then wait without the GIL for adl's threads to leave
/// Python. A call that takes long (a slow sample) is waited for, as the
/// training loop waits for it with no workers; after 10 s a line on
/// stderr says what the exit waits for, once. (Not waiting is no way
/// out: the thread would be ended by force inside adl's frames, the abort
/// this module is here to prevent.)
#[pyfunction]
pub(crate) fn at_exit(py: Python<'_>) {
    CLOSED.store(true, Ordering::SeqCst);
    py.detach(|| {
        let start = Instant::now();
        let mut told = false;
        while INSIDE.load(Ordering::SeqCst) > 0 {
            if !told && start.elapsed() > Duration::from_secs(10) {
                eprintln!(
                    "adl: the interpreter's exit waits for {} call(s) into Python from adl's \
                     loader threads to return (a dataset or pipeline still running)",
                    INSIDE.load(Ordering::SeqCst)
                );
                told = true;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    });
}

/// `os.register_at_fork`'s hook in a child: a forked process has none of
/// its parent's other threads, so none of them is inside Python there
/// (the count copied from the parent would make the child's exit wait
/// for threads that do not exist).
#[pyfunction]
pub(crate) fn after_fork_in_child() {
    INSIDE.store(0, Ordering::SeqCst);
}

/// Register [`at_exit`] with Python's `atexit`, and
/// [`after_fork_in_child`] with `os.register_at_fork`.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let hook = wrap_pyfunction!(at_exit, module)?;
    module.add("_at_exit", &hook)?;
    py.import("atexit")?.call_method1("register", (hook,))?;
    let forked = wrap_pyfunction!(after_fork_in_child, module)?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("after_in_child", forked)?;
    py.import("os")?
        .call_method("register_at_fork", (), Some(&kwargs))?;
    Ok(())
}

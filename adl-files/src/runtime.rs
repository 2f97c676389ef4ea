//! The one tokio runtime that object storage requests run on, and a
//! blocking wait for them from any thread.

use std::future::Future;
use std::sync::OnceLock;
use std::sync::mpsc;

use tokio::runtime::Runtime;

/// The runtime, started on first use (`Err`: why it could not start).
static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// Threads of the runtime: requests wait on the network, not the CPU, so
/// two are enough to keep many in flight.
const THREADS: usize = 2;

/// Run `future` on the shared runtime and wait for its output on this
/// thread. `Err` says why it could not run (the runtime did not start, or
/// the request's task ended without an answer).
///
/// The future is spawned and this thread waits on a channel, rather than
/// entering the runtime with `block_on`: the callers are sensor threads
/// (rayon workers, a loader's threads, or a thread of another tokio
/// runtime), and a plain wait is correct on each of them. None of the
/// runtime's own threads ever waits here (nothing adl-files spawns calls
/// back into a sensor), so the wait cannot deadlock.
pub(crate) fn wait<F>(future: F) -> Result<F::Output, String>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let runtime = RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(THREADS)
                .thread_name("adl-store")
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the object storage runtime: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)?;
    let (answer, answered) = mpsc::sync_channel(1);
    runtime.spawn(async move {
        // The waiting thread holds the receiver until an answer comes.
        let _ = answer.send(future.await);
    });
    answered
        .recv()
        .map_err(|_| "the request's task ended without an answer (it panicked)".to_string())
}

//! A limit's timing (issue 44): work split over threads that start
//! together, with no loader between them, timed from the first's start
//! to the last's end.

use std::time::Instant;

/// Run `work(thread)` on each of `threads` threads at once; the samples
/// they made, summed, and the seconds the whole took. The first error
/// any of them returns is the result; a panic in one is resumed here.
pub fn on_threads<F>(threads: usize, work: F) -> adl::Result<(usize, f64)>
where
    F: Fn(usize) -> adl::Result<usize> + Sync,
{
    let start = Instant::now();
    let work = &work;
    let made = std::thread::scope(|scope| {
        let running: Vec<_> = (0..threads).map(|t| scope.spawn(move || work(t))).collect();
        running
            .into_iter()
            .map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .sum::<adl::Result<usize>>()
    })?;
    Ok((made, start.elapsed().as_secs_f64()))
}

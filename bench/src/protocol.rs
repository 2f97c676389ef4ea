//! The workloads' protocol for a loader run: the loader's settings, the
//! epoch-0 order timed cold (the loader's build included) then warm, one
//! JSON line for the run, and with `--verify` one more epoch digested.

use std::time::{Duration, Instant};

use adl::exec::Recycle;
use adl::graph::loader::Loader;

use crate::EpochPermutation;
use crate::kept_order::Kept;
use adl::prelude::*;

use crate::args::Args;
use crate::digest::Digest;
use crate::process::{minor_faults, peak_rss_mb, rss_mb};
use crate::spec::SEED;

/// One timed epoch: (wall time, samples, batches, time to the first batch).
pub(crate) struct Timed {
    pub(crate) wall: Duration,
    pub(crate) samples: usize,
    pub(crate) batches: usize,
    pub(crate) first: Duration,
}

impl Timed {
    /// Its samples per second of wall time.
    pub(crate) fn rate(&self) -> f64 {
        self.samples as f64 / self.wall.as_secs_f64()
    }
}

/// Run one epoch's `batches` to the end, timing it; `count` gives a
/// batch's samples.
pub(crate) fn time_epoch<B: Recycle>(
    batches: impl Iterator<Item = adl::Result<adl::graph::loader::Batch<B>>>,
    count: impl Fn(&B) -> usize,
) -> adl::Result<Timed> {
    let start = Instant::now();
    let mut first = None;
    let (mut samples, mut n) = (0, 0);
    for batch in batches {
        let batch = batch?;
        first.get_or_insert_with(|| start.elapsed());
        samples += count(&batch);
        n += 1;
    }
    Ok(Timed {
        wall: start.elapsed(),
        samples,
        batches: n,
        first: first.unwrap_or_default(),
    })
}

/// The median of `rates` (the lower middle of an even count), if any.
fn median(rates: &mut [f64]) -> Option<f64> {
    rates.sort_by(f64::total_cmp);
    rates.get(rates.len().saturating_sub(1) / 2).copied()
}

/// Print the run's JSON line.
fn report(
    args: &Args,
    device: &str,
    (cold, warm): (&Timed, &Timed),
    build: Duration,
    (rss_cold, rss_warm): (f64, f64),
    warm_faults: u64,
    later: Option<f64>,
) {
    let later = later.map_or(String::new(), |r| {
        format!(",\"later_samples_per_s\":{r:.1}")
    });
    println!(
        "{{\"workload\":\"{}\",\"build\":\"{}\",\"collate\":\"{}\",\"workers\":{},\"device\":{:?},\"fusion\":{},\"samples\":{},\"warm_samples_per_s\":{:.1},\"cold_samples_per_s\":{:.1},\"warm_batches_per_s\":{:.2},\"first_batch_ms\":{:.3},\"peak_rss_mb\":{:.1},\"rss_after_cold_mb\":{:.1},\"rss_after_warm_mb\":{:.1},\"warm_minor_faults\":{}{later}}}",
        args.workload,
        crate::BUILD,
        args.collate,
        args.workers,
        device,
        args.fusion,
        warm.samples,
        warm.rate(),
        cold.samples as f64 / (cold.wall + build).as_secs_f64(),
        warm.batches as f64 / warm.wall.as_secs_f64(),
        (cold.first + build).as_secs_f64() * 1e3,
        peak_rss_mb(),
        rss_cold,
        rss_warm,
        warm_faults,
    );
}

/// A loader of `dataset` through `pipeline` as the protocol runs it:
/// batches of `batch`, the spec's shuffle (seed 2024), `--workers`
/// workers, two batches prefetched per worker.
pub(crate) fn loader<D, P>(
    dataset: D,
    pipeline: P,
    batch: usize,
    args: &Args,
) -> adl::graph::loader::LoaderBuilder<D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Send + 'static,
{
    let builder = Loader::new(dataset, pipeline)
        .batch_size(batch)
        // The workloads' epoch permutation, whose digests the runs verify,
        // made once for the cold and warm epochs as the peers make theirs.
        .order(Kept::new(EpochPermutation { seed: SEED }))
        .seed(SEED)
        .workers(args.workers)
        .build_while_waiting(args.build_while_waiting);
    match args.memory_budget {
        Some(bytes) => builder.memory_budget(bytes),
        None => builder.batches_ahead(args.batches_ahead.unwrap_or(2 * args.workers.max(1))),
    }
}

/// `epochs` more epochs (1, 2, ...: each its own order), resident memory
/// and threads read after each; a line every tenth. After the first
/// tenth (the pool and the allocator warm), resident memory grows by less
/// than 16 MB and the threads stay as many, or it is an error that says
/// which grew and by how much.
fn soak<D, P>(
    epochs: usize,
    loader: &Loader<D, P>,
    count: impl Fn(&P::Processed) -> usize,
) -> adl::Result<()>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + Send + 'static,
{
    let warm_after = (epochs / 10).max(1);
    let mut warm = None;
    let mut peak = (0.0f64, 0usize);
    for epoch in 1..=epochs {
        let timed = time_epoch(loader.epoch(epoch as u64), &count)?;
        let (rss, threads) = (crate::process::rss_mb(), crate::process::threads());
        if epoch == warm_after {
            warm = Some((rss, threads));
        }
        if epoch > warm_after {
            peak = (peak.0.max(rss), peak.1.max(threads));
        }
        if epoch % warm_after == 0 || epoch == epochs {
            eprintln!(
                "soak: epoch {epoch}/{epochs}: {:.0} samples/s, rss {rss:.1} MB, {threads} threads",
                timed.samples as f64 / timed.wall.as_secs_f64().max(1e-9)
            );
        }
    }
    if let Some((rss, threads)) = warm
        && epochs > warm_after
    {
        let grown = peak.0 - rss;
        if grown >= 16.0 || peak.1 > threads {
            return Err(adl::Error::invalid(
                "soak",
                format!(
                    "after epoch {warm_after}: {rss:.1} MB and {threads} threads; later up to {:.1} MB (+{grown:.1}) and {} threads",
                    peak.0, peak.1
                ),
            ));
        }
        eprintln!(
            "soak: {epochs} epochs: rss {rss:.1} MB after epoch {warm_after}, at most {:.1} MB after it (+{grown:.1} MB); threads {threads}, at most {}",
            peak.0, peak.1
        );
    }
    Ok(())
}

/// Time a loader by the protocol (cold, then warm), report, and with
/// `--verify` digest one more epoch with `digest(batch, b, digests)`.
pub(crate) fn measure<D, P, const N: usize>(
    args: &Args,
    device: &str,
    loader: &Loader<D, P>,
    build: Duration,
    count: impl Fn(&P::Processed) -> usize,
    digest: impl Fn(&P::Processed, usize, &mut [Digest; N]),
) -> adl::Result<Option<[Digest; N]>>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + Send + 'static,
{
    let cold = time_epoch(loader.epoch(0), &count)?;
    let rss_cold = rss_mb();
    loader.reset_statistics();
    let faults = minor_faults();
    let warm = time_epoch(loader.epoch(0), &count)?;
    let warm_faults = minor_faults().saturating_sub(faults);
    let rss_warm = rss_mb();
    // The statistics are the warm epoch's, taken before any later one.
    let statistics = args.stats.then(|| loader.statistics().to_string());
    let mut later = Vec::with_capacity(args.later_epochs);
    for _ in 0..args.later_epochs {
        later.push(time_epoch(loader.epoch(0), &count)?.rate());
    }
    report(
        args,
        device,
        (&cold, &warm),
        build,
        (rss_cold, rss_warm),
        warm_faults,
        median(&mut later),
    );
    if let Some(statistics) = statistics {
        eprintln!("{statistics}");
    }
    // Untimed warm epochs after the report, so that a profiler attached to
    // the whole process sees mostly the loader at work.
    for _ in 0..args.profile_epochs {
        time_epoch(loader.epoch(0), &count)?;
    }
    if args.soak > 0 {
        soak(args.soak, loader, &count)?;
    }
    if !args.verify {
        return Ok(None);
    }
    let mut digests = [Digest::default(); N];
    for (b, batch) in loader.epoch(0).enumerate() {
        digest(&*batch?, b, &mut digests);
    }
    Ok(Some(digests))
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_of_rates_is_the_lower_middle() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0]), Some(1.0));
    }
}

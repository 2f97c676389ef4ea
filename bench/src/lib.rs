//! The benchmark workloads of `bench/WORKLOADS.md`, through adl's DSL and
//! Loader, timed by the workloads' protocol: the library behind the
//! `adl-bench` command line (`src/main.rs`, which lists the flags), whose
//! tests (`tests/verify.rs`) call [`run`] as the command line does.
//!
//! - [`spec`]: the spec's formulas (random words, the shuffled order, the
//!   nearest reading), computed without adl;
//! - [`workloads`]: the workloads' data, generated as specified, as adl
//!   datasets (W4's read from its files on disk);
//! - [`digest`]: the digests that check a run;
//! - the runs: the command line (`args`), the protocol of a loader run
//!   (`protocol`, with the process's memory figures from `process`), each
//!   workload through the Loader with its expected digests (`runs`), and
//!   W2's batch stage alone (`batch_stage`).
//!
//! Three ways through adl, `--collate gather|in-place|samples` (the
//! default is `in-place` for W2, `gather` for W1 and W3):
//!
//! - `gather`: the samples are row keys and `adl::collate::Gather` copies
//!   each row once, straight from the workload's arrays into the batch; the
//!   per-sample work that is elementwise runs on the batch as kernel nodes
//!   (the same bits).
//! - `in-place` (W1, W2): the same, but the rows (W2's images, W1's
//!   features) are not copied into a batch at all
//!   (`adl::collate::InPlace`): the batch kernels read each one where it
//!   lies in the dataset (an OpenCL device gets it copied once, into its
//!   upload buffer). For W1's 256-byte rows this is no faster than the
//!   gather (the per-row work of the blocked loop costs what the copy
//!   saves), so W1 gathers by default.
//! - `samples`: the dataset reads owned sample arrays, the sample stage
//!   transforms them, `default` collate stacks them.
//!
//! W1: 200,000 vectors of 64 floats, standardised (`(x - 1) / sqrt 3`),
//! batch 256. W2: 20,000 RGB 64x64 images; flip, conversion and
//! normalisation are batch kernels (`FlipByFlag`, `U8ToF32`, `Normalize`),
//! fused on a GPU where there is one (`--device rust`, or no GPU: fused on
//! the CPU, one loop). W3: three sensors synchronised by `Nearest` with a clamped
//! `Window` of ten IMU readings, batch 32. W4 (`bench/W4.md`): a recording
//! on disk (camera JPEGs, a radar `.npy`, an IMU CSV, a lidar `.npy` per
//! scan) read by `adl::files`' sensors through the loader's read stage,
//! synchronized to the camera, the image cropped, flipped and normalised,
//! the points padded and packed, batch 32. `order`: the first batches of
//! every rank of an epoch over 10^9 samples (`runs::order`), no data.

/// How this benchmark was compiled (adl's [`BUILD`]): each
/// JSON row says it (`"build"`), so that a debug build's figures are
/// never taken for adl's.
pub use adl::BUILD;

mod args;
mod batch_stage;
pub mod digest;
mod epoch_permutation;
pub mod frames;
pub mod kept_order;
mod on_threads;
mod process;
mod protocol;
mod runs;
pub mod spec;
pub mod workloads;

pub use epoch_permutation::EpochPermutation;
pub use on_threads::on_threads;
pub use runs::w2_loader;

/// Run the benchmark the arguments (without the program's name) describe:
/// `Ok(true)` when it ran (and every digest checked agreed), `Ok(false)`
/// on a digest mismatch, `Err` with the message for bad arguments or a
/// failed run. The test `tests/verify.rs` calls this.
pub fn run(command_line: impl IntoIterator<Item = String>) -> Result<bool, String> {
    let args = args::parse(command_line)?;
    let result = match args.workload.as_str() {
        "w1" => runs::w1(&args),
        "w3" => runs::w3(&args),
        "w4" => runs::w4(&args),
        "order" => runs::order(&args),
        _ => runs::w2(&args),
    };
    result.map_err(|e| format!("adl-bench: {e:#}"))
}

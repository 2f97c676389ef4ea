//! `adl-bench`: the benchmark workloads of `bench/WORKLOADS.md` through
//! adl's DSL and Loader, timed by the workloads' protocol (the library
//! `adl_bench` does the work; this is the command line).
//!
//! ```text
//! cargo run --release -p adl-bench -- --workload w1|w2|w3 [--workers N]
//!     [--samples N] [--device auto|rust|NAME|P:D] [--fusion on|off] [--build-while-waiting on|off] [--verify]
//!     [--collate gather|in-place|samples] [--stats] [--later-epochs N] [--profile-epochs N]
//!     [--soak N]
//! cargo run --release -p adl-bench -- --workload w2 --stage batch [--batches N]
//! cargo run --release -p adl-bench -- --workload w4 --data DIR [--workers N]
//!     [--cold fadvise|drop_caches|none] [--read-latency-ms N] [--readers N]
//!     [--verify [--verify-out DIR]] [--stats]
//! ```
//!
//! - Loader runs (the default): the data is generated before timing; the
//!   epoch-0 order runs twice, cold (the loader's build, its worker
//!   start-up and the first touch of memory included) then warm (the
//!   headline). One JSON line: workload, workers, samples/s warm and cold,
//!   batches/s warm, time to the first batch, peak RSS, RSS after each
//!   epoch, and the minor page faults of the warm epoch.
//! - `--build-while-waiting off`: the consumer's thread only waits for
//!   batches (by default it builds the next one no worker has taken while
//!   it waits).
//! - `--stats`: the loader's statistics of the warm epoch (per node, the
//!   bottleneck) on standard error.
//! - `--later-epochs N`: N more epochs of the epoch-0 order after the warm
//!   one, timed; the JSON line adds `later_samples_per_s`, their median.
//!   With 3, these are the passes over the data that `limit_c`'s
//!   `samples_per_s` times (its 3rd to 5th: the digest's pass and a
//!   warm-up before them), so that `bench/compare.py` sets adl beside the
//!   C loop at the same passes as well as at the protocol's warm epoch (on
//!   a machine whose memory reads grow faster over the first passes, the
//!   two differ).
//! - `--profile-epochs N`: N more warm epochs after the report, untimed, so
//!   that `perf record` on the whole process sees mostly the loader.
//! - `--soak N`: N more epochs, each its own order (epochs 1 to N), the
//!   resident memory and the threads read after each: a line every tenth,
//!   and an error (exit status 1) if after the first tenth resident memory
//!   grew by 16 MB or more, or the threads grew.
//! - `--verify`: one more epoch, in order, digested field by field; every
//!   digest is printed beside the expected one (the spec's for full sizes,
//!   else one computed here from the spec's formulas alone) and a mismatch
//!   exits with status 1.
//! - `--stage batch` (W2): only W2's batch stage (flip, bytes to floats,
//!   per-channel normalisation), on collated batches of 64: on the OpenCL
//!   device fused and unfused, and as the Rust bodies on the CPU; batches/s
//!   and GB/s (bytes read and written by the stage) for each.
//! - W4 (`bench/W4.md`) reads the dataset `generate.py` wrote in `--data
//!   DIR`: the loader is built (not timed), the files are taken out of the
//!   page cache (`--cold`: `posix_fadvise(DONTNEED)` by default), then the
//!   epoch-0 order runs cold and warm (the headline); the JSON line adds
//!   the read stage's figures of each epoch. `--read-latency-ms N`: every
//!   read of every sensor waits N ms first (`adl::files::Latency`, as
//!   behind a remote store); `--readers N`: the read stage's threads.
//!   `--verify`: one epoch with W4.md's deterministic image transform,
//!   every exact field checked against W4.md's digests (the default and
//!   `--small` datasets), the image printed as each batch's `u8` sum for a
//!   comparison with a peer's; `--verify-out DIR` writes them and the
//!   first batch's `u8` images there.
//!
//! Exit status: 0 when the run succeeded (and every digest checked agreed),
//! 1 on a digest mismatch, 2 for bad arguments or a failed run.

use std::process::ExitCode;

fn main() -> ExitCode {
    match adl_bench::run(std::env::args().skip(1)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
    }
}

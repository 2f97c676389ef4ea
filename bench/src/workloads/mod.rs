//! The benchmark workloads W1, W2 and W3 of `bench/WORKLOADS.md` (spec
//! version 1): their data, generated exactly as specified from the spec's
//! random words ([`crate::spec`]), as adl datasets. Generation is split
//! over threads and does not depend on their number. W4 (`bench/W4.md`)
//! reads a dataset on disk, written by `bench/peer/w4/generate.py`.

mod w1;
mod w2;
mod w3;
mod w4;

pub use w1::{W1, W1_FEATURES, W1_SAMPLES, W1_STD, W1Data, W1Gather, W1GatherInPlace, W1Sample};
pub use w2::{W2, W2_IMAGE, W2_MEAN, W2_SAMPLES, W2_STD, W2Data, W2Gather, W2GatherInPlace};
pub use w3::{W3, W3_BATCH, W3_WINDOW, W3Data, W3Keys, W3Sample, W3Sensor, W3Tables};
pub use w4::{
    Local, Reads, Remote, W4_BATCH, W4_CROP, W4_IMU_WINDOW, W4_LAYOUT, W4_RADAR, W4_TOLERANCE,
    W4Data, W4Frame, W4Raw, W4Rig, W4Sample, W4SampleBatch, W4Sensors, W4Trace, W4Transform,
    center_u8, dataset_files, normalise_table, open_trace, trace_folders,
};

/// Fill `out` in parallel: `f(k, chunk)` writes the chunk starting at
/// element `k * chunk_len`.
fn par_fill<T: Send>(out: &mut [T], chunk_len: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunks: Vec<(usize, &mut [T])> = out.chunks_mut(chunk_len).enumerate().collect();
    let per_thread = chunks.len().div_ceil(threads).max(1);
    let mut chunks = chunks;
    std::thread::scope(|scope| {
        while !chunks.is_empty() {
            let take = per_thread.min(chunks.len());
            let mine: Vec<(usize, &mut [T])> = chunks.drain(..take).collect();
            let f = &f;
            scope.spawn(move || {
                for (k, chunk) in mine {
                    f(k, chunk);
                }
            });
        }
    });
}

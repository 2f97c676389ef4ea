//! Collation throughput, in GB/s of batch written, for the batch shapes of
//! the peer workloads (`../shared/bench/WORKLOADS.md`):
//!
//! - W1: 256 samples of `{x: f32[64], y: i64}` (a derived struct);
//! - W2: 64 images `f32[3, 64, 64]`.
//!
//! Next to W2, the same bytes moved by plain `memcpy` (`copy_from_slice` of
//! every sample into one buffer), from the same freshly cloned (cold)
//! samples, both into a freshly allocated buffer, as collation does, and
//! into a reused one: the goal is at least half of the memcpy bandwidth for
//! W2-sized batches.
//!
//! Each batch is dropped inside the timed routine, as a training loop drops
//! a batch once it has used it, so the allocator can recycle its memory.
//!
//! Run: `cargo bench --bench collate`.

use adl::Collate;
use adl::collate::DefaultCollate;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use ndarray::{Array1, Array3};
use std::hint::black_box;

/// An allocator that keeps freed pages for reuse. With the system
/// allocator each 3 MiB batch is a fresh `mmap`, and on a VM every page of
/// it faults again (several µs per 4 KiB page), which costs more than the
/// copy itself: recycling batch memory is the allocator's job.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(adl::Collate, Clone)]
struct Tiny {
    x: Array1<f32>,
    y: i64,
}

fn w1_samples() -> Vec<Tiny> {
    (0..256)
        .map(|i| Tiny {
            x: Array1::from_shape_fn(64, |j| (i * 64 + j) as f32 * 0.5),
            y: i as i64 % 10,
        })
        .collect()
}

fn w2_samples() -> Vec<Array3<f32>> {
    (0..64)
        .map(|i| Array3::from_shape_fn((3, 64, 64), |(c, h, w)| (i + c + h + w) as f32 / 255.0))
        .collect()
}

fn memcpy_fresh(parts: &[&[f32]]) -> Vec<f32> {
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.extend_from_slice(p);
    }
    out
}

fn bench(c: &mut Criterion) {
    let w1 = w1_samples();
    let w1_bytes = 256 * (64 * 4 + 8);
    let mut g = c.benchmark_group("collate/W1 256 x {f32[64], i64}");
    g.throughput(Throughput::Bytes(w1_bytes));
    g.bench_function("adl DefaultCollate", |b| {
        b.iter_batched(
            || w1.clone(),
            |s| drop(black_box(DefaultCollate.collate(s).unwrap())),
            BatchSize::SmallInput,
        )
    });
    g.finish();

    let w2 = w2_samples();
    let w2_bytes = 64 * 3 * 64 * 64 * 4;
    let mut g = c.benchmark_group("collate/W2 64 x f32[3,64,64]");
    g.throughput(Throughput::Bytes(w2_bytes));
    g.bench_function("adl DefaultCollate", |b| {
        b.iter_batched(
            || w2.clone(),
            |s| drop(black_box(DefaultCollate.collate(s).unwrap())),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("memcpy into a fresh buffer", |b| {
        b.iter_batched(
            || w2.clone(),
            |s| {
                let parts: Vec<&[f32]> = s.iter().map(|a| a.as_slice().unwrap()).collect();
                drop(black_box(memcpy_fresh(&parts)))
            },
            BatchSize::SmallInput,
        )
    });
    // Samples just made (in cache), as when a sample stage has just
    // produced them: one fresh clone right before each timed collation.
    g.bench_function("adl DefaultCollate, samples in cache", |b| {
        b.iter_batched(
            || w2.clone(),
            |s| drop(black_box(DefaultCollate.collate(s).unwrap())),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("memcpy into a fresh buffer, samples in cache", |b| {
        b.iter_batched(
            || w2.clone(),
            |s| {
                let parts: Vec<&[f32]> = s.iter().map(|a| a.as_slice().unwrap()).collect();
                drop(black_box(memcpy_fresh(&parts)))
            },
            BatchSize::PerIteration,
        )
    });
    // Samples flipped by `invert_axis` (a negative stride along the last
    // axis, no copy), as a flip transform that only changes the view gives.
    let flipped: Vec<Array3<f32>> = w2
        .iter()
        .map(|a| {
            let mut a = a.clone();
            a.invert_axis(ndarray::Axis(2));
            a
        })
        .collect();
    g.bench_function(
        "adl DefaultCollate, flipped samples (negative stride)",
        |b| {
            b.iter_batched(
                || flipped.clone(),
                |s| drop(black_box(DefaultCollate.collate(s).unwrap())),
                BatchSize::SmallInput,
            )
        },
    );
    let mut reused = vec![0f32; w2_bytes as usize / 4];
    g.bench_function("memcpy into a reused buffer", |b| {
        b.iter_batched(
            || w2.clone(),
            |s| {
                for (dst, src) in reused.chunks_exact_mut(3 * 64 * 64).zip(&s) {
                    dst.copy_from_slice(src.as_slice().unwrap());
                }
                black_box(&reused);
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

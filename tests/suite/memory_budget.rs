//! A loader under a memory budget: the batches it holds stay within it,
//! what it chose and why is in its statistics, and a budget too small for
//! one batch is reported, not refused.

use adl::InMemory;
use adl::graph::loader::Loader;
use adl::pipeline::Stages;
use adl::prelude::*;
use ndarray::Array1;

/// 128 samples of 64 KiB: batches of 4 are 256 KiB.
fn loader(
    budget: u64,
) -> Loader<
    InMemory<Array1<f32>>,
    impl Pipeline<Array1<f32>, Processed = ndarray::Array2<f32>> + use<>,
> {
    let dataset: InMemory<Array1<f32>> = (0..128)
        .map(|i| Array1::from_elem(16 << 10, i as f32))
        .collect();
    let pipeline = Stages::new()
        .with_sample(|x: Array1<f32>| x)
        .with_collate(DefaultCollate);
    Loader::new(dataset, pipeline)
        .batch_size(4)
        .workers(4)
        .shuffle(1)
        .memory_budget(budget)
        .build()
        .unwrap()
}

const BATCH: u64 = 4 * (16 << 10) * 4;

#[test]
fn batches_stay_within_the_budget() {
    // A MiB holds four batches: two ahead, the consumer's, one given back.
    let loader = loader(1 << 20);
    for epoch in 0..2 {
        let e = loader.epoch(epoch);
        let order = e.indices().to_vec();
        let mut k = 0;
        for batch in e {
            let batch = batch.unwrap();
            for row in batch.rows() {
                assert_eq!(row[0], order[k] as f32);
                k += 1;
            }
        }
        assert_eq!(k, 128);
    }
    let stats = loader.statistics();
    let tuning = stats.tuning.clone().expect("a budget was set");
    assert_eq!(tuning.batch_bytes, Some(BATCH), "{tuning}");
    assert_eq!(tuning.batches_ahead, 2, "{tuning}");
    assert!(!tuning.over_budget && tuning.planned <= 1 << 20, "{tuning}");
    // Never more batches at once than that: every batch but the first few
    // was built in the memory of one given back.
    assert!(stats.buffers.allocated <= 4, "{:?}", stats.buffers);
    assert!(
        stats.buffers.limit_bytes as u64 <= 1 << 20,
        "{:?}",
        stats.buffers
    );
    let text = stats.to_string();
    assert!(
        text.contains("memory budget 1.0 MB: 2 batches ahead of 262.1 kB"),
        "{text}"
    );
}

#[test]
fn a_budget_below_one_batch_is_reported_and_the_loader_runs_with_the_least() {
    let loader = loader(300_000);
    assert_eq!(
        loader.epoch(0).map(|b| b.unwrap().nrows()).sum::<usize>(),
        128
    );
    let tuning = loader.statistics().tuning.expect("a budget was set");
    assert!(tuning.over_budget, "{tuning}");
    assert_eq!(tuning.batches_ahead, 1);
    assert!(tuning.to_string().contains("over budget"), "{tuning}");
}

#[test]
fn a_zero_budget_is_refused() {
    let dataset: InMemory<f32> = (0..4).map(|i| i as f32).collect();
    let pipeline = Stages::new()
        .with_sample(|x: f32| x)
        .with_collate(DefaultCollate);
    let err = Loader::new(dataset, pipeline)
        .memory_budget(0)
        .build()
        .err()
        .expect("refused");
    assert!(err.to_string().contains("memory_budget"), "{err}");
}

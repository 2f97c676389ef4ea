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

/// Jobs in a batch stage at once now, and the most seen while `watching`.
#[derive(Default)]
struct Overlap {
    now: std::sync::atomic::AtomicUsize,
    most: std::sync::atomic::AtomicUsize,
    watching: std::sync::atomic::AtomicBool,
}

#[test]
fn the_workers_build_no_more_batches_at_once_than_keep_up_with_the_consumer() {
    use std::sync::Arc;
    use std::sync::atomic::Ordering::SeqCst;
    use std::time::Duration;

    // A batch takes 2 ms of a worker's time (asleep: no core needed), the
    // consumer 8 ms: one worker keeps up, and of 4 the loader under a
    // budget gives its jobs to one at a time; without a budget the 4
    // build the window's batches at once when an epoch opens it.
    let run = |budget: Option<u64>| -> (usize, Option<adl::graph::loader::Tuning>) {
        let overlap = Arc::new(Overlap::default());
        let watched = Arc::clone(&overlap);
        let dataset: InMemory<f32> = (0..48).map(|i| i as f32).collect();
        let pipeline = Stages::new()
            .with_sample(|x: f32| x)
            .with_collate(DefaultCollate)
            .with_batch(move |batch: Array1<f32>| {
                let now = watched.now.fetch_add(1, SeqCst) + 1;
                if watched.watching.load(SeqCst) {
                    watched.most.fetch_max(now, SeqCst);
                }
                std::thread::sleep(Duration::from_millis(2));
                watched.now.fetch_sub(1, SeqCst);
                batch
            });
        let builder = Loader::new(dataset, pipeline)
            .batch_size(2)
            .workers(4)
            .build_while_waiting(false);
        let loader = match budget {
            Some(bytes) => builder.memory_budget(bytes),
            None => builder.batches_ahead(4),
        }
        .build()
        .unwrap();
        // The first epoch measures; the second is watched from its start.
        for epoch in 0..2 {
            overlap.watching.store(epoch == 1, SeqCst);
            for batch in loader.epoch(epoch) {
                assert_eq!(batch.unwrap().len(), 2);
                std::thread::sleep(Duration::from_millis(8));
            }
        }
        (overlap.most.load(SeqCst), loader.statistics().tuning)
    };
    let (most, tuning) = run(Some(1 << 30));
    let tuning = tuning.expect("a budget was set");
    assert_eq!(tuning.building, 1, "{tuning}");
    assert!(tuning.batches_ahead >= 3, "{tuning}");
    assert_eq!(most, 1, "batch jobs at once under the budget ({tuning})");
    let (most, _) = run(None);
    assert!(
        most > 1,
        "without a budget the workers fill the window at once"
    );
}

/// A batch whose bytes are its own (not given back to the loader's pool),
/// as a Python batch's are: its type reports them.
struct Owned(Vec<u8>);

impl adl::exec::Recycle for Owned {
    fn unpooled_bytes(&self) -> usize {
        self.0.len()
    }
}

#[test]
fn a_batch_s_memory_outside_the_pool_counts_against_the_budget() {
    let dataset: InMemory<f32> = (0..64).map(|i| i as f32).collect();
    let pipeline = Stages::new()
        .with_sample(|x: f32| x)
        .with_collate(DefaultCollate)
        .with_batch(|batch: Array1<f32>| Owned(vec![batch[0] as u8; 300_000]));
    // 1.2 MB holds 4 batches of 300 kB: 2 ahead, the consumer's, one
    // given back. Uncounted, they would cost nothing and the window
    // would be all it wants.
    let loader = Loader::new(dataset, pipeline)
        .batch_size(4)
        .workers(4)
        .memory_budget(1_200_000)
        .build()
        .unwrap();
    for epoch in 0..2 {
        assert_eq!(loader.epoch(epoch).count(), 16);
    }
    let tuning = loader.statistics().tuning.expect("a budget was set");
    assert_eq!(tuning.batch_bytes, Some(300_000), "{tuning}");
    assert_eq!(tuning.batches_ahead, 2, "{tuning}");
}

#[test]
fn arrays_too_small_to_pool_count_against_the_budget() {
    // Batches of 4 KiB, under the pool's smallest buffer: 20 kB holds 4 of
    // them, 3 ahead.
    let dataset: InMemory<Array1<f32>> =
        (0..64).map(|i| Array1::from_elem(256, i as f32)).collect();
    let pipeline = Stages::new()
        .with_sample(|x: Array1<f32>| x)
        .with_collate(DefaultCollate);
    let loader = Loader::new(dataset, pipeline)
        .batch_size(4)
        .workers(4)
        .memory_budget(20_480)
        .build()
        .unwrap();
    for epoch in 0..2 {
        assert_eq!(loader.epoch(epoch).count(), 16);
    }
    let tuning = loader.statistics().tuning.expect("a budget was set");
    assert_eq!(tuning.batch_bytes, Some(4096), "{tuning}");
    assert_eq!(tuning.batches_ahead, 3, "{tuning}");
}

//! The loader's promises: every index exactly once per epoch across ranks
//! (or reported skipped), order independent of the worker count, exact
//! resume (also with other workers or another world size), errors that name
//! node and index without hanging, reproducible random draws, statistics,
//! and a real multi-process split through RANK / WORLD_SIZE.

use std::collections::BTreeMap;
use std::process::Command;

use adl::InMemory;
use adl::OnError;
use adl::exec::{Recycle, SampleRng};
use std::sync::Arc;

use adl::graph::loader::{Batch, EpochOrder, Listed, Loader, Order, ShardTail, Weighted};
use adl::pipeline::Stages;
use adl::prelude::*;
use adl::transform::random;
use proptest::prelude::*;

/// A delivered batch, taken out of the loader's care.
fn owned<B: Recycle>(batch: adl::Result<Batch<B>>) -> B {
    batch.unwrap().into_inner()
}

/// 0..n as a dataset: each sample is its own index.
fn indices(n: usize) -> InMemory<usize> {
    (0..n).collect()
}

type Batches = Vec<Vec<usize>>;

/// The sample stage of [`failing_loader`]: fails on some indices.
type Picky =
    Stages<adl::transform::TryFn<Box<dyn Fn(usize) -> Result<usize, String> + Send + Sync>>>;
type Builder<P> = adl::graph::loader::LoaderBuilder<InMemory<usize>, P>;

/// A loader of 0..n whose sample stage fails on the indices in `bad`.
fn failing_loader(
    n: usize,
    bad: Vec<usize>,
    configure: impl FnOnce(Builder<Picky>) -> Builder<Picky>,
) -> Loader<InMemory<usize>, Picky> {
    let f: Box<dyn Fn(usize) -> Result<usize, String> + Send + Sync> = Box::new(move |i| {
        if bad.contains(&i) {
            Err(format!("sample {i} is bad"))
        } else {
            Ok(i)
        }
    });
    let pipeline = Stages::new().with_sample(adl::transform::fallible(f));
    configure(Loader::new(indices(n), pipeline))
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, .. ProptestConfig::default() })]

    #[test]
    fn every_index_exactly_once_across_ranks(
        n in 0usize..70,
        batch in 1usize..9,
        world in 1usize..4,
        drop_last: bool,
        pad: bool,
        bad in proptest::collection::vec(0usize..70, 0..6),
        seed in 0u64..1000,
        assist: bool,
    ) {
        let tail = if pad { ShardTail::Pad } else { ShardTail::Drop };
        let mut union: BTreeMap<usize, usize> = BTreeMap::new();
        for rank in 0..world {
            let mut by_workers = Vec::new();
            for workers in [1usize, 2, 4] {
                let loader = failing_loader(n, bad.clone(), |b| {
                    b.batch_size(batch).drop_last(drop_last).shuffle(seed).workers(workers)
                        .batches_ahead(3).shard(rank, world).shard_tail(tail).on_error(OnError::Skip)
                        .build_while_waiting(assist)
                });
                let mut epoch = loader.epoch(1);
                let planned = epoch.indices().to_vec();
                let batches: Batches = epoch.by_ref().map(owned).collect();
                let skipped: Vec<usize> = epoch.skipped().iter().map(|s| s.index).collect();
                // What this rank read: its planned indices, less the partial
                // last batch under drop_last.
                let read = if drop_last { planned.len() / batch * batch } else { planned.len() };
                let mut seen: Vec<usize> = batches.iter().flatten().copied().chain(skipped.iter().copied()).collect();
                seen.sort_unstable();
                let mut expected = planned[..read].to_vec();
                expected.sort_unstable();
                prop_assert_eq!(&seen, &expected);
                for s in &skipped { prop_assert!(bad.contains(s)); }
                for b in batches.iter().flatten() { prop_assert!(!bad.contains(b)); }
                by_workers.push((batches, skipped, planned));
            }
            // The same batches and skips whatever the worker count.
            prop_assert_eq!(&by_workers[0], &by_workers[1]);
            prop_assert_eq!(&by_workers[0], &by_workers[2]);
            for i in &by_workers[0].2 { *union.entry(*i).or_default() += 1; }
        }
        // Across ranks, the plan covers the epoch as DistributedSampler does.
        let total: usize = union.values().sum();
        if pad {
            prop_assert_eq!(total, n.div_ceil(world) * world);
            prop_assert_eq!(union.len(), n);
            // Padding repeats the order from its start, wrapping around as
            // often as it takes (n = 1, world = 3: index 0 three times).
            let most = 1 + (total - n).div_ceil(n.max(1));
            prop_assert!(union.values().all(|&c| c >= 1 && c <= most));
        } else {
            prop_assert_eq!(total, n / world * world);
            prop_assert!(union.values().all(|&c| c == 1));
        }
    }
}

fn plain_loader(
    n: usize,
    workers: usize,
    rank: usize,
    world: usize,
) -> Loader<InMemory<usize>, Stages> {
    Loader::new(indices(n), Stages::new())
        .batch_size(4)
        .shuffle(11)
        .workers(workers)
        .shard(rank, world)
        .shard_tail(ShardTail::Drop)
        .build()
        .unwrap()
}

#[test]
fn resume_gives_the_rest_of_the_uninterrupted_run() {
    let whole: Batches = plain_loader(50, 2, 0, 1).epoch(3).map(owned).collect();
    for k in [0, 1, 5, whole.len()] {
        let loader = plain_loader(50, 2, 0, 1);
        let mut epoch = loader.epoch(3);
        let first: Batches = epoch.by_ref().take(k).map(owned).collect();
        let state = epoch.state();
        drop(epoch);
        // Through JSON, as a checkpoint would store it, and with other workers.
        let json = serde_json::to_string(&state).unwrap();
        let state: adl::graph::loader::LoaderState = serde_json::from_str(&json).unwrap();
        for workers in [0, 1, 4] {
            let rest: Batches = plain_loader(50, workers, 0, 1)
                .resume(&state)
                .unwrap()
                .map(owned)
                .collect();
            let mut all = first.clone();
            all.extend(rest);
            assert_eq!(
                all, whole,
                "resumed after {k} batches with {workers} workers"
            );
        }
    }
}

#[test]
fn resume_with_another_world_size_resplits_what_is_left() {
    let n = 60;
    // Two ranks read 3 batches each, in lockstep.
    let mut seen = Vec::new();
    let mut state = None;
    for rank in 0..2 {
        let loader = plain_loader(n, 2, rank, 2);
        let mut epoch = loader.epoch(0);
        seen.extend(epoch.by_ref().take(3).flat_map(Result::unwrap));
        state = Some(epoch.state());
    }
    let state = state.unwrap();
    assert_eq!(state.cursor, 3 * 4 * 2);
    // Three ranks go on from there.
    for rank in 0..3 {
        let loader = plain_loader(n, 1, rank, 3);
        seen.extend(loader.resume(&state).unwrap().flat_map(Result::unwrap));
    }
    seen.sort_unstable();
    let before = seen.len();
    seen.dedup();
    assert_eq!(seen.len(), before, "an index was delivered twice");
    // (60 - 24) = 36 left, divisible by 3: nothing dropped.
    assert_eq!(seen, (0..n).collect::<Vec<_>>());
}

#[test]
fn a_state_from_another_pipeline_or_dataset_is_refused() {
    let loader = plain_loader(20, 1, 0, 1);
    let state = loader.epoch(0).state();
    let other_len = plain_loader(21, 1, 0, 1);
    let err = other_len.resume(&state).err().unwrap();
    assert!(matches!(err, Error::Resume { .. }));
    assert!(
        err.to_string().contains("20 samples, this one has 21"),
        "{err}"
    );

    let other_pipeline = Loader::new(indices(20), Stages::new().with_sample(|x: usize| x + 1))
        .batch_size(4)
        .shuffle(11)
        .workers(1)
        .build()
        .unwrap();
    let err = other_pipeline.resume(&state).err().unwrap();
    assert!(err.to_string().contains("another pipeline"), "{err}");

    let other_seed = Loader::new(indices(20), Stages::new())
        .shuffle(12)
        .build()
        .unwrap();
    assert!(matches!(
        other_seed.resume(&state),
        Err(Error::Resume { .. })
    ));

    // Under a program's own order: another order, so refused, naming both.
    let twice = Loader::new(indices(20), Stages::new())
        .order(EveryIndexTwice { seed: 11 })
        .build()
        .unwrap();
    let err = twice.resume(&state).err().unwrap();
    assert!(
        err.to_string().contains(
            "taken with the sampler index-shuffle(seed=11), this loader uses every-index-twice(seed=11)"
        ),
        "{err}"
    );
}

/// A program's own order: every index twice an epoch, the second pass
/// backwards, the first rotated by the epoch and the seed.
#[derive(Debug)]
struct EveryIndexTwice {
    seed: u64,
}

#[derive(Debug)]
struct Twice {
    len: usize,
    start: usize,
}

impl EpochOrder for Twice {
    fn len(&self) -> usize {
        2 * self.len
    }

    fn index(&self, position: usize) -> Option<usize> {
        match position {
            p if p < self.len => Some((self.start + p) % self.len),
            p if p < 2 * self.len => Some(2 * self.len - 1 - p),
            _ => None,
        }
    }
}

impl Order for EveryIndexTwice {
    fn len(&self, dataset_len: usize) -> usize {
        2 * dataset_len
    }

    fn epoch(&self, epoch: u64, dataset_len: usize) -> adl::Result<Arc<dyn EpochOrder>> {
        let start = (self.seed + epoch) as usize % dataset_len.max(1);
        Ok(Arc::new(Twice {
            len: dataset_len,
            start,
        }))
    }

    fn describe(&self) -> String {
        format!("every-index-twice(seed={})", self.seed)
    }
}

#[test]
fn a_programs_own_order_is_followed_sharded_and_resumed() {
    let n = 10;
    let build = |rank, world| {
        Loader::new(indices(n), Stages::new())
            .order(EveryIndexTwice { seed: 3 })
            .batch_size(3)
            .shard(rank, world)
            .workers(2)
            .build()
            .unwrap()
    };
    let whole: Vec<usize> = build(0, 1).epoch(2).flat_map(owned).collect();
    let expected: Vec<usize> = (0..n).map(|p| (5 + p) % n).chain((0..n).rev()).collect();
    assert_eq!(whole, expected);
    // Two ranks deal it as torch's DistributedSampler deals any order.
    let ranks: Vec<Vec<usize>> = (0..2)
        .map(|r| build(r, 2).epoch(2).flat_map(owned).collect())
        .collect();
    assert_eq!(
        ranks[0],
        expected.iter().step_by(2).copied().collect::<Vec<_>>()
    );
    assert_eq!(
        ranks[1],
        expected
            .iter()
            .skip(1)
            .step_by(2)
            .copied()
            .collect::<Vec<_>>()
    );
    // Stopped after two batches and resumed: the rest of the same order.
    let loader = build(0, 1);
    let mut epoch = loader.epoch(2);
    let mut seen: Vec<usize> = epoch.by_ref().take(2).flat_map(owned).collect();
    let state = epoch.state();
    drop(epoch);
    seen.extend(build(0, 1).resume(&state).unwrap().flat_map(owned));
    assert_eq!(seen, expected);
}

#[test]
fn an_order_whose_epoch_breaks_its_length_is_an_error_naming_it() {
    #[derive(Debug)]
    struct Liar;
    impl Order for Liar {
        fn len(&self, dataset_len: usize) -> usize {
            dataset_len + 1
        }
        fn epoch(&self, epoch: u64, dataset_len: usize) -> adl::Result<Arc<dyn EpochOrder>> {
            Listed::new((0..dataset_len).collect::<Vec<_>>()).epoch(epoch, dataset_len)
        }
        fn describe(&self) -> String {
            "liar".to_owned()
        }
    }
    let loader = Loader::new(indices(4), Stages::new())
        .order(Liar)
        .build()
        .unwrap();
    let err = loader.epoch(0).find_map(Result::err).expect("an error");
    assert!(
        err.to_string()
            .contains("liar made epoch 0 of 4 positions, where its len() says 5"),
        "{err}"
    );
}

#[test]
fn a_weighted_order_draws_by_weight_and_checks_its_length() {
    // Index 0 never, index 3 nine times as often as 1 or 2.
    let weights = vec![0.0, 1.0, 1.0, 9.0];
    let loader = Loader::new(indices(4), Stages::new())
        .order(Weighted::new(weights.clone(), 1100, 5).unwrap())
        .batch_size(100)
        .workers(2)
        .build()
        .unwrap();
    let drawn: Vec<usize> = loader.epoch(0).flat_map(owned).collect();
    assert_eq!(drawn.len(), 1100);
    let count = |i| drawn.iter().filter(|&&d| d == i).count();
    assert_eq!(count(0), 0);
    assert!((800..1000).contains(&count(3)), "{} of 1100", count(3));
    let again: Vec<usize> = loader.epoch(0).flat_map(owned).collect();
    assert_eq!(drawn, again, "a draw is its seed, epoch and position");
    let err = Loader::new(indices(5), Stages::new())
        .order(Weighted::new(weights, 10, 5).unwrap())
        .build()
        .err()
        .expect("4 weights for 5 samples");
    assert!(
        err.to_string()
            .contains("4 weights for a dataset of 5 samples"),
        "{err}"
    );
}

#[transform]
fn explode(i: usize) -> usize {
    assert!(i != 13, "cannot take 13");
    i
}

#[transform]
fn picky(i: usize) -> Result<usize, String> {
    if i == 7 {
        Err("seven is not allowed".to_owned())
    } else {
        Ok(i)
    }
}

#[test]
fn a_panicking_node_is_an_error_with_node_and_index_and_earlier_batches_arrive() {
    for workers in [0, 1, 2, 4] {
        let pipeline = pipeline! { sample: explode, collate: |v: Vec<usize>| v };
        let loader = Loader::new(indices(40), pipeline)
            .batch_size(5)
            .workers(workers)
            .batches_ahead(4)
            .build()
            .unwrap();
        let out: Vec<Result<Vec<usize>>> =
            loader.epoch(0).map(|b| b.map(Batch::into_inner)).collect();
        // Batches 0 and 1 (0..10) arrive, batch 2 (10..15) fails, then the end.
        assert_eq!(out.len(), 3, "workers {workers}");
        assert_eq!(out[0].as_ref().unwrap(), &vec![0, 1, 2, 3, 4]);
        match &out[2] {
            Err(Error::Panic {
                node,
                index,
                message,
            }) => {
                assert_eq!(node, "explode");
                assert_eq!(*index, Some(13));
                assert!(message.contains("cannot take 13"));
            }
            other => panic!("expected a panic error, got {other:?}"),
        }
    }
    // The state after the error points at the failed batch.
    let pipeline = pipeline! { sample: explode, collate: |v: Vec<usize>| v };
    let loader = Loader::new(indices(40), pipeline)
        .batch_size(5)
        .workers(2)
        .build()
        .unwrap();
    let mut epoch = loader.epoch(0);
    assert!(epoch.by_ref().nth(2).unwrap().is_err());
    assert!(epoch.next().is_none(), "the epoch ends after the error");
    assert_eq!(epoch.state().cursor, 10);
}

#[test]
fn a_failing_node_names_node_and_index_and_skip_reports_it() {
    let make = |policy| {
        let pipeline = pipeline! { sample: picky, collate: |v: Vec<usize>| v };
        Loader::new(indices(12), pipeline)
            .batch_size(4)
            .workers(2)
            .on_error(policy)
            .build()
            .unwrap()
    };
    let fail = make(OnError::Fail);
    let err = fail.epoch(0).find_map(Result::err).unwrap();
    match &err {
        Error::Sample { index: 7, node, .. } => assert_eq!(node, "picky"),
        other => panic!("expected a sample error, got {other:?}"),
    }
    // Each thing said once: the sample, the node, the cause, each a link
    // of std's chain (`{}` the first, `{:#}` all of them, as anyhow's).
    assert_eq!(err.to_string(), "sample 7");
    assert_eq!(
        format!("{err:#}"),
        "sample 7: transform `picky`: seven is not allowed"
    );
    let source = std::error::Error::source(&err).expect("a sample error has a source");
    assert!(matches!(
        source.downcast_ref::<Error>(),
        Some(Error::Transform { .. })
    ));

    let skip = make(OnError::Skip);
    let mut epoch = skip.epoch(0);
    let delivered: Vec<usize> = epoch.by_ref().flat_map(Result::unwrap).collect();
    assert_eq!(delivered, (0..12).filter(|&i| i != 7).collect::<Vec<_>>());
    assert_eq!(epoch.skipped().len(), 1);
    assert_eq!(epoch.skipped()[0].index, 7);
    assert_eq!(epoch.skipped()[0].node, "picky");
    drop(epoch);
    assert_eq!(skip.statistics().skipped, 1);
}

#[test]
fn random_draws_depend_on_seed_epoch_and_index_not_on_workers() {
    let run = |workers: usize, epoch: u64| -> Vec<u64> {
        let pipeline =
            Stages::new().with_sample(random(|i: usize, rng: &mut SampleRng| (i, rng.next_u64())));
        let loader = Loader::new(indices(30), pipeline)
            .batch_size(7)
            .shuffle(5)
            .workers(workers)
            .build()
            .unwrap();
        let mut draws: Vec<(usize, u64)> = loader.epoch(epoch).flat_map(Result::unwrap).collect();
        draws.sort_unstable();
        draws.into_iter().map(|(_, d)| d).collect()
    };
    let one = run(1, 0);
    assert_eq!(one, run(4, 0));
    assert_eq!(one, run(0, 0));
    assert_ne!(one, run(1, 1), "another epoch draws other numbers");
    let mut distinct = one.clone();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        one.len(),
        "every sample draws its own numbers"
    );
}

#[transform]
fn square(x: usize) -> usize {
    x * x
}

#[transform(batch)]
fn total(b: Vec<usize>) -> usize {
    b.iter().sum()
}

#[test]
fn statistics_count_every_node_and_name_a_bottleneck() {
    let pipeline = pipeline! { sample: square, collate: |v: Vec<usize>| v, batch: total };
    let loader = Loader::new(indices(100), pipeline)
        .batch_size(10)
        .workers(2)
        .build()
        .unwrap();
    let sums: Vec<usize> = loader.epoch(0).map(owned).collect();
    assert_eq!(
        sums.iter().sum::<usize>(),
        (0..100).map(|x| x * x).sum::<usize>()
    );
    let stats = loader.statistics();
    let calls = |name: &str| stats.nodes.iter().find(|n| n.name == name).map(|n| n.calls);
    assert_eq!(calls("square"), Some(100));
    assert_eq!(calls("total"), Some(10));
    assert_eq!(calls("dataset"), Some(100));
    assert_eq!((stats.batches, stats.samples), (10, 100));
    // A bottleneck, or the rows too close to name one.
    assert!(!stats.contenders().is_empty());
    let report = stats.to_string();
    assert!(report.contains("\nbottleneck: "), "{report}");
    assert!(!report.contains("nothing ran yet"), "{report}");
    assert!(report.contains("square"), "{report}");
    // The window: 2 batches ahead per worker by default.
    assert_eq!(stats.batches_ahead, 4);
    assert!(
        report.contains(", 2 workers, 4 batches ahead\n"),
        "{report}"
    );
    loader.reset_statistics();
    let fresh = loader.statistics();
    assert_eq!((fresh.batches, fresh.samples), (0, 0));
    assert!(fresh.nodes.iter().all(|n| n.calls == 0 && n.time.is_zero()));
    assert!(fresh.bottleneck().is_none());
    assert!(fresh.contenders().is_empty());
}

#[test]
fn without_node_rows_a_stage_can_be_the_bottleneck() {
    // `Stages` describes no nodes: its stages are the leaves, beside the
    // reads, and a slow collate is named.
    let slow = |v: Vec<usize>| {
        std::thread::sleep(std::time::Duration::from_millis(2));
        v
    };
    let loader = Loader::new(
        indices(20),
        Stages::new().with_collate(adl::pipeline::collate_fn(slow)),
    )
    .batch_size(5)
    .workers(1)
    .build()
    .unwrap();
    assert_eq!(loader.epoch(0).count(), 4);
    let stats = loader.statistics();
    let bottleneck = stats.bottleneck().unwrap();
    assert_eq!(
        bottleneck.measured,
        adl::graph::loader::Measured::Stage(adl::description::Stage::Collate),
        "{stats}"
    );
    assert!(
        stats
            .to_string()
            .contains("bottleneck: `collate` (collate stage)"),
        "{stats}"
    );
}

#[test]
fn bad_settings_are_errors_at_build() {
    let build = |b: Builder<Stages>| b.build().err().unwrap().to_string();
    assert!(build(Loader::new(indices(3), Stages::new()).batch_size(0)).contains("batch size"));
    assert!(
        build(Loader::new(indices(3), Stages::new()).batches_ahead(0)).contains("batches_ahead")
    );
    assert!(build(Loader::new(indices(3), Stages::new()).shard(2, 2)).contains("rank 2"));
    assert!(build(Loader::new(indices(3), Stages::new()).indices(vec![0, 5])).contains("index 5"));
    let env = |name: &str| match name {
        "RANK" => Some("one".to_owned()),
        "WORLD_SIZE" => Some("2".to_owned()),
        _ => None,
    };
    assert!(build(Loader::new(indices(3), Stages::new()).shard_from(env)).contains("RANK"));
    let slurm = |name: &str| match name {
        "SLURM_PROCID" => Some("1".to_owned()),
        "SLURM_NTASKS" => Some("3".to_owned()),
        _ => None,
    };
    let loader = Loader::new(indices(3), Stages::new())
        .shard_from(slurm)
        .build()
        .unwrap();
    assert_eq!((loader.shard().rank, loader.shard().world), (1, 3));
}

/// The child side of the multi-process test: with ADL_LOADER_CHILD set, it
/// reads its rank's part of the epoch (RANK / WORLD_SIZE from the
/// environment) and prints the indices.
#[test]
fn child_rank_process() {
    if std::env::var_os("ADL_LOADER_CHILD").is_none() {
        return;
    }
    let loader = Loader::new(indices(101), Stages::new())
        .batch_size(8)
        .shuffle(3)
        .workers(2)
        .shard_from_env()
        .shard_tail(ShardTail::Drop)
        .build()
        .unwrap();
    let seen: Vec<String> = loader
        .epoch(2)
        .flat_map(Result::unwrap)
        .map(|i| i.to_string())
        .collect();
    println!("\nADL-INDICES {}", seen.join(","));
}

#[test]
fn processes_with_rank_and_world_size_partition_the_epoch() {
    let exe = std::env::current_exe().unwrap();
    for world in [2usize, 3, 4] {
        let children: Vec<_> = (0..world)
            .map(|rank| {
                Command::new(&exe)
                    .args([
                        "--exact",
                        "loader::child_rank_process",
                        "--nocapture",
                        "--test-threads=1",
                    ])
                    .env("ADL_LOADER_CHILD", "1")
                    .env("RANK", rank.to_string())
                    .env("WORLD_SIZE", world.to_string())
                    .output()
                    .unwrap()
            })
            .collect();
        let mut all = Vec::new();
        for out in children {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let stdout = String::from_utf8_lossy(&out.stdout);
            let line = stdout
                .lines()
                .find_map(|l| l.split_once("ADL-INDICES ").map(|(_, rest)| rest))
                .expect("no indices printed");
            all.extend(
                line.split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse::<usize>().unwrap()),
            );
        }
        let before = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(
            all.len(),
            before,
            "world {world}: an index was read by two ranks"
        );
        assert_eq!(
            all.len(),
            101 / world * world,
            "world {world}: the drop tail is 101 % world"
        );
    }
}

/// Run in a child process by
/// [`where_kernels_run_is_said_in_one_short_line_once_per_process`]: builds
/// three loaders of a pipeline with a kernel node (fusion on, off, on
/// again) and runs an epoch of each.
#[test]
fn child_kernel_notice_process() {
    if std::env::var_os("ADL_NOTICE_CHILD").is_none() {
        return;
    }
    let data: InMemory<ndarray::Array3<u8>> = (0..8)
        .map(|i| ndarray::Array3::from_elem((1, 2, 2), i as u8))
        .collect();
    let pipeline = adl::pipeline! {
        collate: default,
        batch: adl::kernel::U8ToF32::divide(255.0),
    };
    for fusion in [true, false, true] {
        let loader = Loader::new(data.clone(), pipeline.clone())
            .batch_size(4)
            .workers(1)
            .fusion(fusion)
            .build()
            .unwrap();
        assert_eq!(loader.epoch(0).map(Result::unwrap).count(), 2);
    }
}

#[test]
fn where_kernels_run_is_said_in_one_short_line_once_per_process() {
    let exe = std::env::current_exe().unwrap();
    let notices = |env: &[(&str, &str)]| {
        let mut child = Command::new(&exe);
        child
            .args([
                "--exact",
                "loader::child_kernel_notice_process",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("ADL_NOTICE_CHILD", "1")
            .env_remove(adl::graph::loader::QUIET_VARIABLE)
            .env_remove("ADL_OPENCL_DEVICE");
        for (name, value) in env {
            child.env(name, value);
        }
        let out = child.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        stderr
            .lines()
            .filter(|l| l.starts_with("adl: "))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    // Nobody chose a device: three loaders, one line, saying where the
    // kernels run and how to choose.
    let said = notices(&[]);
    assert_eq!(said.len(), 1, "{said:#?}");
    let line = &said[0];
    assert!(line.starts_with("adl: batch kernels run on "), "{line}");
    assert!(line.contains("ADL_OPENCL_DEVICE"), "{line}");
    assert!(line.len() <= 200, "{} characters: {line}", line.len());
    // Chosen, or hidden: nothing.
    assert_eq!(
        notices(&[("ADL_OPENCL_DEVICE", "rust")]),
        Vec::<String>::new()
    );
    assert_eq!(notices(&[("ADL_QUIET", "1")]), Vec::<String>::new());
}

/// A sample of [`recycling_loader`]: a 1024-float row and a label.
#[derive(adl::Collate, Clone)]
struct Row {
    values: ndarray::Array1<f32>,
    label: i64,
}

/// A batch type of the user's own, from a batch node.
#[derive(adl::Recycle)]
struct Scaled {
    values: ndarray::Array2<f32>,
    labels: ndarray::Array1<i64>,
    note: String,
}

fn scale(batch: RowBatch) -> Scaled {
    Scaled {
        values: batch.values * 0.5,
        labels: batch.label,
        note: String::from("kept as is"),
    }
}

fn recycling_loader(
    workers: usize,
) -> Loader<InMemory<Row>, impl Pipeline<Row, Transformed = Row, Processed = Scaled> + Send + Sync>
{
    let dataset: InMemory<Row> = (0..96)
        .map(|i| Row {
            values: ndarray::Array1::from_elem(1024, i as f32),
            label: i as i64,
        })
        .collect();
    let pipeline = Stages::new().with_collate(DefaultCollate).with_batch(scale);
    Loader::new(dataset, pipeline)
        .batch_size(8)
        .workers(workers)
        .batches_ahead(2)
        .build()
        .unwrap()
}

#[test]
fn batch_memory_is_recycled_and_bounded_by_batches_ahead() {
    for workers in [0, 2] {
        let loader = recycling_loader(workers);
        for epoch in 0..4 {
            let mut labels = Vec::new();
            for batch in loader.epoch(epoch) {
                let batch = batch.unwrap();
                assert_eq!(batch.values.shape(), &[8, 1024]);
                assert_eq!(batch.note, "kept as is");
                labels.extend(batch.labels.iter().copied());
            }
            assert_eq!(labels, (0..96).collect::<Vec<i64>>());
        }
        let b = loader.statistics().buffers;
        // Per batch, the collate builders take one pooled buffer (the
        // values, 32 KiB; the labels are too small to be worth pooling, and
        // the batch node's `* 0.5` works in place on the owned array). At
        // most batches_ahead + 1 batches are alive at once (2 being built, 1
        // with the consumer), so at most that many were ever allocated;
        // every other request over 4 epochs of 12 batches was served from
        // recycled memory.
        assert!(
            b.allocated <= 3,
            "{workers} workers: {} buffers allocated, {} reused",
            b.allocated,
            b.reused
        );
        assert_eq!(b.reused + b.allocated, 4 * 12);
        assert!(b.held_bytes <= b.limit_bytes);
        // The pool keeps batches_ahead + 2 batches at most.
        assert_eq!(b.limit_bytes, 4 * (8 * 1024 * 4));
        let report = loader.statistics().to_string();
        assert!(report.contains("batch memory:"), "{report}");
    }
}

#[test]
fn the_consumer_builds_batches_while_it_waits_unless_told_not_to() {
    // Cheap samples and a slow collate, one worker: while the worker
    // builds one batch, the consumer's thread takes the next.
    let slow_collate = || {
        adl::pipeline::collate_fn(|v: Vec<usize>| {
            std::thread::sleep(std::time::Duration::from_millis(2));
            v
        })
    };
    let run = |workers: usize, assist: bool| {
        let loader = Loader::new(indices(24), Stages::new().with_collate(slow_collate()))
            .batch_size(3)
            .shuffle(5)
            .workers(workers)
            .batches_ahead(4)
            .build_while_waiting(assist)
            .build()
            .unwrap();
        let batches: Batches = loader.epoch(0).map(owned).collect();
        (batches, loader.statistics())
    };
    let (alone, _) = run(0, true);
    let (helped, stats) = run(1, true);
    assert_eq!(helped, alone);
    assert!(stats.batches_built_by_consumer > 0, "{stats}");
    assert!(stats.built_by_consumer > std::time::Duration::ZERO);
    // The time it spent building is time it waited for its batch.
    assert!(stats.waited >= stats.built_by_consumer, "{stats}");
    assert!(stats.to_string().contains("built"), "{stats}");
    let (waited, stats) = run(1, false);
    assert_eq!(waited, alone);
    assert_eq!(stats.batches_built_by_consumer, 0, "{stats}");
    assert_eq!(stats.built_by_consumer, std::time::Duration::ZERO);
}

#[test]
fn batches_worth_splitting_are_left_to_the_workers() {
    // Samples of 2 ms: a batch of them is split across the workers, which
    // the consumer's thread, building alone, would not do.
    let slow = |i: usize| {
        std::thread::sleep(std::time::Duration::from_millis(2));
        i
    };
    let loader = Loader::new(indices(24), Stages::new().with_sample(slow))
        .batch_size(4)
        .workers(2)
        .batches_ahead(1)
        .build()
        .unwrap();
    let batches: Batches = loader.epoch(0).map(owned).collect();
    assert_eq!(batches.concat(), (0..24).collect::<Vec<_>>());
    let stats = loader.statistics();
    assert_eq!(stats.batches_built_by_consumer, 0, "{stats}");
}

#[test]
fn a_batch_taken_out_is_not_recycled() {
    let loader = recycling_loader(1);
    let kept: Vec<Scaled> = loader.epoch(0).map(owned).collect();
    assert_eq!(kept.len(), 12);
    let b = loader.statistics().buffers;
    assert_eq!((b.reused, b.held_bytes), (0, 0));
}

#[test]
fn batches_carry_their_dataset_indices_on_request() {
    for workers in [0, 2] {
        // Samples are their own indices: a batch's indices are its values,
        // in order, with the skipped ones left out.
        let loader = failing_loader(30, vec![4, 17], |b| {
            b.batch_size(4)
                .shuffle(5)
                .workers(workers)
                .on_error(OnError::Skip)
                .batch_indices(true)
        });
        let mut seen = Vec::new();
        for batch in loader.epoch(1) {
            let batch = batch.unwrap();
            let indices = batch.indices().expect("asked for").to_vec();
            assert_eq!(batch.to_vec(), indices, "{workers} workers");
            seen.extend(indices);
        }
        seen.sort_unstable();
        let expected: Vec<usize> = (0..30).filter(|i| ![4, 17].contains(i)).collect();
        assert_eq!(seen, expected);
    }
    // Not asked for: none.
    let loader = plain_loader(8, 0, 0, 1);
    assert!(loader.epoch(0).all(|b| b.unwrap().indices().is_none()));
}

#[test]
fn a_state_saves_to_a_file_and_loads_in_one_call() {
    let dir = std::env::temp_dir().join(format!("adl-state-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("loader.json");
    let whole: Batches = plain_loader(40, 2, 0, 1).epoch(2).map(owned).collect();
    let loader = plain_loader(40, 2, 0, 1);
    let mut epoch = loader.epoch(2);
    let first: Batches = epoch.by_ref().take(3).map(owned).collect();
    epoch.state().save(&path).unwrap();
    // Saved again over the old one, later in the epoch, then reloaded
    // from the first: nothing but the file is left in the folder.
    let state = adl::graph::loader::LoaderState::load(&path).unwrap();
    assert_eq!(state, epoch.state());
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["loader.json"]);
    let rest: Batches = plain_loader(40, 0, 0, 1)
        .resume(&state)
        .unwrap()
        .map(owned)
        .collect();
    assert_eq!([first, rest].concat(), whole);

    // A missing file, a file that is no state, a folder that is not there:
    // errors that name the file and say what is wrong.
    let missing = dir.join("nothing.json");
    let err = adl::graph::loader::LoaderState::load(&missing)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("nothing.json") && err.contains("cannot load"),
        "{err}"
    );
    std::fs::write(dir.join("garbage.json"), "{\"epoch\": \"two\"}").unwrap();
    let err = adl::graph::loader::LoaderState::load(dir.join("garbage.json"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("garbage.json") && err.contains("invalid type"),
        "{err}"
    );
    let err = state
        .save(dir.join("no/such/folder/state.json"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("state.json") && err.contains("cannot save"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A generic batch type of the user's own (as a pipeline returned from a
/// function names its batch): its fields, whatever their types, go back
/// to the loader too.
#[derive(adl::Recycle)]
struct Generic<V, L> {
    values: V,
    labels: L,
}

#[test]
fn a_generic_batch_struct_is_recycled_field_by_field() {
    let dataset: InMemory<Row> = (0..64)
        .map(|i| Row {
            values: ndarray::Array1::from_elem(4096, i as f32),
            label: i as i64,
        })
        .collect();
    let pipeline = Stages::new()
        .with_collate(DefaultCollate)
        .with_batch(|b: RowBatch| Generic {
            values: b.values,
            labels: b.label,
        });
    let loader = Loader::new(dataset, pipeline)
        .batch_size(8)
        .workers(0)
        .build()
        .unwrap();
    for epoch in 0..3 {
        for batch in loader.epoch(epoch) {
            assert_eq!(batch.unwrap().values.shape(), &[8, 4096]);
        }
    }
    let b = loader.statistics().buffers;
    // Every batch after the first few is built in recycled memory.
    assert!(b.reused >= 20, "{b:?}");
}

//! A dataset that reads many samples at once (`Dataset::get_many`, with
//! `reads_many`): the loader reads each worker's share of a batch in one
//! call, and gives the same batches, skips, errors and counts as with one
//! `get` each; where the call panics or breaks its contract, the samples
//! are read one by one again, which names the one at fault.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use adl::OnError;
use adl::graph::loader::Loader;
use adl::pipeline::Stages;
use adl::prelude::*;

/// How [`Keys::get_many`] reports its failures.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Places {
    /// At their places in the indices.
    Honest,
    /// Past the end of the indices: a broken implementation.
    PastTheEnd,
    /// Each twice: a broken implementation.
    Twice,
}

/// The keys `0..n`: sample `i` is `i`, an error for those in `bad`, a
/// panic for those in `panics`; its calls counted.
#[derive(Debug)]
struct Keys {
    n: usize,
    bad: Vec<usize>,
    panics: Vec<usize>,
    many: bool,
    places: Places,
    gets: AtomicUsize,
    get_manys: AtomicUsize,
}

impl Keys {
    fn new(n: usize, bad: &[usize], panics: &[usize]) -> Self {
        Keys {
            n,
            bad: bad.to_vec(),
            panics: panics.to_vec(),
            many: true,
            places: Places::Honest,
            gets: AtomicUsize::new(0),
            get_manys: AtomicUsize::new(0),
        }
    }

    /// The same keys, read one `get` each by the loader.
    fn one_by_one(self) -> Self {
        Keys {
            many: false,
            ..self
        }
    }

    fn read(&self, index: usize) -> adl::Result<usize> {
        if self.panics.contains(&index) {
            panic!("key {index} panics");
        }
        if self.bad.contains(&index) || index >= self.n {
            return Err(adl::Error::invalid("keys", format!("key {index} is bad")));
        }
        Ok(index)
    }
}

impl Dataset for Keys {
    type Sample = usize;

    fn len(&self) -> usize {
        self.n
    }

    fn get(&self, index: usize) -> adl::Result<usize> {
        self.gets.fetch_add(1, Relaxed);
        self.read(index)
    }

    fn get_many(
        &self,
        indices: &[usize],
        into: &mut Vec<usize>,
        failed: &mut Vec<(usize, adl::Error)>,
    ) {
        self.get_manys.fetch_add(1, Relaxed);
        for (k, &index) in indices.iter().enumerate() {
            match self.read(index) {
                Ok(sample) => into.push(sample),
                Err(e) => match self.places {
                    Places::Honest => failed.push((k, e)),
                    Places::PastTheEnd => failed.push((indices.len(), e)),
                    Places::Twice => {
                        failed.push((k, adl::Error::invalid("keys", e.to_string())));
                        failed.push((k, e));
                    }
                },
            }
        }
    }

    fn reads_many(&self) -> bool {
        self.many
    }
}

type Batches = Vec<Vec<usize>>;

/// What an epoch gave and did.
struct Run {
    batches: Batches,
    /// The indices skipped, in order.
    skipped: Vec<usize>,
    /// The loader's count of the dataset's reads.
    reads: Option<u64>,
    /// The dataset's `get` and `get_many` calls.
    gets: usize,
    get_manys: usize,
}

/// Epoch 0 of `keys`: batches of 5, shuffled, `workers` workers,
/// failures skipped.
fn epoch(keys: Keys, workers: usize) -> Run {
    let loader = Loader::new(keys, Stages::new())
        .batch_size(5)
        .shuffle(11)
        .workers(workers)
        .on_error(OnError::Skip)
        .build()
        .unwrap();
    let mut epoch = loader.epoch(0);
    let batches: Batches = epoch.by_ref().map(|b| b.unwrap().into_inner()).collect();
    let mut skipped: Vec<usize> = epoch.skipped().iter().map(|s| s.index).collect();
    skipped.sort_unstable();
    drop(epoch);
    let stats = loader.statistics();
    let reads = stats
        .nodes
        .iter()
        .find(|n| n.name == "dataset")
        .map(|n| n.calls);
    let keys = loader.dataset();
    Run {
        batches,
        skipped,
        reads,
        gets: keys.gets.load(Relaxed),
        get_manys: keys.get_manys.load(Relaxed),
    }
}

#[test]
fn a_batch_read_in_one_call_is_the_batch_read_one_by_one() {
    for workers in [0, 1, 2] {
        let many = epoch(Keys::new(37, &[3, 20, 36], &[]), workers);
        let one = epoch(Keys::new(37, &[3, 20, 36], &[]).one_by_one(), workers);
        assert_eq!(many.batches, one.batches, "{workers} workers");
        assert_eq!(many.skipped, [3, 20, 36]);
        assert_eq!(one.skipped, many.skipped);
        // Every sample counted as a read, either way.
        assert_eq!(many.reads, Some(37));
        assert_eq!(one.reads, many.reads);
        // Read in one call a batch (or a worker's share of one), never one
        // by one; and the other way round.
        assert_eq!(many.gets, 0);
        assert!(many.get_manys >= 8, "{}", many.get_manys);
        assert_eq!(one.get_manys, 0);
        assert_eq!(one.gets, 37);
    }
}

#[test]
fn a_failure_in_a_call_names_its_sample() {
    let loader = Loader::new(Keys::new(12, &[7], &[]), Stages::new())
        .batch_size(4)
        .build()
        .unwrap();
    let err = loader.epoch(0).find_map(Result::err).unwrap();
    match &err {
        adl::Error::Sample { index: 7, node, .. } => assert_eq!(node, "dataset"),
        other => panic!("expected sample 7's error, got {other:?}"),
    }
    assert!(format!("{err:#}").contains("key 7 is bad"), "{err:#}");
}

#[test]
fn a_call_that_panics_is_read_again_one_by_one_naming_the_sample() {
    // One worker: a batch is never split between workers (a choice the
    // loader takes from measured times), so the panic's whole batch is
    // read again.
    let run = epoch(Keys::new(20, &[], &[9]), 1);
    assert_eq!(run.skipped, [9]);
    let mut read: Vec<usize> = run.batches.concat();
    read.sort_unstable();
    assert_eq!(read, (0..20).filter(|&i| i != 9).collect::<Vec<_>>());
    assert_eq!(run.reads, Some(20));
    // Only the batch of the panic was read again, one by one.
    assert_eq!(run.gets, 5);

    let loader = Loader::new(Keys::new(20, &[], &[9]), Stages::new())
        .batch_size(5)
        .build()
        .unwrap();
    match loader.epoch(0).find_map(Result::err) {
        Some(adl::Error::Panic {
            index: Some(9),
            message,
            ..
        }) => assert!(message.contains("key 9 panics"), "{message}"),
        other => panic!("expected sample 9's panic, got {other:?}"),
    }
}

#[test]
fn a_call_that_misplaces_its_failures_is_read_again_one_by_one() {
    let one = epoch(Keys::new(20, &[4, 19], &[]).one_by_one(), 1);
    for places in [Places::PastTheEnd, Places::Twice] {
        let keys = Keys {
            places,
            ..Keys::new(20, &[4, 19], &[])
        };
        let run = epoch(keys, 1);
        assert_eq!(run.batches, one.batches, "{places:?}");
        assert_eq!(run.skipped, [4, 19]);
        // The two batches with a failure, read again.
        assert_eq!(run.gets, 10, "{places:?}");
    }
}

#[test]
fn a_sample_stage_that_does_work_reads_one_by_one() {
    let loader = Loader::new(
        Keys::new(10, &[], &[]),
        Stages::new().with_sample(|i: usize| i * 2),
    )
    .batch_size(3)
    .build()
    .unwrap();
    let read: Vec<usize> = loader
        .epoch(0)
        .flat_map(|b| b.unwrap().into_inner())
        .collect();
    assert_eq!(read, (0..10).map(|i| i * 2).collect::<Vec<_>>());
    let keys = loader.dataset();
    assert_eq!(keys.get_manys.load(Relaxed), 0);
    assert_eq!(keys.gets.load(Relaxed), 10);
}

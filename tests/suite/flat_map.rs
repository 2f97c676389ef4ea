//! `FlatMap`: one source item to zero or more samples, the error policy
//! (propagate, or skip counted), and the worker split (every source item
//! processed by exactly one worker).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use adl::pipes::{DatasetExt, FlatMap, IterableDataset, IterableExt, SkipCounts};
use adl::{Dataset, Error, OnError, Result};
use proptest::prelude::*;

/// `0..len`, counting reads per index; the indices in `fail` cannot be
/// read.
struct Numbers {
    len: usize,
    fail: Vec<usize>,
    reads: Mutex<Vec<usize>>,
    total: AtomicUsize,
}

impl Numbers {
    fn new(len: usize) -> Self {
        Self::failing(len, &[])
    }

    fn failing(len: usize, fail: &[usize]) -> Self {
        Numbers {
            len,
            fail: fail.to_vec(),
            reads: Mutex::new(vec![0; len]),
            total: AtomicUsize::new(0),
        }
    }
}

impl Dataset for Numbers {
    type Sample = usize;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Result<usize> {
        self.total.fetch_add(1, Ordering::SeqCst);
        if index >= self.len {
            return Err(Error::out_of_range("numbers", index, self.len));
        }
        self.reads.lock().unwrap()[index] += 1;
        if self.fail.contains(&index) {
            return Err(Error::Load {
                sensor: "numbers".into(),
                index,
                cause: "corrupt sample".into(),
            });
        }
        Ok(index)
    }
}

/// A stream of `0..len` of unknown length.
struct Stream(usize);

impl IterableDataset for Stream {
    type Item = usize;
    type Iter<'a> = std::iter::Map<std::ops::Range<usize>, fn(usize) -> Result<usize>>;

    fn iter(&self) -> Self::Iter<'_> {
        (0..self.0).map(Ok)
    }

    fn len(&self) -> Option<usize> {
        None
    }
}

/// Item `n` gives `n % 4` pairs `(n, k)`; items with `n % bad == bad - 1` fail in
/// the function (none for `bad == 0`).
fn expand(bad: usize) -> impl Fn(usize) -> Result<Vec<(usize, usize)>> {
    move |n| {
        if bad > 0 && n % bad == bad - 1 {
            Err(Error::invalid("n", format!("{n} cannot be expanded")))
        } else {
            Ok((0..n % 4).map(|k| (n, k)).collect())
        }
    }
}

fn ok_items<I: IterableDataset>(ds: &I) -> Vec<I::Item> {
    ds.iter().collect::<Result<_>>().unwrap()
}

#[test]
fn flattens_in_order_including_empty_outputs() {
    let ds = Numbers::new(6).flat_map(expand(0));
    assert_eq!(ds.len(), None);
    assert_eq!(ds.policy(), OnError::Fail);
    assert_eq!(
        ok_items(&ds),
        [(1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2), (5, 0)]
    );
    // Every source item gives nothing: an empty stream.
    let nothing = Numbers::new(5).flat_map(|_: usize| Ok(Vec::<u8>::new()));
    assert!(ok_items(&nothing).is_empty());
    // An empty source.
    let empty = Numbers::new(0).flat_map(expand(0));
    assert_eq!(empty.len(), Some(0));
    assert!(ok_items(&empty).is_empty());
    // Any IntoIterator: an Option, a range.
    let some = Numbers::new(4).flat_map(|n: usize| Ok(n.is_multiple_of(2).then_some(n)));
    assert_eq!(ok_items(&some), [0, 2]);
    let ranges = Stream(4).flat_map(|n: usize| Ok(0..n));
    assert_eq!(ranges.len(), None);
    assert_eq!(ok_items(&ranges), [0, 0, 1, 0, 1, 2]);
}

#[test]
fn propagate_yields_errors_with_the_source_index_and_goes_on() {
    let ds = Numbers::failing(8, &[4]).flat_map(expand(3));
    let items: Vec<_> = ds.iter().collect();
    let errors: Vec<(String, usize)> = items
        .iter()
        .filter_map(|r| match r {
            Err(Error::Pipe { adaptor, index, .. }) => Some((adaptor.to_string(), *index)),
            Err(Error::Load { index, .. }) => Some(("source".into(), *index)),
            Err(other) => panic!("{other}"),
            Ok(_) => None,
        })
        .collect();
    assert_eq!(
        errors,
        [
            ("flat_map".into(), 2),
            ("source".into(), 4),
            ("flat_map".into(), 5)
        ]
    );
    let message = format!("{:#}", items.iter().find_map(|r| r.as_ref().err()).unwrap());
    assert!(
        message.contains("item 2") && message.contains("2 cannot be expanded"),
        "{message}"
    );
    // The items after each error still come.
    let ok: Vec<_> = items.into_iter().filter_map(|r| r.ok()).collect();
    assert_eq!(
        ok,
        [
            (1, 0),
            (3, 0),
            (3, 1),
            (3, 2),
            (6, 0),
            (6, 1),
            (7, 0),
            (7, 1),
            (7, 2)
        ]
    );
    assert_eq!(ds.skipped(), SkipCounts::default());
}

#[test]
fn skip_counts_source_and_function_failures() {
    let ds = Numbers::failing(8, &[4])
        .flat_map(expand(3))
        .on_error(OnError::Skip);
    assert_eq!(ds.policy(), OnError::Skip);
    let ok = ok_items(&ds);
    assert_eq!(
        ok,
        [
            (1, 0),
            (3, 0),
            (3, 1),
            (3, 2),
            (6, 0),
            (6, 1),
            (7, 0),
            (7, 1),
            (7, 2)
        ]
    );
    assert_eq!(
        ds.skipped(),
        SkipCounts {
            source: 1,
            function: 2
        }
    );
    assert_eq!(ds.skipped().total(), 3);
    // Counts accumulate over passes.
    let _ = ok_items(&ds);
    assert_eq!(ds.skipped().total(), 6);
}

#[test]
fn identity_flat_map_makes_a_safe_dataset() {
    // The seed's `FlatMapDataset(old_dataset, lambda x: [x])`.
    let safe = Numbers::failing(5, &[1, 3])
        .flat_map(|x: usize| Ok([x]))
        .on_error(OnError::Skip);
    assert_eq!(ok_items(&safe), [0, 2, 4]);
    assert_eq!(safe.skipped().source, 2);
}

#[test]
fn shard_rejects_bad_workers() {
    let ds = Numbers::new(4).flat_map(expand(0));
    for (worker, workers) in [(0, 0), (1, 0), (2, 2), (5, 3), (usize::MAX, 1)] {
        assert!(
            matches!(
                ds.shard(worker, workers),
                Err(Error::InvalidParameter { .. })
            ),
            "worker {worker} of {workers}"
        );
    }
    let message = ds.shard(3, 2).unwrap_err().to_string();
    assert!(message.contains('3') && message.contains('2'), "{message}");
    let shard = ds.shard(1, 3).unwrap();
    assert_eq!((shard.worker(), shard.num_workers()), (1, 3));
}

#[test]
fn one_worker_is_the_whole_stream() {
    let ds = Numbers::new(9).flat_map(expand(0));
    assert_eq!(ok_items(&ds.shard(0, 1).unwrap()), ok_items(&ds));
}

#[test]
fn shards_partition_the_source_items() {
    let ds = Numbers::new(10).flat_map(|n: usize| Ok([n]));
    let shards: Vec<Vec<usize>> = (0..3).map(|w| ok_items(&ds.shard(w, 3).unwrap())).collect();
    assert_eq!(shards, [vec![0, 3, 6, 9], vec![1, 4, 7], vec![2, 5, 8]]);
    // More workers than items: the extra workers get nothing, and know it.
    let few = Numbers::new(2).flat_map(|n: usize| Ok([n]));
    assert_eq!(few.shard(0, 4).unwrap().len(), None);
    assert_eq!(few.shard(3, 4).unwrap().len(), Some(0));
    assert!(ok_items(&few.shard(3, 4).unwrap()).is_empty());
    assert_eq!(
        Stream(2)
            .flat_map(|n: usize| Ok([n]))
            .shard(3, 4)
            .unwrap()
            .len(),
        None
    );
}

#[test]
fn owned_shards_run_on_threads_of_their_own_and_share_skip_counts() {
    // Items 4 and 5 cannot be read, in the shards of workers 1 and 2:
    // skipped, and counted once each in counts that every shard shares.
    let mut source = Numbers::new(10);
    source.fail = vec![4, 5];
    let ds = source.flat_map(|n: usize| Ok([n])).on_error(OnError::Skip);
    let shards = ds.into_shards(3).unwrap();
    let first = shards[0].worker();
    let handles: Vec<_> = shards
        .into_iter()
        .map(|shard| {
            std::thread::spawn(move || {
                let items = ok_items(&shard);
                (items, shard)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(first, 0);
    let parts: Vec<&Vec<usize>> = results.iter().map(|(items, _)| items).collect();
    assert_eq!(parts, [&vec![0, 3, 6, 9], &vec![1, 7], &vec![2, 8]]);
    for (_, shard) in &results {
        let skipped: SkipCounts = shard.skipped();
        assert_eq!((skipped.source, skipped.total()), (2, 2));
    }
    assert!(
        Numbers::new(1)
            .flat_map(|n: usize| Ok([n]))
            .into_shards(0)
            .is_err()
    );
}

#[test]
fn each_worker_reads_only_its_own_items() {
    let source = Numbers::new(12);
    let ds = (&source).flat_map(expand(0));
    for w in 0..4 {
        let _ = ok_items(&ds.shard(w, 4).unwrap());
    }
    assert_eq!(*source.reads.lock().unwrap(), vec![1; 12]);
    assert_eq!(source.total.load(Ordering::SeqCst), 12);
}

#[test]
fn worker_threads_process_every_item_exactly_once() {
    let source = Numbers::failing(101, &[10, 55]);
    let ds = (&source).flat_map(expand(7)).on_error(OnError::Skip);
    let whole = {
        let reference = Numbers::failing(101, &[10, 55])
            .flat_map(expand(7))
            .on_error(OnError::Skip);
        ok_items(&reference)
    };
    let workers = 4;
    let mut outputs: Vec<(usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let ds = &ds;
                s.spawn(move || ok_items(&ds.shard(w, workers).unwrap()))
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(*source.reads.lock().unwrap(), vec![1; 101]);
    let mut expected = whole.clone();
    outputs.sort();
    expected.sort();
    assert_eq!(outputs, expected);
    // Skips of all workers add up in the one counter.
    let failing_fn = (0..101).filter(|n| n % 7 == 6 && *n != 55).count();
    assert_eq!(
        ds.skipped(),
        SkipCounts {
            source: 2,
            function: failing_fn
        }
    );
}

#[test]
fn iterable_sources_can_be_sharded() {
    let ds = Stream(20)
        .filter(|n: &usize| !n.is_multiple_of(3))
        .flat_map(|n: usize| Ok(vec![n; 2]));
    let mut union: Vec<usize> = (0..3)
        .flat_map(|w| ok_items(&ds.shard(w, 3).unwrap()))
        .collect();
    let mut whole = ok_items(&ds);
    union.sort();
    whole.sort();
    assert_eq!(union, whole);
}

#[test]
fn flat_map_composes() {
    let ds = Numbers::new(6)
        .flat_map(|n: usize| Ok(vec![n; n]))
        .batch(4)
        .unwrap()
        .enumerate();
    let batches = ok_items(&ds);
    assert_eq!(batches[0], (0, vec![1, 2, 2, 3]));
    assert_eq!(batches.len(), 4);
    let shard = FlatMap::new(Numbers::new(4).iterable(), |n: usize| Ok([n * 10]));
    assert_eq!(
        ok_items(&shard.shard(1, 2).unwrap().map(|x: usize| x + 1)),
        [11, 31]
    );
    assert_eq!(shard.source().len(), Some(4));
}

proptest! {
    #[test]
    fn shards_union_is_the_whole_output(
        len in 0usize..60,
        workers in 1usize..8,
        bad in 0usize..6,
        fail in proptest::collection::vec(0usize..60, 0..5),
        skip in any::<bool>(),
    ) {
        let policy = if skip { OnError::Skip } else { OnError::Fail };
        let ds = Numbers::failing(len, &fail).flat_map(expand(bad)).on_error(policy);
        // Each output as (source index, k), errors as (index, usize::MAX).
        let tag = |r: Result<(usize, usize)>| match r {
            Ok(pair) => pair,
            Err(Error::Pipe { index, .. }) | Err(Error::Load { index, .. }) => (index, usize::MAX),
            Err(other) => panic!("{other}"),
        };
        let mut whole: Vec<(usize, usize)> = ds.iter().map(tag).collect();
        let mut union = Vec::new();
        for w in 0..workers {
            let shard: Vec<(usize, usize)> = ds.shard(w, workers).unwrap().iter().map(tag).collect();
            // A worker sees only its own source items, in order.
            prop_assert!(shard.iter().all(|(n, _)| n % workers == w));
            prop_assert!(shard.windows(2).all(|p| p[0] <= p[1]));
            union.extend(shard);
        }
        // No duplicates: every (item, k) output is distinct.
        let mut dedup = union.clone();
        dedup.sort();
        dedup.dedup();
        prop_assert_eq!(dedup.len(), union.len());
        union.sort();
        whole.sort();
        prop_assert_eq!(union, whole);
    }
}

//! The lazy adaptors of `adl::pipes`: values, lengths (exact or `None`),
//! empty datasets, errors mid-stream, bad parameters, laziness, and the
//! agreement of the map-style and iterable versions of each adaptor.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use adl::pipes::{DatasetExt, IterableDataset, IterableExt, Map, TransformedDataset};
use adl::{Dataset, Error, Record, Result, Transform};

/// `0..len`, counting reads; the indices in `fail` cannot be read.
struct Numbers {
    len: usize,
    fail: Vec<usize>,
    reads: AtomicUsize,
}

impl Numbers {
    fn new(len: usize) -> Self {
        Self::failing(len, &[])
    }

    fn failing(len: usize, fail: &[usize]) -> Self {
        Numbers {
            len,
            fail: fail.to_vec(),
            reads: AtomicUsize::new(0),
        }
    }

    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }
}

impl Dataset for Numbers {
    type Sample = usize;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Result<usize> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        if index >= self.len {
            return Err(Error::out_of_range("numbers", index, self.len));
        }
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

/// A stream of `0..len` whose length is not known; positions in `fail`
/// are `Err` items.
struct Stream {
    len: usize,
    fail: Vec<usize>,
}

impl Stream {
    fn new(len: usize) -> Self {
        Stream {
            len,
            fail: Vec::new(),
        }
    }

    fn failing(len: usize, fail: &[usize]) -> Self {
        Stream {
            len,
            fail: fail.to_vec(),
        }
    }
}

impl IterableDataset for Stream {
    type Item = usize;
    type Iter<'a> = std::vec::IntoIter<Result<usize>>;

    fn iter(&self) -> Self::Iter<'_> {
        (0..self.len)
            .map(|i| {
                if self.fail.contains(&i) {
                    Err(Error::Load {
                        sensor: "stream".into(),
                        index: i,
                        cause: "corrupt item".into(),
                    })
                } else {
                    Ok(i)
                }
            })
            .collect::<Vec<_>>()
            .into_iter()
    }

    fn len(&self) -> Option<usize> {
        None
    }
}

/// Every item of a pass, `Err` items as the index they carry.
fn outcomes<I: IterableDataset>(ds: &I) -> Vec<std::result::Result<I::Item, usize>> {
    ds.iter().map(|r| r.map_err(|e| error_index(&e))).collect()
}

/// Every sample of a map-style dataset, the same way.
fn samples<D: Dataset>(ds: &D) -> Vec<std::result::Result<D::Sample, usize>> {
    (0..ds.len())
        .map(|i| ds.get(i).map_err(|e| error_index(&e)))
        .collect()
}

fn ok_items<I: IterableDataset>(ds: &I) -> Vec<I::Item> {
    ds.iter().collect::<Result<_>>().unwrap()
}

fn error_index(e: &Error) -> usize {
    match e {
        Error::Load { index, .. } | Error::Pipe { index, .. } => *index,
        other => panic!("unexpected error {other}"),
    }
}

fn is_invalid<T>(r: Result<T>) -> bool {
    matches!(r, Err(Error::InvalidParameter { .. }))
}

fn is_out_of_range<T>(r: Result<T>) -> bool {
    matches!(r, Err(Error::IndexOutOfRange { .. }))
}

// ---------------------------------------------------------------- iterable

#[test]
fn a_map_style_dataset_is_iterable() {
    let ds = Numbers::new(4);
    assert_eq!(ds.iter().len(), 4);
    assert_eq!(ds.iter().collect::<Result<Vec<_>>>().unwrap(), [0, 1, 2, 3]);
    let stream = Numbers::new(4).iterable();
    assert_eq!(stream.len(), Some(4));
    assert_eq!(ok_items(&stream), [0, 1, 2, 3]);
    assert_eq!(ok_items(&Numbers::new(0).iterable()), Vec::<usize>::new());
    // `nth` steps over samples without reading them.
    let ds = Numbers::new(10);
    assert_eq!(ds.iter().nth(7).unwrap().unwrap(), 7);
    assert_eq!(ds.reads(), 1);
    assert!(ds.iter().nth(10).is_none());
}

#[test]
fn references_boxes_and_arcs_are_iterable() {
    let stream = Numbers::new(3).iterable();
    assert_eq!(ok_items(&&stream), [0, 1, 2]);
    assert_eq!(ok_items(&Box::new(Numbers::new(2).iterable())), [0, 1]);
    assert_eq!(
        ok_items(&std::sync::Arc::new(Numbers::new(2).iterable())),
        [0, 1]
    );
    // A borrowed dataset can be adapted without giving it up.
    let ds = Numbers::new(3);
    assert_eq!((&ds).map(|x: usize| x + 1).get(2).unwrap(), 3);
    assert_eq!(ds.len(), 3);
}

// --------------------------------------------------------------------- map

#[test]
fn map_keeps_random_access_and_length() {
    let ds = Numbers::new(5).map(|x: usize| x * 3);
    assert_eq!(ds.len(), 5);
    assert_eq!(ds.get(4).unwrap(), 12);
    assert!(is_out_of_range(ds.get(5)));
    assert_eq!(Numbers::new(0).map(|x: usize| x).len(), 0);

    let same: TransformedDataset<_, _> = Map::new(Numbers::new(5), |x: usize| x * 3);
    assert_eq!(same.get(4).unwrap(), 12);
    assert_eq!(same.source().len(), 5);
}

#[test]
fn map_takes_any_transform() {
    struct Offset(usize);
    impl Transform<usize> for Offset {
        type Output = usize;
        fn apply(&self, x: usize) -> Result<usize> {
            if x == 2 {
                Err(Error::invalid("x", "two"))
            } else {
                Ok(x + self.0)
            }
        }
    }
    let ds = Numbers::new(4).map(Offset(100));
    assert_eq!(samples(&ds), [Ok(100), Ok(101), Err(2), Ok(103)]);
    match ds.get(2) {
        Err(Error::Pipe {
            adaptor,
            index,
            cause,
        }) => {
            assert_eq!((adaptor, index), ("map", 2));
            let inner = cause.downcast_ref::<Error>().expect("an adl error");
            assert!(matches!(inner, Error::InvalidParameter { .. }));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn try_map_errors_carry_the_index_and_source_errors_pass_unchanged() {
    let half = |x: usize| {
        if x.is_multiple_of(2) {
            Ok(x / 2)
        } else {
            Err(Error::invalid("x", format!("{x} is odd")))
        }
    };
    let ds = Numbers::failing(5, &[2]).try_map(half);
    assert_eq!(samples(&ds), [Ok(0), Err(1), Err(2), Err(3), Ok(2)]);
    assert!(matches!(ds.get(2), Err(Error::Load { index: 2, .. })));
    assert!(matches!(
        ds.get(3),
        Err(Error::Pipe {
            adaptor: "map",
            index: 3,
            ..
        })
    ));
    let message = format!("{:#}", ds.get(3).unwrap_err());
    assert!(
        message.contains("item 3") && message.contains("3 is odd"),
        "{message}"
    );

    let stream = Stream::failing(5, &[2]).try_map(half);
    assert_eq!(stream.len(), None);
    assert_eq!(outcomes(&stream), [Ok(0), Err(1), Err(2), Err(3), Ok(2)]);
}

// ------------------------------------------------------------------ filter

#[test]
fn filter_is_iterable_with_unknown_length() {
    let odd = Numbers::new(7).filter(|x: &usize| x % 2 == 1);
    assert_eq!(odd.len(), None);
    assert_eq!(ok_items(&odd), [1, 3, 5]);
    let none = Numbers::new(7).filter(|_: &usize| false);
    assert_eq!(ok_items(&none), Vec::<usize>::new());
    assert_eq!(Numbers::new(0).filter(|_: &usize| true).len(), Some(0));
    assert_eq!(Stream::new(0).filter(|_: &usize| true).len(), None);
    assert_eq!(ok_items(&Stream::new(6).filter(|x: &usize| *x > 3)), [4, 5]);
}

#[test]
fn filter_passes_errors_through() {
    let odd = Numbers::failing(7, &[2, 3]).filter(|x: &usize| x % 2 == 1);
    assert_eq!(outcomes(&odd), [Ok(1), Err(2), Err(3), Ok(5)]);
}

// ----------------------------------------------------------------- shuffle

#[test]
fn buffered_shuffle_is_a_seeded_permutation() {
    let ds = Numbers::new(50).shuffle(8, 1).unwrap();
    assert_eq!(ds.len(), Some(50));
    let once = ok_items(&ds);
    assert_eq!(once, ok_items(&ds), "the same seed gives the same order");
    assert_ne!(once, (0..50).collect::<Vec<_>>());
    let mut sorted = once.clone();
    sorted.sort();
    assert_eq!(sorted, (0..50).collect::<Vec<_>>());
    let other = ok_items(&Numbers::new(50).shuffle(8, 2).unwrap());
    assert_ne!(once, other, "another seed gives another order");
    // Only the seed matters, not the instance.
    assert_eq!(once, ok_items(&Numbers::new(50).shuffle(8, 1).unwrap()));
    let reseeded = Numbers::new(50).shuffle(8, 2).unwrap().with_seed(1);
    assert_eq!((reseeded.seed(), reseeded.buffer()), (1, 8));
    assert_eq!(once, ok_items(&reseeded));
}

#[test]
fn shuffle_buffer_bounds_displacement() {
    // With a buffer of b, item i cannot come out before position i - b + 1.
    let order = ok_items(&Numbers::new(100).shuffle(4, 9).unwrap());
    for (position, &item) in order.iter().enumerate() {
        assert!(item <= position + 3, "{item} at {position}");
    }
    // A buffer of 1 keeps the order.
    assert_eq!(
        ok_items(&Numbers::new(10).shuffle(1, 3).unwrap()),
        (0..10).collect::<Vec<_>>()
    );
    // A buffer larger than the stream.
    let mut all = ok_items(&Stream::new(10).shuffle(1000, 3).unwrap());
    all.sort();
    assert_eq!(all, (0..10).collect::<Vec<_>>());
}

#[test]
fn shuffle_edge_cases() {
    assert!(is_invalid(Numbers::new(3).shuffle(0, 1)));
    assert!(is_invalid(Stream::new(3).shuffle(0, 1)));
    assert_eq!(
        ok_items(&Numbers::new(0).shuffle(4, 1).unwrap()),
        Vec::<usize>::new()
    );
    assert_eq!(Stream::new(3).shuffle(2, 1).unwrap().len(), None);
    // Errors are yielded, the other items still all come out.
    let out = outcomes(&Numbers::failing(20, &[5, 6]).shuffle(4, 5).unwrap());
    assert_eq!(out.iter().filter(|r| r.is_err()).count(), 2);
    let mut ok: Vec<usize> = out.into_iter().filter_map(|r| r.ok()).collect();
    ok.sort();
    assert_eq!(
        ok,
        (0..20).filter(|i| *i != 5 && *i != 6).collect::<Vec<_>>()
    );
}

#[test]
fn shuffled_keeps_random_access() {
    let ds = Numbers::new(30).shuffled(11);
    assert_eq!(ds.len(), 30);
    let order: Vec<usize> = (0..30).map(|i| ds.get(i).unwrap()).collect();
    assert_eq!(order, ds.permutation());
    assert_ne!(order, (0..30).collect::<Vec<_>>());
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(sorted, (0..30).collect::<Vec<_>>());
    assert_eq!(order, Numbers::new(30).shuffled(11).permutation());
    assert_ne!(order, Numbers::new(30).shuffled(12).permutation());
    assert!(is_out_of_range(ds.get(30)));
    assert_eq!(Numbers::new(0).shuffled(1).len(), 0);
    assert_eq!(Numbers::new(1).shuffled(1).get(0).unwrap(), 0);
    assert_eq!(ds.seed(), 11);
}

// ------------------------------------------------------------------- batch

#[test]
fn batch_lengths_and_contents() {
    let ds = Numbers::new(7).batch(3).unwrap();
    assert_eq!(ds.len(), 3);
    assert_eq!(ds.size(), 3);
    assert_eq!(ds.get(0).unwrap(), [0, 1, 2]);
    assert_eq!(ds.get(2).unwrap(), [6]);
    assert!(is_out_of_range(ds.get(3)));
    let exact = Numbers::new(7).batch(3).unwrap().drop_last(true);
    assert_eq!(exact.len(), 2);
    assert!(is_out_of_range(exact.get(2)));
    assert_eq!(Numbers::new(6).batch(3).unwrap().drop_last(true).len(), 2);
    assert_eq!(Numbers::new(6).batch(3).unwrap().len(), 2);
}

#[test]
fn batch_larger_than_the_dataset_and_empty() {
    let ds = Numbers::new(3).batch(10).unwrap();
    assert_eq!(ds.len(), 1);
    assert_eq!(ds.get(0).unwrap(), [0, 1, 2]);
    assert_eq!(Numbers::new(3).batch(10).unwrap().drop_last(true).len(), 0);
    assert_eq!(Numbers::new(0).batch(2).unwrap().len(), 0);
    assert!(is_out_of_range(Numbers::new(0).batch(2).unwrap().get(0)));

    let stream = Stream::new(3).batch(10).unwrap();
    assert_eq!(stream.len(), None);
    assert_eq!(ok_items(&stream), [vec![0, 1, 2]]);
    assert!(ok_items(&Stream::new(3).batch(10).unwrap().drop_last(true)).is_empty());
    assert!(ok_items(&Stream::new(0).batch(2).unwrap()).is_empty());
    assert_eq!(Numbers::new(3).iterable().batch(10).unwrap().len(), Some(1));
}

#[test]
fn batch_rejects_zero() {
    assert!(is_invalid(Numbers::new(3).batch(0)));
    assert!(is_invalid(Stream::new(3).batch(0)));
}

#[test]
fn batch_errors_keep_the_batches_aligned() {
    let ds = Numbers::failing(8, &[1, 4]).batch(3).unwrap();
    let expected = [Err(1), Err(4), Ok(vec![6, 7])];
    assert_eq!(samples(&ds), expected);
    let stream = Stream::failing(8, &[1, 4]).batch(3).unwrap();
    assert_eq!(outcomes(&stream), expected);
}

#[test]
fn batch_does_not_read_a_dropped_last_batch() {
    let source = Numbers::new(7);
    let ds = (&source).batch(3).unwrap().drop_last(true);
    let _ = ok_items(&ds.iterable());
    assert_eq!(source.reads(), 6);
}

// ------------------------------------------------------------------- chain

#[test]
fn chain_map_style() {
    let ds = Numbers::new(2).chain(Numbers::new(3)).unwrap();
    assert_eq!(ds.len(), 5);
    assert_eq!(samples(&ds), [Ok(0), Ok(1), Ok(0), Ok(1), Ok(2)]);
    assert!(is_out_of_range(ds.get(5)));
    let empty_first = Numbers::new(0).chain(Numbers::new(2)).unwrap();
    assert_eq!(samples(&empty_first), [Ok(0), Ok(1)]);
    let both_empty = Numbers::new(0).chain(Numbers::new(0)).unwrap();
    assert_eq!(both_empty.len(), 0);
    assert!(is_out_of_range(both_empty.get(0)));
    // Different dataset types with the same sample type.
    let mixed = Numbers::new(1)
        .chain(Numbers::new(2).map(|x: usize| x + 10))
        .unwrap();
    assert_eq!(samples(&mixed), [Ok(0), Ok(10), Ok(11)]);
}

#[test]
fn chain_overflow_is_an_error() {
    struct Huge;
    impl Dataset for Huge {
        type Sample = usize;
        fn len(&self) -> usize {
            usize::MAX
        }
        fn get(&self, i: usize) -> Result<usize> {
            Ok(i)
        }
    }
    assert!(is_invalid(Huge.chain(Numbers::new(1))));
    assert_eq!(
        Huge.iterable().chain(Numbers::new(1).iterable()).len(),
        None
    );
}

#[test]
fn chain_streams() {
    let ds = Stream::new(2).chain(Numbers::new(2).iterable());
    assert_eq!(ds.len(), None);
    assert_eq!(ok_items(&ds), [0, 1, 0, 1]);
    let known = Numbers::new(2).iterable().chain(Numbers::new(3).iterable());
    assert_eq!(known.len(), Some(5));
    assert_eq!(ok_items(&known), [0, 1, 0, 1, 2]);
    let errors = Stream::failing(2, &[1]).chain(Stream::failing(2, &[0]));
    assert_eq!(outcomes(&errors), [Ok(0), Err(1), Err(0), Ok(1)]);
}

// --------------------------------------------------------------------- zip

#[test]
fn zip_map_style() {
    let ds = Numbers::new(3).zip(Numbers::new(5).map(|x: usize| x * 2));
    assert_eq!(ds.len(), 3);
    assert_eq!(ds.get(2).unwrap(), (2, 4));
    assert!(is_out_of_range(ds.get(3)));
    assert_eq!(Numbers::new(0).zip(Numbers::new(5)).len(), 0);
    let failing = Numbers::failing(3, &[1]).zip(Numbers::failing(3, &[2]));
    assert_eq!(samples(&failing), [Ok((0, 0)), Err(1), Err(2)]);
}

#[test]
fn zip_streams() {
    let known = Numbers::new(3).iterable().zip(Numbers::new(5).iterable());
    assert_eq!(known.len(), Some(3));
    assert_eq!(ok_items(&known), [(0, 0), (1, 1), (2, 2)]);
    let unknown = Stream::new(3).zip(Numbers::new(5).iterable());
    assert_eq!(unknown.len(), None);
    assert_eq!(ok_items(&unknown).len(), 3);
    assert_eq!(
        Stream::new(3).zip(Numbers::new(0).iterable()).len(),
        Some(0)
    );
    let failing = Stream::failing(4, &[1]).zip(Stream::failing(4, &[2]));
    assert_eq!(outcomes(&failing), [Ok((0, 0)), Err(1), Err(2), Ok((3, 3))]);
}

// --------------------------------------------------------------- enumerate

#[test]
fn enumerate_both_styles() {
    let ds = Numbers::new(3).map(|x: usize| x * 7).enumerate();
    assert_eq!(ds.len(), 3);
    assert_eq!(ds.get(2).unwrap(), (2, 14));
    let stream = Stream::failing(4, &[1])
        .filter(|x: &usize| *x != 2)
        .enumerate();
    // Positions count every item of the filtered stream, errors included.
    assert_eq!(outcomes(&stream), [Ok((0, 0)), Err(1), Ok((2, 3))]);
    assert!(ok_items(&Numbers::new(0).iterable().enumerate()).is_empty());
}

// -------------------------------------------------------------- take, skip

#[test]
fn take_lengths() {
    assert_eq!(Numbers::new(10).take(3).len(), 3);
    assert_eq!(Numbers::new(2).take(3).len(), 2);
    assert_eq!(Numbers::new(0).take(3).len(), 0);
    let ds = Numbers::new(10).take(3);
    assert_eq!(samples(&ds), [Ok(0), Ok(1), Ok(2)]);
    assert!(is_out_of_range(ds.get(3)));
    assert_eq!(Numbers::new(10).iterable().take(3).len(), Some(3));
    assert_eq!(Stream::new(10).take(3).len(), None);
    assert_eq!(Stream::new(10).take(0).len(), Some(0));
    assert_eq!(ok_items(&Stream::new(10).take(3)), [0, 1, 2]);
    assert_eq!(ok_items(&Stream::new(2).take(3)), [0, 1]);
    assert_eq!(outcomes(&Stream::failing(5, &[1]).take(2)), [Ok(0), Err(1)]);
}

#[test]
fn take_stops_reading() {
    let source = Numbers::new(100);
    let _ = ok_items(&(&source).iterable().take(3));
    assert_eq!(source.reads(), 3);
}

#[test]
fn skip_lengths_and_no_reads() {
    let ds = Numbers::new(5).skip(3);
    assert_eq!(ds.len(), 2);
    assert_eq!(samples(&ds), [Ok(3), Ok(4)]);
    assert!(is_out_of_range(ds.get(2)));
    assert_eq!(Numbers::new(2).skip(3).len(), 0);
    assert!(is_out_of_range(Numbers::new(2).skip(3).get(0)));
    assert_eq!(Numbers::new(5).skip(usize::MAX).len(), 0);
    assert_eq!(Numbers::new(5).iterable().skip(3).len(), Some(2));
    assert_eq!(Stream::new(5).skip(3).len(), None);
    assert_eq!(ok_items(&Stream::new(5).skip(3)), [3, 4]);
    assert!(ok_items(&Stream::new(2).skip(3)).is_empty());
    // Skipped errors are skipped like the other items.
    assert_eq!(
        outcomes(&Stream::failing(5, &[1, 3]).skip(2)),
        [Ok(2), Err(3), Ok(4)]
    );

    let source = Numbers::new(100);
    let rest = ok_items(&(&source).iterable().skip(97));
    assert_eq!(rest, [97, 98, 99]);
    assert_eq!(source.reads(), 3, "skipped samples are not read");
}

// ------------------------------------------------------------------ window

#[test]
fn window_lengths() {
    let ds = Numbers::new(5).window(2, 1).unwrap();
    assert_eq!(ds.len(), 4);
    assert_eq!(ds.get(0).unwrap(), [0, 1]);
    assert_eq!(ds.get(3).unwrap(), [3, 4]);
    assert!(is_out_of_range(ds.get(4)));
    let strided = Numbers::new(8).window(3, 2).unwrap();
    assert_eq!(strided.len(), 3);
    assert_eq!(
        samples(&strided),
        [Ok(vec![0, 1, 2]), Ok(vec![2, 3, 4]), Ok(vec![4, 5, 6])]
    );
    let gaps = Numbers::new(10).window(2, 4).unwrap();
    assert_eq!(
        samples(&gaps),
        [Ok(vec![0, 1]), Ok(vec![4, 5]), Ok(vec![8, 9])]
    );
    assert_eq!(Numbers::new(2).window(3, 1).unwrap().len(), 0);
    assert_eq!(Numbers::new(3).window(3, 1).unwrap().len(), 1);
    assert_eq!(Numbers::new(0).window(1, 1).unwrap().len(), 0);
    assert_eq!(
        Numbers::new(8).iterable().window(3, 2).unwrap().len(),
        Some(3)
    );
    assert_eq!(Stream::new(8).window(3, 2).unwrap().len(), None);
}

#[test]
fn window_rejects_zero() {
    assert!(is_invalid(Numbers::new(3).window(0, 1)));
    assert!(is_invalid(Numbers::new(3).window(2, 0)));
    assert!(is_invalid(Stream::new(3).window(0, 1)));
    assert!(is_invalid(Stream::new(3).window(1, 0)));
}

#[test]
fn window_streams_match_map_style() {
    for len in 0..12 {
        for size in 1..5 {
            for step in 1..5 {
                let map_style = samples(&Numbers::new(len).window(size, step).unwrap());
                let stream = outcomes(&Stream::new(len).window(size, step).unwrap());
                assert_eq!(map_style, stream, "len {len} size {size} step {step}");
                let known = Numbers::new(len).iterable().window(size, step).unwrap();
                assert_eq!(known.len(), Some(map_style.len()));
            }
        }
    }
}

#[test]
fn window_errors_are_accounted_for_in_every_window() {
    let map_style = Numbers::failing(6, &[2]).window(3, 1).unwrap();
    let expected = [Err(2), Err(2), Err(2), Ok(vec![3, 4, 5])];
    assert_eq!(samples(&map_style), expected);
    let stream = Stream::failing(6, &[2]).window(3, 1).unwrap();
    let items: Vec<_> = stream.iter().collect();
    assert_eq!(items.len(), 4);
    assert!(matches!(items[0], Err(Error::Load { index: 2, .. })));
    for later in &items[1..3] {
        match later {
            Err(Error::Pipe {
                adaptor: "window",
                index: 2,
                cause,
            }) => assert!(cause.to_string().contains("corrupt item")),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(outcomes(&stream), expected);
}

#[test]
fn strided_windows_do_not_read_the_gaps() {
    let source = Numbers::new(10);
    let windows = ok_items(&(&source).iterable().window(2, 4).unwrap());
    assert_eq!(windows, [vec![0, 1], vec![4, 5], vec![8, 9]]);
    assert_eq!(source.reads(), 6);
}

// ------------------------------------------------------------------- cache

#[test]
fn cache_reads_each_sample_once() {
    let source = Numbers::new(4);
    let ds = (&source).cache();
    assert_eq!(ds.len(), 4);
    assert_eq!(ds.cached(), 0);
    for _ in 0..3 {
        assert_eq!(samples(&ds), [Ok(0), Ok(1), Ok(2), Ok(3)]);
    }
    assert_eq!(source.reads(), 4);
    assert_eq!(ds.cached(), 4);
    assert!(is_out_of_range(ds.get(4)));
    assert_eq!(Numbers::new(0).cache().len(), 0);
    assert!(is_out_of_range(Numbers::new(0).cache().get(0)));
}

#[test]
fn cache_is_thread_safe() {
    let source = Numbers::new(64);
    let ds = (&source).map(|x: usize| x * 2).cache();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for i in 0..64 {
                    assert_eq!(ds.get(i).unwrap(), 2 * i);
                }
            });
        }
    });
    assert_eq!(ds.cached(), 64);
    // Concurrent first reads may read a sample twice, never more often
    // than there are threads.
    assert!((64..=256).contains(&source.reads()));
}

#[test]
fn cache_does_not_keep_errors() {
    /// Fails the first read of each index.
    struct Flaky(Mutex<Vec<usize>>);
    impl Dataset for Flaky {
        type Sample = usize;
        fn len(&self) -> usize {
            3
        }
        fn get(&self, i: usize) -> Result<usize> {
            let mut seen = self.0.lock().unwrap();
            if seen.contains(&i) {
                Ok(i)
            } else {
                seen.push(i);
                Err(Error::invalid("flaky", "first read fails"))
            }
        }
    }
    let ds = Flaky(Mutex::new(Vec::new())).cache();
    assert!(ds.get(1).is_err());
    assert_eq!(ds.cached(), 0);
    assert_eq!(ds.get(1).unwrap(), 1);
    assert_eq!(ds.cached(), 1);
}

#[test]
fn cached_streams_replay_a_complete_pass() {
    let source = Numbers::new(5);
    let ds = (&source).iterable().cache();
    assert_eq!(ds.len(), Some(5));
    // A pass stopped early keeps nothing.
    assert_eq!(ds.iter().take(2).count(), 2);
    assert_eq!(ds.cached(), 0);
    assert_eq!(ok_items(&ds), [0, 1, 2, 3, 4]);
    assert_eq!(ds.cached(), 5);
    let reads = source.reads();
    assert_eq!(ok_items(&ds), [0, 1, 2, 3, 4]);
    assert_eq!(source.reads(), reads, "replayed without reading");

    // An unknown length becomes known once a pass is kept.
    let filtered = Stream::new(6)
        .filter(|x: &usize| x.is_multiple_of(3))
        .cache();
    assert_eq!(filtered.len(), None);
    assert_eq!(ok_items(&filtered), [0, 3]);
    assert_eq!(filtered.len(), Some(2));

    // A pass with an error keeps nothing.
    let failing = Stream::failing(3, &[1]).cache();
    assert_eq!(outcomes(&failing), [Ok(0), Err(1), Ok(2)]);
    assert_eq!(failing.cached(), 0);
    assert_eq!(outcomes(&failing), [Ok(0), Err(1), Ok(2)]);
}

// --------------------------------------------------------------- with_meta

#[test]
fn with_meta_adds_meta_and_a_samples_own_wins() {
    struct Maps;
    impl Dataset for Maps {
        type Sample = HashMap<String, i32>;
        fn len(&self) -> usize {
            2
        }
        fn get(&self, i: usize) -> Result<Self::Sample> {
            let mut m = HashMap::from([("x".to_owned(), i as i32)]);
            if i == 1 {
                m.insert("meta".to_owned(), -1);
            }
            Ok(m)
        }
    }
    let ds = Maps.with_meta(7);
    assert_eq!(ds.len(), 2);
    assert_eq!(*ds.meta(), 7);
    assert_eq!(
        ds.get(0).unwrap(),
        HashMap::from([("x".into(), 0), ("meta".into(), 7)])
    );
    assert_eq!(ds.get(1).unwrap()["meta"], -1);
    let stream = Maps.iterable().with_meta(7);
    assert_eq!(stream.len(), Some(2));
    let items = ok_items(&stream);
    assert_eq!((items[0]["meta"], items[1]["meta"]), (7, -1));
}

#[test]
fn with_meta_on_records_and_btreemaps() {
    struct Records;
    impl Dataset for Records {
        type Sample = Record<String>;
        fn len(&self) -> usize {
            2
        }
        fn get(&self, i: usize) -> Result<Self::Sample> {
            let names: Vec<String> = if i == 0 {
                vec!["imu".into(), "gps".into()]
            } else {
                vec!["imu".into(), "meta".into()]
            };
            Record::new(names.into(), vec![format!("a{i}"), format!("b{i}")])
        }
    }
    let ds = Records.with_meta("trace-1".to_owned());
    let first = ds.get(0).unwrap();
    assert_eq!(first.names(), ["meta", "imu", "gps"]);
    assert_eq!(first["meta"], "trace-1");
    assert_eq!(first["gps"], "b0");
    let second = ds.get(1).unwrap();
    // The sample's own "meta" wins, and moves first, as in Python's
    // `{"meta": meta, **sample}`.
    assert_eq!(second.names(), ["meta", "imu"]);
    assert_eq!(second["meta"], "b1");
    assert_eq!(second["imu"], "a1");

    let tree = Stream::new(2)
        .map(|i: usize| BTreeMap::from([("i".to_owned(), i)]))
        .with_meta(99);
    let items = ok_items(&tree);
    assert_eq!(
        items[1],
        BTreeMap::from([("i".into(), 1), ("meta".into(), 99)])
    );
}

// ---------------------------------------------------------------- laziness

#[test]
fn nothing_is_read_before_iteration_starts() {
    let source = Numbers::new(40);
    let map_style = (&source)
        .map(|x: usize| x + 1)
        .skip(1)
        .take(30)
        .shuffled(3)
        .zip((&source).enumerate())
        .window(3, 1)
        .unwrap()
        .cache()
        .batch(2)
        .unwrap();
    let stream = (&source)
        .filter(|x: &usize| x.is_multiple_of(2))
        .map(|x: usize| x * 2)
        .chain((&source).iterable())
        .flat_map(|x: usize| Ok(vec![x, x]))
        .shuffle(5, 1)
        .unwrap()
        .enumerate()
        .skip(2)
        .take(20)
        .window(2, 1)
        .unwrap()
        .batch(3)
        .unwrap()
        .cache()
        .zip(Stream::new(100));
    assert!(map_style.len() > 0);
    assert_eq!(stream.len(), None);
    let mut iter = stream.iter();
    assert_eq!(source.reads(), 0, "building and iter() read nothing");
    assert!(iter.next().unwrap().is_ok());
    assert!(source.reads() > 0);
    let reads = source.reads();
    assert!(map_style.get(0).is_ok());
    assert!(source.reads() > reads);
}

// --------------------------------------- map-style and iterable agree

#[test]
fn map_style_and_iterable_versions_agree() {
    let fail: &[usize] = &[3, 8];
    let ds = || Numbers::failing(13, fail);
    let st = || Stream::failing(13, fail);
    assert_eq!(
        samples(&ds().map(|x: usize| x + 1)),
        outcomes(&st().map(|x: usize| x + 1))
    );
    assert_eq!(
        samples(&ds().batch(4).unwrap()),
        outcomes(&st().batch(4).unwrap())
    );
    assert_eq!(
        samples(&ds().batch(4).unwrap().drop_last(true)),
        outcomes(&st().batch(4).unwrap().drop_last(true))
    );
    assert_eq!(samples(&ds().enumerate()), outcomes(&st().enumerate()));
    assert_eq!(samples(&ds().take(5)), outcomes(&st().take(5)));
    assert_eq!(samples(&ds().skip(5)), outcomes(&st().skip(5)));
    assert_eq!(
        samples(&ds().window(4, 3).unwrap()),
        outcomes(&st().window(4, 3).unwrap())
    );
    assert_eq!(samples(&ds().zip(ds())), outcomes(&st().zip(st())));
    assert_eq!(
        samples(&ds().chain(ds()).unwrap()),
        outcomes(&st().chain(st()))
    );
    assert_eq!(samples(&ds().cache()), outcomes(&st().cache()));
    // And iterating a map-style adaptor gives its samples in order.
    let batches = ds().batch(4).unwrap();
    assert_eq!(samples(&batches), outcomes(&batches.iterable()));
}

#[test]
fn a_failed_read_keeps_its_place_in_the_shuffled_order() {
    let clean: Vec<_> = outcomes(&Stream::new(40).shuffle(8, 3).unwrap());
    let failing: Vec<_> = outcomes(&Stream::failing(40, &[5, 17]).shuffle(8, 3).unwrap());
    // Same order; the failed reads stand where their items would have.
    let as_index = |o: &std::result::Result<usize, usize>| match o {
        Ok(i) | Err(i) => *i,
    };
    assert_eq!(
        clean.iter().map(as_index).collect::<Vec<_>>(),
        failing.iter().map(as_index).collect::<Vec<_>>()
    );
    assert_eq!(failing.iter().filter(|o| o.is_err()).count(), 2);
}

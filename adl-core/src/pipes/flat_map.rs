//! [`FlatMap`]: each source item mapped to zero or more items, with an
//! error policy and a worker split.

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{IterableDataset, pipe_error};
use crate::{Error, OnError, Result};

/// How many source items a [`FlatMap`] skipped under [`OnError::Skip`],
/// by where they failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SkipCounts {
    /// Items that the source could not read.
    pub source: usize,
    /// Items for which the function returned an error.
    pub function: usize,
}

impl SkipCounts {
    /// All skipped items.
    pub fn total(&self) -> usize {
        self.source + self.function
    }
}

/// Each source item mapped to zero or more items:
/// [`flat_map`](super::DatasetExt::flat_map), the `FlatMapDataset` of
/// PyTorch practice.
///
/// The function is `Fn(Item) -> Result<U>` with `U: IntoIterator`; its
/// items are yielded in order, source item by source item. An item that
/// fails, in the source or in the function, is handled by the [`OnError`]
/// policy: propagated as an `Err` item (the default; a function error is an
/// [`Error::Pipe`] `"flat_map"` with the source index, a source error passes
/// unchanged), or skipped, counted ([`skipped`](FlatMap::skipped)) and
/// logged with `log::warn!` naming the source index and the message.
///
/// Split across workers with [`shard`](FlatMap::shard): every source item
/// is processed by exactly one worker.
///
/// Length: `None`, since how many items each source item gives is not
/// known without reading; `Some(0)` only for a source known to be empty.
///
/// ```
/// use adl::OnError;
/// use adl::pipes::{DatasetExt, IterableDataset};
/// use adl::{Error, Result};
/// use adl::Dataset;
/// struct Numbers(usize);
/// impl Dataset for Numbers {
///     type Sample = usize;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
/// }
///
/// // Item n gives n copies of itself; item 2 cannot be processed.
/// let copies = Numbers(4)
///     .flat_map(|n: usize| {
///         if n == 2 { Err(Error::invalid("n", "two is bad")) } else { Ok(vec![n; n]) }
///     })
///     .on_error(OnError::Skip);
/// assert_eq!(copies.iter().collect::<Result<Vec<_>>>()?, [1, 3, 3, 3]);
/// assert_eq!(copies.skipped().function, 1);
/// # Ok::<(), adl::Error>(())
/// ```
pub struct FlatMap<S, F> {
    source: S,
    function: F,
    policy: OnError,
    counters: Counters,
}

#[derive(Debug, Default)]
struct Counters {
    source: AtomicUsize,
    function: AtomicUsize,
}

impl<S, F> std::fmt::Debug for FlatMap<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlatMap")
            .field("policy", &self.policy)
            .field("skipped", &self.skipped())
            .finish_non_exhaustive()
    }
}

impl<S, F> FlatMap<S, F> {
    /// `function` applied to every item of `source`, its outputs flattened.
    /// Errors are propagated until [`on_error`](FlatMap::on_error) says
    /// otherwise.
    pub fn new(source: S, function: F) -> Self {
        FlatMap {
            source,
            function,
            policy: OnError::Fail,
            counters: Counters::default(),
        }
    }

    /// Set the error policy.
    pub fn on_error(mut self, policy: OnError) -> Self {
        self.policy = policy;
        self
    }

    /// The error policy.
    pub fn policy(&self) -> OnError {
        self.policy
    }

    /// How many source items were skipped so far, over all passes and all
    /// shards (thread-safe).
    pub fn skipped(&self) -> SkipCounts {
        SkipCounts {
            source: self.counters.source.load(Ordering::Relaxed),
            function: self.counters.function.load(Ordering::Relaxed),
        }
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// Worker `worker`'s share of the work, out of `num_workers`: the
    /// source items at positions `worker`, `worker + num_workers`,
    /// `worker + 2 * num_workers`, ... Over all workers, every source item
    /// is processed by exactly one, so the shards' outputs together are the
    /// whole output (each shard in source order). A map-style source is
    /// read only at the shard's positions; an iterable one is read by every
    /// worker, but only the shard's items go through the function.
    ///
    /// Skips are counted in this `FlatMap`'s [`skipped`](FlatMap::skipped),
    /// shared by all shards.
    ///
    /// `num_workers == 0` or `worker >= num_workers` is an
    /// [`Error::InvalidParameter`].
    ///
    /// ```
    /// use adl::pipes::{DatasetExt, IterableDataset};
    /// use adl::{Dataset, Result};
    /// struct Numbers(usize);
    /// impl Dataset for Numbers {
    ///     type Sample = usize;
    ///     fn len(&self) -> usize { self.0 }
    ///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
    /// }
    /// let pairs = Numbers(5).flat_map(|n: usize| Ok([10 * n, 10 * n + 1]));
    /// let first = pairs.shard(0, 2)?.iter().collect::<Result<Vec<_>>>()?;
    /// let second = pairs.shard(1, 2)?.iter().collect::<Result<Vec<_>>>()?;
    /// assert_eq!(first, [0, 1, 20, 21, 40, 41]);
    /// assert_eq!(second, [10, 11, 30, 31]);
    /// assert!(pairs.shard(2, 2).is_err());
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn shard(&self, worker: usize, num_workers: usize) -> Result<FlatMapShard<S, F, &Self>> {
        FlatMapShard::new(self, worker, num_workers)
    }

    /// All `num_workers` shards, each owning a handle to this flat map (an
    /// `Arc`): shards that can move to threads of their own, where
    /// [`shard`](FlatMap::shard)'s borrow the flat map. Their skip counts
    /// are shared.
    ///
    /// ```
    /// use adl::pipes::{DatasetExt, IterableDataset};
    /// use adl::{Dataset, Result};
    /// struct Numbers(usize);
    /// impl Dataset for Numbers {
    ///     type Sample = usize;
    ///     fn len(&self) -> usize { self.0 }
    ///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
    /// }
    /// let pairs = Numbers(5).flat_map(|n: usize| Ok([10 * n, 10 * n + 1]));
    /// let threads: Vec<_> = pairs
    ///     .into_shards(2)?
    ///     .into_iter()
    ///     .map(|shard| std::thread::spawn(move || shard.iter().collect::<Result<Vec<_>>>()))
    ///     .collect();
    /// let parts: Vec<Vec<usize>> = threads.into_iter().map(|t| t.join().unwrap()).collect::<Result<_>>()?;
    /// assert_eq!(parts, [vec![0, 1, 20, 21, 40, 41], vec![10, 11, 30, 31]]);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn into_shards(self, num_workers: usize) -> Result<Vec<FlatMapShard<S, F, Arc<Self>>>> {
        Error::nonzero("num_workers", num_workers)?;
        let shared = Arc::new(self);
        (0..num_workers)
            .map(|worker| FlatMapShard::new(Arc::clone(&shared), worker, num_workers))
            .collect()
    }

    fn pass<'a, U>(&'a self, first: usize, step: usize) -> FlatMapIter<'a, S, F, U>
    where
        S: IterableDataset,
        F: Fn(S::Item) -> Result<U>,
        U: IntoIterator,
    {
        FlatMapIter {
            inner: self.source.iter(),
            function: &self.function,
            policy: self.policy,
            counters: &self.counters,
            skip: first,
            step,
            position: 0,
            current: None,
            done: false,
        }
    }
}

impl<S, F, U> IterableDataset for FlatMap<S, F>
where
    S: IterableDataset,
    F: Fn(S::Item) -> Result<U>,
    U: IntoIterator,
{
    type Item = U::Item;
    type Iter<'a>
        = FlatMapIter<'a, S, F, U>
    where
        Self: 'a;

    fn iter(&self) -> FlatMapIter<'_, S, F, U> {
        self.pass(0, 1)
    }

    fn len(&self) -> Option<usize> {
        match self.source.len() {
            Some(0) => Some(0),
            _ => None,
        }
    }
}

/// One worker's share of a [`FlatMap`]: [`FlatMap::shard`] (borrowing
/// the flat map, `P = &FlatMap<S, F>`) or [`FlatMap::into_shards`]
/// (owning a handle to it, `P = Arc<FlatMap<S, F>>`).
///
/// Length: `Some(0)` when the source is known to have no item at this
/// worker's positions, otherwise `None`.
pub struct FlatMapShard<S, F, P> {
    parent: P,
    worker: usize,
    num_workers: usize,
    /// The flat map's types (`P` points at a `FlatMap<S, F>`).
    types: PhantomData<fn() -> (S, F)>,
}

impl<S, F, P: std::fmt::Debug> std::fmt::Debug for FlatMapShard<S, F, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlatMapShard")
            .field("worker", &self.worker)
            .field("num_workers", &self.num_workers)
            .field("parent", &self.parent)
            .finish()
    }
}

impl<S, F, P> FlatMapShard<S, F, P> {
    fn new(parent: P, worker: usize, num_workers: usize) -> Result<Self> {
        Error::nonzero("num_workers", num_workers)?;
        if worker >= num_workers {
            return Err(Error::invalid(
                "worker",
                format!(
                    "{worker} is not below num_workers = {num_workers}; workers are numbered 0..num_workers"
                ),
            ));
        }
        Ok(FlatMapShard {
            parent,
            worker,
            num_workers,
            types: PhantomData,
        })
    }

    /// This worker's number, in `0..num_workers`.
    pub fn worker(&self) -> usize {
        self.worker
    }

    /// How many workers share the source.
    pub fn num_workers(&self) -> usize {
        self.num_workers
    }
}

impl<S, F, P: Deref<Target = FlatMap<S, F>>> FlatMapShard<S, F, P> {
    /// The skips of the whole [`FlatMap`], all shards together.
    pub fn skipped(&self) -> SkipCounts {
        self.parent.skipped()
    }
}

impl<S, F, U, P> IterableDataset for FlatMapShard<S, F, P>
where
    S: IterableDataset,
    F: Fn(S::Item) -> Result<U>,
    U: IntoIterator,
    P: Deref<Target = FlatMap<S, F>>,
{
    type Item = U::Item;
    type Iter<'b>
        = FlatMapIter<'b, S, F, U>
    where
        Self: 'b;

    fn iter(&self) -> FlatMapIter<'_, S, F, U> {
        self.parent.pass(self.worker, self.num_workers)
    }

    fn len(&self) -> Option<usize> {
        match self.parent.source.len() {
            Some(n) if n <= self.worker => Some(0),
            _ => None,
        }
    }
}

/// The iterator of a [`FlatMap`] or of one of its shards.
pub struct FlatMapIter<'a, S: IterableDataset + 'a, F, U: IntoIterator> {
    inner: S::Iter<'a>,
    function: &'a F,
    policy: OnError,
    counters: &'a Counters,
    /// Source items to step over before the next one to process.
    skip: usize,
    /// Distance between two processed source items.
    step: usize,
    /// Stream position of the next item of `inner`.
    position: usize,
    current: Option<U::IntoIter>,
    done: bool,
}

impl<'a, S, F, U> Iterator for FlatMapIter<'a, S, F, U>
where
    S: IterableDataset + 'a,
    F: Fn(S::Item) -> Result<U>,
    U: IntoIterator,
{
    type Item = Result<U::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(items) = &mut self.current {
                if let Some(item) = items.next() {
                    return Some(Ok(item));
                }
                self.current = None;
            }
            if self.done {
                return None;
            }
            let index = self.position.saturating_add(self.skip);
            let Some(item) = self.inner.nth(self.skip) else {
                self.done = true;
                return None;
            };
            self.position = index.saturating_add(1);
            self.skip = self.step - 1;
            let (in_function, error) = match item {
                Ok(item) => match (self.function)(item) {
                    Ok(items) => {
                        self.current = Some(items.into_iter());
                        continue;
                    }
                    Err(e) => (true, e),
                },
                Err(e) => (false, e),
            };
            match self.policy {
                OnError::Fail if in_function => {
                    return Some(Err(pipe_error("flat_map", index, error)));
                }
                OnError::Fail => return Some(Err(error)),
                OnError::Skip => {
                    let (counter, stage) = if in_function {
                        (&self.counters.function, "the function failed")
                    } else {
                        (&self.counters.source, "the source could not read it")
                    };
                    counter.fetch_add(1, Ordering::Relaxed);
                    log::warn!("flat_map: skipped source item {index} ({stage}): {error:#}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Mutex, Once};

    use super::*;
    use crate::pipes::IterableExt;

    /// Keeps every warning logged.
    struct Capture(Mutex<Vec<String>>);

    impl log::Log for Capture {
        fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
            metadata.level() <= log::Level::Warn
        }
        fn log(&self, record: &log::Record<'_>) {
            if self.enabled(record.metadata()) {
                self.0.lock().unwrap().push(record.args().to_string());
            }
        }
        fn flush(&self) {}
    }

    static CAPTURE: Capture = Capture(Mutex::new(Vec::new()));

    fn warnings_containing(marker: &str) -> Vec<String> {
        static INIT: Once = Once::new();
        INIT.call_once(|| {
            log::set_logger(&CAPTURE).expect("no other logger in this test binary");
            log::set_max_level(log::LevelFilter::Warn);
        });
        CAPTURE
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.contains(marker))
            .cloned()
            .collect()
    }

    /// A stream whose items at `fail` cannot be read.
    struct Items(Vec<Result<u32, &'static str>>);

    impl IterableDataset for Items {
        type Item = u32;
        type Iter<'a> = std::vec::IntoIter<Result<u32>>;
        fn iter(&self) -> Self::Iter<'_> {
            self.0
                .iter()
                .map(|r| r.map_err(|m| Error::invalid("item", m)))
                .collect::<Vec<_>>()
                .into_iter()
        }
        fn len(&self) -> Option<usize> {
            Some(self.0.len())
        }
    }

    #[test]
    fn skips_are_logged_with_index_and_message() {
        warnings_containing("");
        let source = Items(vec![Ok(1), Err("unreadable-7f3a"), Ok(2), Ok(3)]);
        let ds = source
            .flat_map(|x: u32| {
                if x == 2 {
                    Err(Error::invalid("x", "function-failure-7f3a"))
                } else {
                    Ok([x])
                }
            })
            .on_error(OnError::Skip);
        let out: Vec<u32> = ds.iter().collect::<Result<_>>().unwrap();
        assert_eq!(out, [1, 3]);
        assert_eq!(
            ds.skipped(),
            SkipCounts {
                source: 1,
                function: 1
            }
        );
        let source_logs = warnings_containing("unreadable-7f3a");
        assert_eq!(source_logs.len(), 1);
        assert!(
            source_logs[0].contains("source item 1"),
            "{}",
            source_logs[0]
        );
        let function_logs = warnings_containing("function-failure-7f3a");
        assert_eq!(function_logs.len(), 1);
        assert!(
            function_logs[0].contains("source item 2"),
            "{}",
            function_logs[0]
        );
    }

    #[test]
    fn propagated_errors_are_not_logged() {
        let ds = Items(vec![Err("propagated-91c2")]).flat_map(|x: u32| Ok([x]));
        assert!(ds.iter().next().unwrap().is_err());
        assert!(warnings_containing("propagated-91c2").is_empty());
        assert_eq!(ds.skipped().total(), 0);
    }

    #[test]
    fn debug_shows_policy_and_counts() {
        let ds = Items(vec![])
            .flat_map(|x: u32| Ok([x]))
            .on_error(OnError::Skip);
        let text = format!("{:?}", ds.shard(0, 2).unwrap());
        assert!(
            text.contains("Skip") && text.contains("num_workers: 2"),
            "{text}"
        );
    }
}

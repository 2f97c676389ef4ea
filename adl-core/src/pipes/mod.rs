//! Lazy dataset adaptors in the style of DataPipes and std iterators.
//!
//! # Two styles of dataset
//!
//! - **Map-style** datasets have random access: the [`Dataset`](crate::Dataset) trait,
//!   `len()` and `get(index)`.
//! - **Iterable-style** datasets are streams: the [`IterableDataset`] trait,
//!   `iter()` yielding `Result<Item>` and `len()` returning `Option<usize>`.
//!
//! Every map-style dataset is usable as an iterable one through
//! [`DatasetExt::iterable`] (or [`DatasetExt::iter`] for its iterator), and
//! the adaptors that need a stream ([`filter`](DatasetExt::filter),
//! [`flat_map`](DatasetExt::flat_map), [`shuffle`](DatasetExt::shuffle))
//! do that wrapping themselves. There is deliberately no blanket
//! `impl IterableDataset for D: Dataset`: with one, every adaptor would need
//! two types (one per style) and calling `.map(…)` on a map-style dataset
//! would be ambiguous between the two extension traits. Instead each
//! adaptor that can keep random access is **one type implementing both
//! traits**: [`Dataset`](crate::Dataset) when its source is map-style, [`IterableDataset`]
//! when its source is iterable (the style of rayon's `Map`, which is indexed
//! when its base is).
//!
//! # The functional API
//!
//! [`DatasetExt`] (for every [`Dataset`](crate::Dataset)) and [`IterableExt`] (for every
//! [`IterableDataset`]) chain adaptors:
//!
//! ```
//! use adl::pipes::{DatasetExt, IterableDataset, IterableExt};
//! use adl::{Dataset, Result};
//!
//! struct Numbers(usize);
//! impl Dataset for Numbers {
//!     type Sample = usize;
//!     fn len(&self) -> usize { self.0 }
//!     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
//! }
//!
//! // Map-style all the way: random access and an exact length.
//! let squares = Numbers(10).map(|x: usize| x * x).batch(4)?;
//! assert_eq!(squares.len(), 3);
//! assert_eq!(squares.get(2)?, vec![64, 81]);
//!
//! // `filter` makes a stream, whose length is unknown.
//! let even = Numbers(10).filter(|x: &usize| x % 2 == 0).batch(2)?;
//! assert_eq!(even.len(), None);
//! let batches: Vec<Vec<usize>> = even.iter().collect::<Result<_>>()?;
//! assert_eq!(batches, [vec![0, 2], vec![4, 6], vec![8]]);
//! # Ok::<(), adl::Error>(())
//! ```
//!
//! # Adaptors and their lengths
//!
//! A length is exact where it is known and `None` where it is not, never a
//! guess. `L` is the source's length; for an iterable source whose length
//! is `None`, the result's is `None` unless the table says otherwise.
//!
//! | method | map-style source gives | length |
//! |---|---|---|
//! | [`map`](DatasetExt::map), [`try_map`](DatasetExt::try_map) | map-style [`Map`] | `L` |
//! | [`filter`](DatasetExt::filter) | iterable [`Filter`] | `None` (`Some(0)` for a source known to be empty) |
//! | [`flat_map`](DatasetExt::flat_map) | iterable [`FlatMap`] | `None` (`Some(0)` for a source known to be empty) |
//! | [`shuffle`](DatasetExt::shuffle) (buffered) | iterable [`Shuffle`] | `L` |
//! | [`shuffled`](DatasetExt::shuffled) (full permutation) | map-style [`Shuffled`] | `L` |
//! | [`batch`](DatasetExt::batch) | map-style [`Batched`] | `ceil(L / n)`, or `floor(L / n)` with `drop_last` |
//! | [`chain`](DatasetExt::chain) | map-style [`Chain`] | `La + Lb` (iterable: `None` unless both are known) |
//! | [`zip`](DatasetExt::zip) | map-style [`Zip`] | `min(La, Lb)` (iterable: `None` unless both are known, or one is `Some(0)`) |
//! | [`enumerate`](DatasetExt::enumerate) | map-style [`Enumerate`] | `L` |
//! | [`take`](DatasetExt::take) | map-style [`Take`] | `min(n, L)` (iterable: `Some(0)` for `n = 0`) |
//! | [`skip`](DatasetExt::skip) | map-style [`Skip`] | `L - n`, at least 0 |
//! | [`window`](DatasetExt::window) | map-style [`Windows`] | `(L - size) / step + 1` if `L >= size`, else 0 |
//! | [`cache`](DatasetExt::cache) | map-style [`Cache`] | `L` (iterable: exact once a full pass is cached) |
//! | [`with_meta`](DatasetExt::with_meta) | map-style [`DatasetMeta`] | `L` |
//!
//! # Laziness
//!
//! Nothing is read before iteration starts: building an adaptor never calls
//! `get` or `iter` on its source (it may call `len`, which reads nothing),
//! and an iterator reads its first item on its first `next()`, not when it
//! is created. [`Cache`] allocates its cells on the first read.
//!
//! # Errors
//!
//! Adaptors never panic on bad input. A bad parameter (a zero batch size, a
//! zero window, a worker outside `0..num_workers`) is an
//! [`Error::InvalidParameter`] when the
//! adaptor is built. An error while reading is an `Err` item of the stream
//! (or the `Err` of `get`); iteration may go on after it. Errors of the
//! source pass through unchanged; errors of an adaptor's own function are an
//! [`Error::Pipe`] naming the adaptor and the item's
//! index. [`FlatMap`] can instead skip failed items by [`OnError`](crate::OnError) policy,
//! counting and logging each one.
//!
//! Iterating a map-style source uses `Iterator::nth` to step over items
//! without reading them, so [`skip`](IterableExt::skip),
//! [`FlatMap::shard`] and strided [`window`](IterableExt::window)s read only
//! the items they use.

/// In a pipe's `Dataset` impl whose sample `i` is its source's sample `i`
/// (`self.source`): its [`storage`](crate::Dataset::storage) (where a
/// sample comes from, what is done ahead of it) is its source's.
macro_rules! same_indices {
    () => {
        fn storage(&self) -> Option<&dyn $crate::storage::Storage<Origin = $crate::Origin>> {
            self.source.storage()
        }
    };
}

mod batch;
mod cache;
mod chain;
mod enumerate;
mod ext;
mod filter;
mod flat_map;
mod iterable;
mod map;
mod meta;
mod shuffle;
mod shuffled;
mod skip;
mod take;
mod window;
mod zip;

use std::sync::Arc;

pub use batch::{Batched, BatchedIter};
pub use cache::{Cache, CacheIter};
pub use chain::{Chain, ChainIter};
pub use enumerate::{Enumerate, EnumerateIter};
pub use ext::{DatasetExt, IterableExt};
pub use filter::{Filter, FilterIter};
pub use flat_map::{FlatMap, FlatMapIter, FlatMapShard, SkipCounts};
pub use iterable::{DatasetIter, Iterable};
pub use map::{Map, MapIter, ResultFn, TransformedDataset};
pub use meta::{DatasetMeta, MetaIter, MetaSample};
pub use shuffle::{Shuffle, ShuffleIter};
pub use shuffled::Shuffled;
pub use skip::{Skip, SkipIter};
pub use take::{Take, TakeIter};
pub use window::{Windows, WindowsIter};
pub use zip::{Zip, ZipIter};

use crate::{BoxError, Error, Result};

/// An iterable-style dataset: a stream of samples, read in order.
///
/// Each call to [`iter`](IterableDataset::iter) starts a new pass from the
/// beginning; passes are independent and may run at the same time from
/// several threads (for a `Sync` dataset). An item that could not be read is
/// an `Err` item; the stream may go on after it.
///
/// [`len`](IterableDataset::len) is the exact number of items a pass yields
/// (`Err` items included) when that is known without reading, and `None`
/// when it is not: never an estimate.
///
/// Map-style datasets become iterable through [`DatasetExt::iterable`].
///
/// ```
/// use adl::pipes::IterableDataset;
/// use adl::Result;
///
/// /// The numbers below `n`, as a stream.
/// struct Below(u32);
/// impl IterableDataset for Below {
///     type Item = u32;
///     type Iter<'a> = std::iter::Map<std::ops::Range<u32>, fn(u32) -> Result<u32>>;
///     fn iter(&self) -> Self::Iter<'_> {
///         (0..self.0).map(Ok)
///     }
///     fn len(&self) -> Option<usize> {
///         Some(self.0 as usize)
///     }
/// }
///
/// let all: Vec<u32> = Below(3).iter().collect::<Result<_>>()?;
/// assert_eq!(all, [0, 1, 2]);
/// # Ok::<(), adl::Error>(())
/// ```
pub trait IterableDataset {
    /// What one item of the stream is.
    type Item;

    /// The iterator of one pass.
    type Iter<'a>: Iterator<Item = Result<Self::Item>>
    where
        Self: 'a;

    /// Start a pass over the stream. Nothing is read until the iterator's
    /// first `next()`.
    fn iter(&self) -> Self::Iter<'_>;

    /// The exact number of items of a pass, or `None` if it is not known
    /// without reading.
    fn len(&self) -> Option<usize>;

    /// Whether a pass yields no item, or `None` if that is not known
    /// without reading.
    fn is_empty(&self) -> Option<bool> {
        self.len().map(|len| len == 0)
    }
}

/// `IterableDataset` through a pointer to one.
macro_rules! forward_iterable {
    ($($pointer:ty),*) => {$(
        impl<I: IterableDataset + ?Sized> IterableDataset for $pointer {
            type Item = I::Item;
            type Iter<'a>
                = I::Iter<'a>
            where
                Self: 'a;
            fn iter(&self) -> Self::Iter<'_> {
                (**self).iter()
            }
            fn len(&self) -> Option<usize> {
                (**self).len()
            }
        }
    )*};
}

forward_iterable!(&I, Box<I>, Arc<I>);

/// An [`Error::Pipe`] for `adaptor` at item `index`.
fn pipe_error(adaptor: &'static str, index: usize, cause: impl Into<BoxError>) -> Error {
    Error::Pipe {
        adaptor,
        index,
        cause: cause.into(),
    }
}

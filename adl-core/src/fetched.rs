//! [`Fetched`]: what a storage read ahead for one sample, as a value the
//! loader hands to the `get` it was made for.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a [`Storage`](crate::storage::Storage) read ahead for one sample:
/// owned, made by [`fetch`](crate::storage::Storage::fetch) (or its
/// [parts](crate::storage::Storage::fetch_part)) and handed to the `get`
/// it was made for ([`Dataset::get_fetched`](crate::Dataset::get_fetched),
/// [`Sensor::get_fetched`](crate::Sensor::get_fetched)). Nothing is kept
/// anywhere else: a read dropped unused frees its bytes, and two loaders
/// over one dataset, or one index read twice, each have their own.
///
/// A wrapper passes it on as it passes the index on: a sample made of one
/// source sample hands it whole to that sample's `get`; one made of several
/// (a recording's sensors, a batch's samples) hands each its
/// [part](Fetched::split), in the order of its
/// [`parts`](crate::storage::Storage::parts).
///
/// ```
/// use adl::storage::Fetched;
///
/// let read = Fetched::read(vec![1u8, 2, 3], 3);
/// assert_eq!(read.bytes(), 3);
/// assert_eq!(read.take::<Vec<u8>>(), Some(vec![1, 2, 3]));
/// let parts = Fetched::parts(vec![Fetched::read(7u32, 4), Fetched::Nothing]);
/// let mut split = parts.split(2);
/// let (first, second) = (split.next().unwrap(), split.next().unwrap());
/// assert_eq!((first.take::<u32>(), second.is_nothing()), (Some(7), true));
///
/// // A read dropped without being taken is counted where the loader asks.
/// let unused = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
/// let mut read = Fetched::read(1u8, 1);
/// read.count_unused(&unused);
/// drop(read);
/// assert_eq!(unused.load(std::sync::atomic::Ordering::Relaxed), 1);
/// ```
#[derive(Default)]
pub enum Fetched {
    /// Nothing read ahead: the `get` reads for itself.
    #[default]
    Nothing,
    /// One source's read: its value (whatever its `get` takes), and the
    /// bytes it holds ([`Fetched::read`] makes it).
    Read(Read),
    /// A sample's reads made of parts, in the order of its
    /// [`parts`](crate::storage::Storage::parts).
    Parts(Vec<Fetched>),
}

/// One source's read ahead, inside [`Fetched::Read`]: a value and its
/// bytes. One dropped without being [taken](Fetched::take) was read for
/// nothing (a wrapper that gives its source's `storage()` but not its
/// `get_fetched()`); where the loader [counts](Fetched::count_unused)
/// such reads, it says so.
pub struct Read {
    value: Option<Box<dyn Any + Send>>,
    bytes: u64,
    unused: Option<Arc<AtomicU64>>,
}

impl Drop for Read {
    fn drop(&mut self) {
        if let (Some(_), Some(unused)) = (&self.value, &self.unused) {
            unused.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Fetched {
    /// `value`, read ahead, holding `bytes`.
    pub fn read<T: Any + Send>(value: T, bytes: u64) -> Fetched {
        Fetched::Read(Read {
            value: Some(Box::new(value)),
            bytes,
            unused: None,
        })
    }

    /// A sample's reads from its parts: one part is itself, several are
    /// [`Fetched::Parts`].
    pub fn parts(mut parts: Vec<Fetched>) -> Fetched {
        match parts.len() {
            1 => parts.pop().unwrap_or_default(),
            _ => Fetched::Parts(parts),
        }
    }

    /// The `n` parts of a sample made of `n` (as [`parts`](Fetched::parts)
    /// put them together), in order; where it is not made of `n` (nothing
    /// was read ahead), `n` of [`Fetched::Nothing`], made as they are
    /// taken (nothing read ahead allocates nothing).
    pub fn split(self, n: usize) -> impl Iterator<Item = Fetched> {
        let parts = match self {
            Fetched::Nothing => Vec::new(),
            read if n == 1 => vec![read],
            Fetched::Parts(parts) if parts.len() == n => parts,
            _ => Vec::new(),
        };
        let missing = n - parts.len();
        (parts.into_iter()).chain(std::iter::repeat_with(Fetched::default).take(missing))
    }

    /// The value read, where it is a `T`; `None` where nothing was read
    /// (or something else: the `get` then reads for itself).
    pub fn take<T: Any>(self) -> Option<T> {
        match self {
            Fetched::Read(mut read) => match read.value.take()?.downcast::<T>() {
                Ok(value) => Some(*value),
                // Another type: put back, so that its drop counts it unused.
                Err(other) => {
                    read.value = Some(other);
                    None
                }
            },
            _ => None,
        }
    }

    /// Count in `unused` each of its reads dropped without being
    /// [taken](Fetched::take): read ahead for nothing. The loader counts
    /// them so, and says where a dataset's reads go unused.
    pub fn count_unused(&mut self, unused: &Arc<AtomicU64>) {
        match self {
            Fetched::Nothing => {}
            Fetched::Read(read) => read.unused = Some(Arc::clone(unused)),
            Fetched::Parts(parts) => parts.iter_mut().for_each(|p| p.count_unused(unused)),
        }
    }

    /// Drop it without counting its reads unused: the `get` it was read
    /// for failed before it came to them (a sample with an error, not a
    /// wrapper that lost its source's reads; see
    /// [`count_unused`](Fetched::count_unused)).
    pub fn discard(mut self) {
        self.stop_counting();
    }

    fn stop_counting(&mut self) {
        match self {
            Fetched::Nothing => {}
            Fetched::Read(read) => read.unused = None,
            Fetched::Parts(parts) => parts.iter_mut().for_each(Fetched::stop_counting),
        }
    }

    /// The bytes it holds, its parts' summed.
    pub fn bytes(&self) -> u64 {
        match self {
            Fetched::Nothing => 0,
            Fetched::Read(read) => read.bytes,
            Fetched::Parts(parts) => parts.iter().map(Fetched::bytes).sum(),
        }
    }

    /// Whether nothing was read ahead (in any part).
    pub fn is_nothing(&self) -> bool {
        match self {
            Fetched::Nothing => true,
            Fetched::Read(_) => false,
            Fetched::Parts(parts) => parts.iter().all(Fetched::is_nothing),
        }
    }
}

impl fmt::Debug for Fetched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fetched::Nothing => f.write_str("Nothing"),
            Fetched::Read(read) => write!(f, "Read({} bytes)", read.bytes),
            Fetched::Parts(parts) => f.debug_list().entries(parts).finish(),
        }
    }
}

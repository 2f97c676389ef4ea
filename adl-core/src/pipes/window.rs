//! [`Windows`]: sliding windows of consecutive samples.

use std::collections::VecDeque;

use super::{IterableDataset, pipe_error};
use crate::storage::{Ahead, Fetched, Route, Routes, Storage};
use crate::{Dataset, Error, Origin, Result};

/// Sliding windows of `size` consecutive samples, one every `step`
/// samples: [`window`](super::DatasetExt::window). Window `i` holds samples
/// `i * step .. i * step + size`; only full windows are made. With
/// `step > size` the samples between windows are not read.
///
/// Map-style over a map-style source (each window reads its samples, so
/// overlapping windows read shared samples again; add
/// [`cache`](super::DatasetExt::cache) before to avoid it). Iterable over
/// an iterable one, keeping the overlap in a buffer (so items must be
/// `Clone`).
///
/// A window holding an item that failed is an `Err`. In a stream, the first
/// window holding it yields the source's error; the later windows holding
/// it yield an [`Error::Pipe`] `"window"` with the item's stream position
/// and the first error's message, so every window is accounted for.
///
/// Length: `(L - size) / step + 1` if `L >= size`, else 0; exact (or
/// `None` for a source of unknown length).
///
/// ```
/// use adl::pipes::DatasetExt;
/// use adl::{Dataset, Result};
/// struct Numbers(usize);
/// impl Dataset for Numbers {
///     type Sample = usize;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> Result<usize> { Ok(i) }
/// }
/// let pairs = Numbers(5).window(2, 1)?;
/// assert_eq!(pairs.len(), 4);
/// assert_eq!(pairs.get(3)?, [3, 4]);
/// let strided = Numbers(7).window(3, 2)?;
/// assert_eq!(strided.len(), 3);
/// assert_eq!(strided.get(2)?, [4, 5, 6]);
/// assert!(Numbers(5).window(0, 1).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Windows<S> {
    source: S,
    size: usize,
    step: usize,
}

impl<S> Windows<S> {
    /// Windows of `size` samples of `source`, one every `step` samples.
    /// A zero size or step is an [`Error::InvalidParameter`].
    pub fn new(source: S, size: usize, step: usize) -> Result<Self> {
        Ok(Windows {
            source,
            size: Error::nonzero("window size", size)?,
            step: Error::nonzero("window step", step)?,
        })
    }

    /// Samples per window.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Samples from the start of one window to the start of the next.
    pub fn step(&self) -> usize {
        self.step
    }

    /// The source dataset.
    pub fn source(&self) -> &S {
        &self.source
    }

    fn windows(&self, items: usize) -> usize {
        if items < self.size {
            0
        } else {
            (items - self.size) / self.step + 1
        }
    }
}

impl<S: Dataset> Dataset for Windows<S> {
    type Sample = Vec<S::Sample>;

    fn len(&self) -> usize {
        self.windows(self.source.len())
    }

    fn get(&self, index: usize) -> Result<Vec<S::Sample>> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Vec<S::Sample>> {
        let len = self.len();
        if index >= len {
            return Err(Error::out_of_range("window dataset", index, len));
        }
        let members = self.members(index);
        let reads = fetched.split(members.len());
        (members.zip(reads))
            .map(|(i, read)| self.source.get_fetched(i, read))
            .collect()
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

impl<S: Dataset> Windows<S> {
    /// The source's samples in window `index` (below `len()`).
    fn members(&self, index: usize) -> std::ops::Range<usize> {
        // index <= (L - size) / step, so start + size <= L.
        let start = index * self.step;
        start..start + self.size
    }
}

/// A window's reads are those of each of its samples.
impl<S: Dataset> Route for Windows<S> {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        if index >= self.len() {
            return Routes::None;
        }
        Routes::each(self.source.storage(), self.members(index))
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.source.storage())
    }
}

impl<S: IterableDataset> IterableDataset for Windows<S>
where
    S::Item: Clone,
{
    type Item = Vec<S::Item>;
    type Iter<'a>
        = WindowsIter<'a, S>
    where
        Self: 'a;

    fn iter(&self) -> WindowsIter<'_, S> {
        WindowsIter {
            inner: self.source.iter(),
            size: self.size,
            step: self.step,
            buffer: VecDeque::new(),
            to_drop: 0,
            position: 0,
            done: false,
        }
    }

    fn len(&self) -> Option<usize> {
        self.source.len().map(|l| self.windows(l))
    }
}

/// One buffered item of a stream being windowed.
enum Slot<T> {
    Ok(T),
    Failed {
        /// The source's error, until the first window holding it yields it.
        error: Option<Error>,
        /// Its message, for the later windows.
        message: String,
        /// Stream position of the item.
        index: usize,
    },
}

/// The iterator of an iterable [`Windows`].
pub struct WindowsIter<'a, S: IterableDataset + 'a> {
    inner: S::Iter<'a>,
    size: usize,
    step: usize,
    buffer: VecDeque<Slot<S::Item>>,
    /// Items to drop (from the buffer, then unread from the stream) before
    /// the next window.
    to_drop: usize,
    /// Stream position of the next item of `inner`.
    position: usize,
    done: bool,
}

impl<'a, S: IterableDataset + 'a> WindowsIter<'a, S> {
    /// Buffer the item at `self.position`.
    fn push(&mut self, item: Result<S::Item>) {
        let index = self.position;
        self.position = self.position.saturating_add(1);
        self.buffer.push_back(match item {
            Ok(x) => Slot::Ok(x),
            Err(e) => Slot::Failed {
                message: format!("{e:#}"),
                error: Some(e),
                index,
            },
        });
    }
}

impl<'a, S: IterableDataset + 'a> Iterator for WindowsIter<'a, S>
where
    S::Item: Clone,
{
    type Item = Result<Vec<S::Item>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let buffered = self.to_drop.min(self.buffer.len());
        self.buffer.drain(..buffered);
        let unread = self.to_drop - buffered;
        self.to_drop = 0;
        if unread > 0 {
            // Step over the items between windows without reading them, and
            // read the first item of the next window.
            let Some(item) = self.inner.nth(unread) else {
                self.done = true;
                return None;
            };
            self.position = self.position.saturating_add(unread);
            self.push(item);
        }
        while self.buffer.len() < self.size {
            let Some(item) = self.inner.next() else {
                self.done = true;
                return None;
            };
            self.push(item);
        }
        self.to_drop = self.step;
        let failed = self.buffer.iter_mut().find_map(|slot| match slot {
            Slot::Ok(_) => None,
            Slot::Failed {
                error,
                message,
                index,
            } => Some(error.take().unwrap_or_else(|| {
                pipe_error(
                    "window",
                    *index,
                    format!("the item failed, as reported before: {message}"),
                )
            })),
        });
        if let Some(error) = failed {
            return Some(Err(error));
        }
        Some(Ok(self
            .buffer
            .iter()
            .filter_map(|slot| match slot {
                Slot::Ok(x) => Some(x.clone()),
                Slot::Failed { .. } => None,
            })
            .collect()))
    }
}

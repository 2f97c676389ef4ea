//! [`Concat`]: datasets (traces) concatenated into one.

use crate::storage::{self, Ahead, Fetched, Route, Routes, Storage};
use crate::{Dataset, Error, Origin, Result};

/// Datasets, usually traces, concatenated into one dataset: the reference's
/// `abstract.Dataset`.
///
/// Only the cumulative lengths are stored; a global index is mapped to
/// `(part, local index)` by binary search, so lookup is `O(log parts)` and
/// memory is one `usize` per part. Empty parts are skipped. Parts may be
/// `Concat`s themselves (nesting), or boxed `dyn Dataset`s to mix kinds.
///
/// ```
/// use adl::{Concat, Dataset};
///
/// let ds = Concat::new(vec![vec![1, 2, 3], vec![], vec![4]].into_iter().map(Ints).collect())?;
/// assert_eq!(ds.len(), 4);
/// assert_eq!(ds.locate(3)?, (2, 0));
/// assert_eq!(ds.get(3)?, 4);
///
/// struct Ints(Vec<i32>);
/// impl Dataset for Ints {
///     type Sample = i32;
///     fn len(&self) -> usize { self.0.len() }
///     fn get(&self, i: usize) -> adl::Result<i32> {
///         self.0.get(i).copied().ok_or(adl::Error::out_of_range("ints", i, self.0.len()))
///     }
/// }
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Concat<D> {
    parts: Vec<D>,
    /// Exclusive global end index of each part.
    ends: Vec<usize>,
}

impl<D: Dataset> Concat<D> {
    /// Concatenate `parts` in order. Fails only if the total length does not
    /// fit `usize`.
    pub fn new(parts: Vec<D>) -> Result<Self> {
        let mut ends = Vec::with_capacity(parts.len());
        let mut total = 0usize;
        for (i, part) in parts.iter().enumerate() {
            total = total.checked_add(part.len()).ok_or_else(|| {
                Error::invalid(
                    "dataset",
                    format!("part {i} makes the total length overflow usize"),
                )
            })?;
            ends.push(total);
        }
        Ok(Concat { parts, ends })
    }

    /// The part holding global `index`, and the index within that part.
    pub fn locate(&self, index: usize) -> Result<(usize, usize)> {
        let len = self.len();
        if index >= len {
            return Err(Error::out_of_range("dataset", index, len));
        }
        // First part whose end is past `index`; empty parts (end equal to the
        // previous end) are never chosen.
        let part = self.ends.partition_point(|&end| end <= index);
        let start = if part == 0 { 0 } else { self.ends[part - 1] };
        Ok((part, index - start))
    }

    /// The exclusive global end index of each part (the cumulative lengths).
    pub fn ends(&self) -> &[usize] {
        &self.ends
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[D] {
        &self.parts
    }
}

impl<D: Dataset> Dataset for Concat<D> {
    type Sample = D::Sample;

    fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    fn get(&self, index: usize) -> Result<D::Sample> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<D::Sample> {
        let (part, local) = self.locate(index)?;
        self.parts[part].get_fetched(local, fetched)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// Sample `i`'s reads: its trace's, at its index there.
impl<D: Dataset> Route for Concat<D> {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        match self.locate(index) {
            Ok((part, local)) => Routes::One(storage::of(&self.parts[part]), local),
            Err(_) => Routes::None,
        }
    }

    fn ahead(&self) -> Ahead {
        self.parts
            .iter()
            .map(|p| Ahead::of(p.storage()))
            .max()
            .unwrap_or_default()
    }
}

//! [`Gather`]: collation straight from in-memory arrays into the batch.

use adl_exec::{Buffers, CACHE_LINE, prefetch, prefetch_head};
use ndarray::{ArcArray, Array, Axis, Dimension, RemoveAxis};

use crate::{Collate, Error, Result};
use adl_exec::Context;

/// In-memory data whose rows a [`Gather`] copies into batches: an
/// [`ArcArray`] (rows along axis 0), a [`RowWindows`] of one, or a tuple of
/// them (one key per element).
pub trait RowSource {
    /// What names a row (or a window) of the table: an index, or a tuple
    /// of indices for a tuple of tables.
    type Key: Copy;
    /// A batch of rows.
    type Batch;

    /// The rows of `keys`, in order, copied once each into a new batch.
    fn gather(&self, keys: &[Self::Key]) -> Result<Self::Batch>;

    /// [`gather`](RowSource::gather), with the batch's memory from `buffers`
    /// (a context's pool). The default ignores them and calls `gather`.
    fn gather_in(&self, keys: &[Self::Key], buffers: Buffers<'_>) -> Result<Self::Batch> {
        let _ = buffers;
        self.gather(keys)
    }

    /// Ask the CPU to start fetching the row of `key` (a hint; keys out of
    /// range are ignored).
    fn prefetch(&self, key: Self::Key);
}

/// How many rows ahead a gather prefetches.
const AHEAD: usize = 16;

/// Copy `len` elements per key, starting at `start(key)`, out of `values`,
/// into memory from `buffers`.
fn gather_runs<A: Clone>(
    values: &[A],
    keys: &[usize],
    len: usize,
    limit: usize,
    what: &str,
    buffers: Buffers<'_>,
) -> Result<Vec<A>> {
    let mut out: Vec<A> = buffers.take(keys.len().saturating_mul(len));
    if len == 1 {
        // One element per key (labels, say): a copy call per element
        // would cost more than the element. The keys are checked first,
        // so that the copy is a loop of independent loads with nothing
        // between them, which the CPU runs many at a time.
        let bound = limit.min(values.len());
        if let Some(&key) = keys.iter().find(|&&key| key >= bound) {
            return Err(Error::out_of_range(what, key, limit));
        }
        out.extend(keys.iter().map(|&key| values[key].clone()));
        return Ok(out);
    }
    for (k, &key) in keys.iter().enumerate() {
        if let Some(&ahead) = keys.get(k + AHEAD)
            && let Some(run) = values.get(ahead * len..(ahead + 1) * len)
        {
            // Its first line: the CPU's own prefetcher brings the rest.
            prefetch_head(run, CACHE_LINE);
        }
        if key >= limit {
            return Err(Error::out_of_range(what, key, limit));
        }
        match values.get(key * len..(key + 1) * len) {
            Some(run) => out.extend_from_slice(run),
            None => return Err(Error::out_of_range(what, key, limit)),
        }
    }
    Ok(out)
}

impl<A: Clone, D: RemoveAxis> RowSource for ArcArray<A, D> {
    type Key = usize;
    type Batch = Array<A, D>;

    fn gather(&self, keys: &[usize]) -> Result<Array<A, D>> {
        self.gather_in(keys, Buffers::none())
    }

    fn gather_in(&self, keys: &[usize], buffers: Buffers<'_>) -> Result<Array<A, D>> {
        if self.ndim() == 0 {
            return Err(Error::invalid(
                "gather",
                "a zero-dimensional array has no rows",
            ));
        }
        let rows = self.len_of(Axis(0));
        let row: usize = self.shape()[1..].iter().product();
        let mut shape = self.raw_dim();
        shape[0] = keys.len();
        let values = match self.as_slice() {
            Some(all) => gather_runs(all, keys, row, rows, "gathered array", buffers)?,
            None => {
                let mut out = buffers.take(keys.len().saturating_mul(row));
                for &key in keys {
                    if key >= rows {
                        return Err(Error::out_of_range("gathered array", key, rows));
                    }
                    out.extend(self.index_axis(Axis(0), key).iter().cloned());
                }
                out
            }
        };
        Array::from_shape_vec(shape, values)
            .map_err(|e| Error::internal("collate::gather", format!("gather: {}", e)))
    }

    fn prefetch(&self, key: usize) {
        let row: usize = self.shape().iter().skip(1).product();
        if let Some(run) = self
            .as_slice()
            .and_then(|all| all.get(key * row..(key + 1) * row))
        {
            prefetch(run);
        }
    }
}

/// Windows of `len` consecutive rows of an array: key `s` is rows
/// `s .. s + len`, gathered as one item of the batch (shape `[batch, len,
/// rest...]`). A window that runs past the last row is an error.
#[derive(Debug, Clone)]
pub struct RowWindows<A, D: Dimension> {
    array: ArcArray<A, D>,
    len: usize,
}

impl<A, D: Dimension> RowWindows<A, D> {
    /// Windows of `len` rows of `array`.
    pub fn new(array: ArcArray<A, D>, len: usize) -> Self {
        RowWindows { array, len }
    }
}

impl<A: Clone, D: RemoveAxis> RowSource for RowWindows<A, D> {
    type Key = usize;
    type Batch = Array<A, D::Larger>;

    fn gather(&self, keys: &[usize]) -> Result<Array<A, D::Larger>> {
        self.gather_in(keys, Buffers::none())
    }

    fn gather_in(&self, keys: &[usize], buffers: Buffers<'_>) -> Result<Array<A, D::Larger>> {
        let a = &self.array;
        if a.ndim() == 0 {
            return Err(Error::invalid(
                "gather",
                "a zero-dimensional array has no rows",
            ));
        }
        let rows = a.len_of(Axis(0));
        let row: usize = a.shape()[1..].iter().product();
        let starts = rows.saturating_sub(self.len) + usize::from(rows >= self.len);
        let Some(all) = a.as_slice() else {
            return Err(Error::invalid(
                "gather",
                "windows are gathered from a row-major contiguous array",
            ));
        };
        let mut out: Vec<A> = buffers.take(keys.len() * self.len * row);
        for (k, &key) in keys.iter().enumerate() {
            if let Some(&ahead) = keys.get(k + AHEAD)
                && let Some(run) = all.get(ahead * row..(ahead + self.len) * row)
            {
                prefetch(run);
            }
            match all.get(key * row..(key + self.len) * row) {
                Some(run) if key < starts => out.extend_from_slice(run),
                _ => {
                    return Err(Error::out_of_range(
                        format!("windows of {} rows of a {rows}-row array", self.len),
                        key,
                        starts,
                    ));
                }
            }
        }
        let mut shape = D::Larger::zeros(a.ndim() + 1);
        shape[0] = keys.len();
        shape[1] = self.len;
        shape.slice_mut()[2..].copy_from_slice(&a.shape()[1..]);
        Array::from_shape_vec(shape, out)
            .map_err(|e| Error::internal("collate::gather", format!("gather: {}", e)))
    }

    fn prefetch(&self, key: usize) {
        let row: usize = self.array.shape().iter().skip(1).product();
        if let Some(run) = self
            .array
            .as_slice()
            .and_then(|all| all.get(key * row..(key + self.len) * row))
        {
            prefetch(run);
        }
    }
}

macro_rules! table_tuple {
    ($(($idx:tt, $t:ident)),+) => {
        impl<$($t: RowSource),+> RowSource for ($($t,)+) {
            type Key = ($($t::Key,)+);
            type Batch = ($($t::Batch,)+);

            fn gather(&self, keys: &[Self::Key]) -> Result<Self::Batch> {
                self.gather_in(keys, Buffers::none())
            }

            fn gather_in(&self, keys: &[Self::Key], buffers: Buffers<'_>) -> Result<Self::Batch> {
                Ok(($({
                    let column: Vec<$t::Key> = keys.iter().map(|k| k.$idx).collect();
                    self.$idx.gather_in(&column, buffers).map_err(|e| e.within(concat!(".", stringify!($idx))))?
                },)+))
            }

            fn prefetch(&self, key: Self::Key) {
                $(self.$idx.prefetch(key.$idx);)+
            }
        }
    };
}
table_tuple!((0, T0));
table_tuple!((0, T0), (1, T1));
table_tuple!((0, T0), (1, T1), (2, T2));
table_tuple!((0, T0), (1, T1), (2, T2), (3, T3));
table_tuple!((0, T0), (1, T1), (2, T2), (3, T3), (4, T4));
table_tuple!((0, T0), (1, T1), (2, T2), (3, T3), (4, T4), (5, T5));

/// Collation straight from memory: the samples are keys (row indices) of
/// in-memory arrays, and the batch is their rows, each copied once from the
/// arrays into the batch (prefetched a few rows ahead; in a context, the
/// batch's memory from its pool). There is no sample array at all: what
/// `default_collate` would stack is read where it lies.
///
/// The arrays are [`ArcArray`]s (cheap to share with the workers), a
/// [`RowWindows`] of one, or a tuple of them; a tuple takes a tuple of keys,
/// one per array, and a [`SameRow`](super::SameRow) tuple one key for all
/// (sample `i` is row `i` of each).
///
/// ```
/// use adl::Collate;
/// use adl::collate::{Gather, RowWindows};
/// use ndarray::{ArcArray, array};
///
/// let features = ArcArray::from(array![[0.0f32, 1.0], [2.0, 3.0], [4.0, 5.0]]);
/// let labels = ArcArray::from(array![7i64, 8, 9]);
/// let gather = Gather::new((features.clone(), labels));
/// let (x, y) = gather.collate(vec![(2, 2), (0, 0)])?;
/// assert_eq!(x, array![[4.0f32, 5.0], [0.0, 1.0]]);
/// assert_eq!(y, array![9i64, 7]);
///
/// // Windows of two rows, by their first row.
/// let windows = Gather::new(RowWindows::new(features, 2));
/// assert_eq!(windows.collate(vec![1])?, array![[[2.0f32, 3.0], [4.0, 5.0]]]);
/// assert!(windows.collate(vec![2]).is_err()); // runs past the last row
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Gather<T> {
    table: T,
}

impl<T: RowSource> Gather<T> {
    /// A gather from `table`.
    pub fn new(table: T) -> Self {
        Gather { table }
    }

    /// The arrays.
    pub fn table(&self) -> &T {
        &self.table
    }

    /// The batch of `keys`, its memory from `buffers`.
    fn gather_from(&self, keys: &[T::Key], buffers: Buffers<'_>) -> Result<T::Batch> {
        if keys.is_empty() {
            return Err(Error::collate(
                0,
                "the batch is empty; there is nothing to gather",
            ));
        }
        self.table.gather_in(keys, buffers)
    }
}

impl<T: RowSource> Collate<T::Key> for Gather<T> {
    type Batch = T::Batch;

    fn collate(&self, keys: Vec<T::Key>) -> Result<T::Batch> {
        self.gather_from(&keys, Buffers::none())
    }

    /// The batch's memory comes from the context's pool.
    fn collate_in(&self, cx: &dyn Context, keys: Vec<T::Key>) -> Result<T::Batch> {
        self.gather_from(&keys, cx.buffers())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, Array3};

    #[test]
    fn rows_come_out_in_key_order_and_bad_keys_are_errors() {
        let a = ArcArray::from(Array3::from_shape_fn((5, 2, 3), |(i, j, k)| {
            (i * 6 + j * 3 + k) as u8
        }));
        let batch = a.gather(&[4, 1, 4]).unwrap();
        assert_eq!(batch.shape(), &[3, 2, 3]);
        assert_eq!(batch.index_axis(Axis(0), 0), a.index_axis(Axis(0), 4));
        assert_eq!(batch.index_axis(Axis(0), 1), a.index_axis(Axis(0), 1));
        let err = a.gather(&[0, 5]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::IndexOutOfRange {
                    index: 5,
                    len: 5,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn one_element_per_key_is_gathered_in_order_and_the_first_bad_key_named() {
        let labels = ArcArray::from(ndarray::array![10i64, 11, 12, 13]);
        let batch = labels.gather(&[3, 0, 3, 2]).unwrap();
        assert_eq!(batch, ndarray::array![13, 10, 13, 12]);
        let err = labels.gather(&[1, 7, 4]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::IndexOutOfRange {
                    index: 7,
                    len: 4,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn a_transposed_array_is_gathered_by_its_logical_rows() {
        let a = ArcArray::from(
            Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as i32).reversed_axes(),
        );
        let batch = a.gather(&[1]).unwrap();
        assert_eq!(batch, ndarray::array![[1, 5, 9]]);
    }
}

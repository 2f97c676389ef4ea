//! [`Packed`] and [`PackedRows`]: ragged arrays (point clouds of varying
//! length, graphs' node lists) concatenated along their first axis, with
//! the offsets of every sample's rows, as PyTorch Geometric batches and
//! nested tensors hold them.

use adl_exec::{Buffers, Recycle, Recycler};
use ndarray::{Array, Array1, ArrayView, Axis, Dimension, RemoveAxis, Slice};

use super::strategy::{trailing_shape_differs, zero_dimensional};
use super::{BatchBuilder, Strategy};
use crate::{Error, Result};

/// Pack arrays that are ragged along their first axis (`#[collate(packed)]`):
/// shapes `[n_i, rest...]` give one [`PackedRows`], the rows of every sample
/// in order (`[sum n_i, rest...]`) and the offsets where each sample starts
/// (`B + 1` of them, as `i64`, torch's index type). A sample may have no
/// rows. The other axes must agree.
///
/// Unlike [`Pad`](super::Pad), nothing is padded: the batch is as large as
/// the data. Unlike [`ConcatRows`](super::ConcatRows), the batch remembers
/// which rows are whose.
///
/// ```
/// use adl::collate::{Packed, PackedRows, collate_with};
/// use ndarray::{Array2, array};
///
/// let clouds = vec![
///     array![[0.0f32, 0.0, 0.0], [1.0, 1.0, 1.0]],
///     Array2::zeros((0, 3)), // a sweep with no returns
///     array![[2.0f32, 2.0, 2.0]],
/// ];
/// let PackedRows { values, offsets } = collate_with::<Packed, _>(clouds)?;
/// assert_eq!(values.shape(), &[3, 3]);
/// assert_eq!(offsets, array![0i64, 2, 2, 3]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Packed;

/// A batch of ragged arrays packed row after row: what [`Packed`] gives.
///
/// Sample `i` is rows `offsets[i]..offsets[i + 1]` of `values`
/// ([`sample`](PackedRows::sample)); in torch, `values.split(offsets.diff())`
/// or `torch.nested.nested_tensor_from_jagged(values, offsets)`.
///
/// ```
/// use adl::collate::{Packed, PackedRows, collate_with};
/// use ndarray::array;
///
/// let batch: PackedRows<i32, _> =
///     collate_with::<Packed, _>(vec![array![[1, 2]], array![[3, 4], [5, 6]]])?;
/// assert_eq!(batch.values, array![[1, 2], [3, 4], [5, 6]]);
/// assert_eq!(batch.offsets, array![0i64, 1, 3]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PackedRows<A, D: Dimension> {
    /// `[sum of the samples' rows, rest...]`: the rows of sample 0, then
    /// those of sample 1, and so on.
    pub values: Array<A, D>,
    /// `B + 1` offsets into the rows of `values`: `offsets[0] = 0`, and
    /// sample `i` has `offsets[i + 1] - offsets[i]` rows.
    pub offsets: Array1<i64>,
}

impl<A, D: RemoveAxis> PackedRows<A, D> {
    /// The number of samples in the batch (one less than the offsets).
    ///
    /// ```
    /// use adl::collate::{Packed, collate_with};
    /// use ndarray::Array2;
    ///
    /// let batch = collate_with::<Packed, _>(vec![Array2::<u8>::zeros((4, 2)); 3])?;
    /// assert_eq!(batch.len(), 3);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the batch has no samples (never so for a batch that
    /// [`Packed`] collated: an empty batch is an error).
    ///
    /// ```
    /// use adl::collate::{Packed, collate_with};
    /// use ndarray::Array2;
    ///
    /// let batch = collate_with::<Packed, _>(vec![Array2::<u8>::zeros((0, 2))])?;
    /// assert!(!batch.is_empty()); // one sample, with no rows
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of rows of every sample (the differences of the offsets).
    ///
    /// ```
    /// use adl::collate::{Packed, collate_with};
    /// use ndarray::{Array2, array};
    ///
    /// let batch = collate_with::<Packed, _>(vec![
    ///     Array2::<f32>::zeros((2, 3)),
    ///     Array2::zeros((0, 3)),
    ///     Array2::zeros((5, 3)),
    /// ])?;
    /// assert_eq!(batch.lengths(), array![2i64, 0, 5]);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn lengths(&self) -> Array1<i64> {
        self.offsets
            .windows(2)
            .into_iter()
            .map(|pair| pair[1] - pair[0])
            .collect()
    }

    /// The rows of sample `index`, a view into `values`.
    ///
    /// # Panics
    ///
    /// If `index` is not below [`len`](PackedRows::len), or the offsets do
    /// not index `values` (only when they were changed by hand).
    ///
    /// ```
    /// use adl::collate::{Packed, collate_with};
    /// use ndarray::array;
    ///
    /// let batch = collate_with::<Packed, _>(vec![array![10, 11], array![12]])?;
    /// assert_eq!(batch.sample(0), array![10, 11]);
    /// assert_eq!(batch.sample(1), array![12]);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn sample(&self, index: usize) -> ArrayView<'_, A, D> {
        assert!(
            index < self.len(),
            "sample {index} of a packed batch of {} samples",
            self.len()
        );
        let row = |i: usize| {
            usize::try_from(self.offsets[i])
                .unwrap_or_else(|_| panic!("offset {i} is negative: {}", self.offsets[i]))
        };
        self.values
            .slice_axis(Axis(0), Slice::from(row(index)..row(index + 1)))
    }
}

/// Builder of [`Packed`]: copies each sample's rows once, straight after
/// the rows before them, and records where each sample ends. Made by
/// [`Strategy::builder`]; [`collate_with`](super::collate_with) and
/// `#[derive(Collate)]` drive it.
///
/// ```
/// use adl::collate::{BatchBuilder, Packed, Strategy};
/// use ndarray::array;
///
/// let first = array![[1.0f32, 2.0]];
/// let mut builder = <Packed as Strategy<_>>::builder(&first, 2);
/// builder.push(first, 0)?;
/// builder.push(array![[3.0, 4.0], [5.0, 6.0]], 1)?;
/// let batch = builder.finish()?;
/// assert_eq!(batch.offsets, array![0i64, 1, 3]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct PackedBuilder<A, D> {
    first_shape: D,
    rows: usize,
    values: Vec<A>,
    offsets: Vec<i64>,
}

impl<A: Clone, D: RemoveAxis> BatchBuilder<Array<A, D>> for PackedBuilder<A, D> {
    type Batch = PackedRows<A, D>;

    fn push(&mut self, item: Array<A, D>, position: usize) -> Result<()> {
        if item.ndim() == 0 {
            return Err(zero_dimensional(position, "packed"));
        }
        if trailing_shape_differs(item.shape(), &self.first_shape) {
            return Err(Error::collate(
                position,
                format!(
                    "shape {:?} cannot be packed with shape {:?} of sample 0: all axes but the first must agree",
                    item.shape(),
                    self.first_shape.slice()
                ),
            ));
        }
        let rows = self.rows.checked_add(item.len_of(Axis(0)));
        let Some((rows, offset)) = rows.and_then(|r| Some((r, i64::try_from(r).ok()?))) else {
            return Err(Error::collate(
                position,
                "the packed batch would have more rows than an i64 offset can index",
            ));
        };
        self.rows = rows;
        self.offsets.push(offset);
        super::array::extend_row_major(&mut self.values, &item);
        Ok(())
    }

    fn finish(self) -> Result<PackedRows<A, D>> {
        let mut shape = self.first_shape;
        if shape.ndim() == 0 {
            return Err(zero_dimensional(0, "packed"));
        }
        shape[0] = self.rows;
        let values = Array::from_shape_vec(shape, self.values)
            .map_err(|e| Error::collate(0, format!("cannot pack the batch: {e}")))?;
        Ok(PackedRows {
            values,
            offsets: Array1::from(self.offsets),
        })
    }
}

impl<A: Clone, D: RemoveAxis> Strategy<Array<A, D>> for Packed {
    type Batch = PackedRows<A, D>;
    type Builder = PackedBuilder<A, D>;

    fn builder(first: &Array<A, D>, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    /// The values' memory comes from `buffers`, sized as if every sample
    /// had as many rows as `first` (it grows if they have more).
    fn builder_in(first: &Array<A, D>, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        let mut offsets = buffers.take(len.saturating_add(1));
        offsets.push(0);
        PackedBuilder {
            first_shape: first.raw_dim(),
            rows: 0,
            values: buffers.take(first.len().saturating_mul(len)),
            offsets,
        }
    }
}

/// A packed batch gives back the memory of its values and offsets.
impl<A, D: Dimension> Recycle for PackedRows<A, D> {
    fn recycle(self, recycler: &mut Recycler) {
        self.values.recycle(recycler);
        self.offsets.recycle(recycler);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collate::collate_with;
    use ndarray::{Array2, Array3, array};

    #[test]
    fn rows_in_order_and_offsets_with_an_empty_sample() {
        let samples = vec![
            array![[1, 2], [3, 4]],
            Array2::zeros((0, 2)),
            array![[5, 6]],
            Array2::zeros((0, 2)),
        ];
        let batch = collate_with::<Packed, _>(samples).unwrap();
        assert_eq!(batch.values, array![[1, 2], [3, 4], [5, 6]]);
        assert_eq!(batch.offsets, array![0i64, 2, 2, 3, 3]);
        assert_eq!(batch.len(), 4);
        assert_eq!(batch.lengths(), array![2i64, 0, 1, 0]);
        assert_eq!(batch.sample(0), array![[1, 2], [3, 4]]);
        assert_eq!(batch.sample(1).shape(), &[0, 2]);
        assert_eq!(batch.sample(2), array![[5, 6]]);
    }

    #[test]
    fn only_empty_samples_give_no_rows() {
        let batch = collate_with::<Packed, _>(vec![Array3::<f32>::zeros((0, 2, 3)); 2]).unwrap();
        assert_eq!(batch.values.shape(), &[0, 2, 3]);
        assert_eq!(batch.offsets, array![0i64, 0, 0]);
    }

    #[test]
    fn views_of_any_layout_are_packed_in_logical_order() {
        let t = array![[1, 2, 3], [4, 5, 6]].reversed_axes(); // [3, 2], column-major
        let batch =
            collate_with::<Packed, _>(vec![t.clone(), t.slice_move(ndarray::s![..1, ..])]).unwrap();
        assert_eq!(batch.values, array![[1, 4], [2, 5], [3, 6], [1, 4]]);
        assert_eq!(batch.offsets, array![0i64, 3, 4]);
    }

    #[test]
    fn a_trailing_shape_mismatch_names_the_sample_and_both_shapes() {
        let err = collate_with::<Packed, _>(vec![
            Array2::<f32>::zeros((3, 4)),
            Array2::zeros((1, 4)),
            Array2::zeros((3, 5)),
        ])
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "collate: the value of sample 2: shape [3, 5] cannot be packed with shape [3, 4] of sample 0: all axes but the first must agree"
        );
        assert!(matches!(err, Error::Collate { position: 2, .. }));
    }

    #[test]
    fn zero_dimensional_and_empty_batches_are_errors() {
        let scalar = ndarray::arr0(1.0f32).into_dyn();
        let err = collate_with::<Packed, _>(vec![scalar]).unwrap_err();
        assert!(err.to_string().contains("no first axis"), "{err}");
        let err = collate_with::<Packed, _>(Vec::<Array2<f32>>::new()).unwrap_err();
        assert!(err.to_string().contains("the batch is empty"), "{err}");
    }

    #[test]
    fn the_batch_recycles_its_values_and_offsets() {
        let batch = collate_with::<Packed, _>(vec![Array2::<f64>::zeros((4096, 2)); 3]).unwrap();
        let mut recycler = Recycler::default();
        batch.recycle(&mut recycler);
        // The values (3 * 4096 * 2 f64); the 4 offsets are too small to keep.
        assert_eq!(recycler.bytes(), 3 * 4096 * 2 * 8);
    }
}

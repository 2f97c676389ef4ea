//! [`WriteRow`] and [`WrittenRows`]: a sample's value that writes its own
//! row of the batch, so that its last step (a conversion, a
//! normalisation) writes straight into the batch's memory instead of into
//! an array of its own that the collate then copies.

use std::marker::PhantomData;

use adl_exec::Buffers;
use ndarray::{Array, Dimension};

use super::{BatchBuilder, Strategy};
use crate::{Error, Result};

/// A sample's value that writes its own row of the batch: what
/// [`WrittenRows`] collates. The last step of a sample's transform is
/// deferred into it (the image in `u8` and whether to flip it, say), and
/// done by the collate into the batch's row, which saves the sample an
/// array of its own (its allocation, often fresh pages) and the collate
/// the copy of it.
///
/// ```
/// use adl::collate::{WriteRow, WrittenRows};
/// use adl::prelude::*;
/// use ndarray::{Ix1, array};
///
/// /// Bytes, to be scaled to [0, 1] as `f32` in the batch.
/// struct Scaled(Vec<u8>);
///
/// impl WriteRow for Scaled {
///     type Elem = f32;
///     type Dim = Ix1;
///     fn row_shape(&self) -> Ix1 {
///         Ix1(self.0.len())
///     }
///     fn write_row(&self, batch: &mut Vec<f32>) -> adl::Result<()> {
///         batch.extend(self.0.iter().map(|&v| f32::from(v) / 255.0));
///         Ok(())
///     }
/// }
///
/// #[derive(adl::Collate)]
/// struct Sample {
///     #[collate(with = WrittenRows)]
///     pixels: Scaled,
///     label: i64,
/// }
///
/// let batch = DefaultCollate.collate(vec![
///     Sample { pixels: Scaled(vec![0, 255]), label: 1 },
///     Sample { pixels: Scaled(vec![51, 102]), label: 2 },
/// ])?;
/// assert_eq!(batch.pixels, array![[0.0f32, 1.0], [0.2, 0.4]]);
/// assert_eq!(batch.label, array![1, 2]);
/// # Ok::<(), adl::Error>(())
/// ```
pub trait WriteRow {
    /// The batch's element.
    type Elem: Clone;
    /// The row's dimension: the batch has one axis more, first.
    type Dim: Dimension;

    /// The row's shape; every sample of a batch has the first's (another
    /// is the collate's error, naming the sample).
    fn row_shape(&self) -> Self::Dim;

    /// Append the row's elements, in row-major order, to `batch` (the
    /// batch's memory, its capacity reserved for every row, the rows
    /// before this one in it, to be left as they are): exactly as many as
    /// [`row_shape`](Self::row_shape) holds; another count, or an error,
    /// fails the sample's push, naming it (the batch is as before it). `Vec::extend` with an
    /// iterator of known length (a `map` over a range or a slice) writes
    /// them in place, without a first pass that zeroes the row.
    fn write_row(&self, batch: &mut Vec<Self::Elem>) -> Result<()>;
}

/// The strategy of values that write their own rows ([`WriteRow`]): a
/// batch `[samples, row...]`, its memory from the context's pool, each
/// sample's row written in place by the sample. Name it on a field with
/// `#[collate(with = WrittenRows)]`.
#[derive(Debug, Clone, Copy, Default)]
pub struct WrittenRows;

impl<T: WriteRow> Strategy<T> for WrittenRows {
    type Batch = Array<T::Elem, <T::Dim as Dimension>::Larger>;
    type Builder = WrittenRowsBuilder<T>;

    fn builder(first: &T, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &T, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        let shape = first.row_shape();
        WrittenRowsBuilder {
            data: buffers.take(shape.size().saturating_mul(len)),
            shape,
            pushed: 0,
            sample: PhantomData,
        }
    }
}

/// [`WrittenRows`]' builder: the batch's memory, each row written by its
/// sample as it is pushed.
#[derive(Debug)]
pub struct WrittenRowsBuilder<T: WriteRow> {
    shape: T::Dim,
    data: Vec<T::Elem>,
    pushed: usize,
    sample: PhantomData<fn(T)>,
}

impl<T: WriteRow> BatchBuilder<T> for WrittenRowsBuilder<T> {
    type Batch = Array<T::Elem, <T::Dim as Dimension>::Larger>;

    fn push(&mut self, item: T, position: usize) -> Result<()> {
        let shape = item.row_shape();
        if shape != self.shape {
            return Err(Error::collate(
                position,
                format!(
                    "a row of shape {:?} differs from shape {:?} of sample 0",
                    shape.slice(),
                    self.shape.slice()
                ),
            ));
        }
        let start = self.data.len();
        let written = item.write_row(&mut self.data).and_then(|()| {
            match self.data.len().checked_sub(start) {
                Some(count) if count == shape.size() => Ok(()),
                Some(count) => Err(Error::invalid(
                    "its row",
                    format!("{count} elements written for a row of {}", shape.size()),
                )),
                None => Err(Error::invalid(
                    "its row",
                    "the rows before it were shortened: a row is appended, never more",
                )),
            }
        });
        if let Err(e) = written {
            self.data.truncate(start);
            return Err(Error::collate(
                position,
                format!("its row could not be written: {e}"),
            ));
        }
        self.pushed += 1;
        Ok(())
    }

    fn finish(self) -> Result<Self::Batch> {
        let mut shape = <T::Dim as Dimension>::Larger::zeros(self.shape.ndim() + 1);
        shape[0] = self.pushed;
        shape.slice_mut()[1..].copy_from_slice(self.shape.slice());
        Array::from_shape_vec(shape, self.data)
            .map_err(|e| Error::collate(self.pushed, format!("cannot stack the batch: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Ix2, array};

    /// A `rows x cols` block of `value` (`extra` more written), or a
    /// failure to write.
    struct Block {
        rows: usize,
        cols: usize,
        value: Option<i32>,
        extra: usize,
    }

    impl WriteRow for Block {
        type Elem = i32;
        type Dim = Ix2;
        fn row_shape(&self) -> Ix2 {
            Ix2(self.rows, self.cols)
        }
        fn write_row(&self, batch: &mut Vec<i32>) -> Result<()> {
            assert!(batch.capacity() - batch.len() >= self.rows * self.cols);
            let value = self
                .value
                .ok_or_else(|| Error::invalid("block", "unwritable"))?;
            batch.extend(std::iter::repeat_n(
                value,
                self.rows * self.cols + self.extra,
            ));
            Ok(())
        }
    }

    fn block(value: i32) -> Block {
        Block {
            rows: 1,
            cols: 2,
            value: Some(value),
            extra: 0,
        }
    }

    fn collate(samples: Vec<Block>) -> Result<ndarray::Array3<i32>> {
        let mut builder = WrittenRows::builder(&samples[0], samples.len());
        for (position, sample) in samples.into_iter().enumerate() {
            builder.push(sample, position)?;
        }
        builder.finish()
    }

    #[test]
    fn each_sample_writes_its_row_in_order() {
        let batch = collate(vec![block(1), block(2), block(3)]).unwrap();
        assert_eq!(batch, array![[[1, 1]], [[2, 2]], [[3, 3]]]);
    }

    /// A push that fails leaves the batch as it was: the rows pushed
    /// after it follow the rows before.
    #[test]
    fn a_failed_push_leaves_the_batch_as_before() {
        let long = Block {
            rows: 1,
            cols: 2,
            value: Some(9),
            extra: 3,
        };
        let mut builder = WrittenRows::builder(&block(1), 3);
        builder.push(block(1), 0).unwrap();
        assert!(builder.push(long, 1).is_err());
        builder.push(block(2), 2).unwrap();
        assert_eq!(builder.finish().unwrap(), array![[[1, 1]], [[2, 2]]]);
    }

    #[test]
    fn another_shape_or_a_failed_write_names_the_sample() {
        let wide = Block {
            rows: 1,
            cols: 3,
            value: Some(0),
            extra: 0,
        };
        let error = collate(vec![block(1), wide]).unwrap_err().to_string();
        assert!(
            error.contains("sample 1") && error.contains("[1, 3]"),
            "{error}"
        );
        let broken = Block {
            rows: 1,
            cols: 2,
            value: None,
            extra: 0,
        };
        let error = collate(vec![block(1), block(2), broken])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("sample 2") && error.contains("unwritable"),
            "{error}"
        );
        let long = Block {
            rows: 1,
            cols: 2,
            value: Some(4),
            extra: 1,
        };
        let error = collate(vec![block(1), long]).unwrap_err().to_string();
        assert!(
            error.contains("sample 1") && error.contains("3 elements written for a row of 2"),
            "{error}"
        );
    }
}

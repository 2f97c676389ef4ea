//! [`InPlace`] and [`Rows`]: a gathered batch whose rows are read where
//! they lie, by the batch kernels, instead of being copied into a batch
//! first.

use adl_exec::Buffers;
use ndarray::{ArcArray, Array, Axis, Dimension, RemoveAxis};

use super::gather::RowSource;
use crate::{Error, Result};

/// An in-memory array whose rows a [`Gather`](super::Gather) leaves where
/// they are: its batch is [`Rows`] (the array and the keys), and the first
/// batch kernel node reads each row straight from the array, so the rows
/// are read once, by the kernel, and never copied into a batch of their
/// own. On the CPU the fused kernels read them block by block; on an
/// OpenCL device they are copied once, into the upload buffer.
///
/// The built-in kernels (`adl::kernel`'s `U8ToF32`,
/// `Normalize`,
/// `FlipByFlag`, ...) take `Rows`; any other
/// node takes [`Rows::to_array`].
///
/// ```
/// use adl::{Collate, Transform};
/// use adl::collate::{Gather, InPlace};
/// use adl::kernel::U8ToF32;
/// use ndarray::{ArcArray, array};
///
/// let images = ArcArray::from(array![[[0u8, 255]], [[51, 102]], [[204, 0]]]);
/// let gather = Gather::new(InPlace::new(images));
/// let rows = gather.collate(vec![2, 0])?; // nothing copied yet
/// assert_eq!(rows.shape(), [2, 1, 2]);
/// let floats = U8ToF32::divide(255.0).apply(rows)?;
/// assert_eq!(floats, array![[[0.8f32, 0.0]], [[0.0, 1.0]]]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct InPlace<A, D: Dimension> {
    array: ArcArray<A, D>,
}

impl<A: Clone, D: RemoveAxis> InPlace<A, D> {
    /// The rows of `array` (along axis 0). An array that is not row-major
    /// and contiguous is copied into one, once, here.
    pub fn new(array: ArcArray<A, D>) -> Self {
        let array = if array.is_standard_layout() {
            array
        } else {
            array.as_standard_layout().into_owned().into_shared()
        };
        InPlace { array }
    }

    /// The array.
    pub fn array(&self) -> &ArcArray<A, D> {
        &self.array
    }
}

impl<A: Clone, D: RemoveAxis> RowSource for InPlace<A, D> {
    type Key = usize;
    type Batch = Rows<A, D>;

    fn gather(&self, keys: &[usize]) -> Result<Rows<A, D>> {
        Rows::new(self.array.clone(), keys.to_vec())
    }

    fn prefetch(&self, key: usize) {
        self.array.prefetch(key);
    }
}

/// A batch of rows of an in-memory array, not yet copied: the array (a
/// shared handle) and the rows' keys, in batch order. What an [`InPlace`]
/// gather gives; the batch kernels read it where it lies. Its shape is the
/// batch's: `[keys, rest of the array's shape...]`.
#[derive(Debug, Clone)]
pub struct Rows<A, D: Dimension> {
    array: ArcArray<A, D>,
    keys: Vec<usize>,
}

impl<A: Clone, D: RemoveAxis> Rows<A, D> {
    /// Rows `keys` of `array`, in that order: an error names the first key
    /// out of range, and an array that is not row-major and contiguous is
    /// copied into one first.
    pub fn new(array: ArcArray<A, D>, keys: Vec<usize>) -> Result<Self> {
        if array.ndim() == 0 {
            return Err(Error::invalid(
                "gather",
                "a zero-dimensional array has no rows",
            ));
        }
        let rows = array.len_of(Axis(0));
        if let Some(&key) = keys.iter().find(|&&k| k >= rows) {
            return Err(Error::out_of_range("gathered array", key, rows));
        }
        let InPlace { array } = InPlace::new(array);
        Ok(Rows { array, keys })
    }

    /// The batch's shape: the number of keys, then the shape of a row.
    pub fn shape(&self) -> Vec<usize> {
        let mut shape = self.array.shape().to_vec();
        shape[0] = self.keys.len();
        shape
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The rows' keys, in batch order.
    pub fn keys(&self) -> &[usize] {
        &self.keys
    }

    /// The array the rows are in.
    pub fn array(&self) -> &ArcArray<A, D> {
        &self.array
    }

    /// All the array's elements, row-major (the whole table, not only
    /// these rows), and the number of elements in a row: what a batch
    /// kernel reads the rows from where they lie.
    pub fn table(&self) -> (&[A], usize) {
        let row: usize = self.array.shape()[1..].iter().product();
        // `Rows::new` made the array row-major and contiguous.
        (self.array.as_slice().unwrap_or(&[]), row)
    }

    /// The batch as an array: the rows copied, once each, in order.
    pub fn to_array(&self) -> Result<Array<A, D>> {
        self.to_array_in(Buffers::none())
    }

    /// [`to_array`](Rows::to_array), the array's memory from `buffers` (a
    /// context's pool).
    pub fn to_array_in(&self, buffers: Buffers<'_>) -> Result<Array<A, D>> {
        self.array.gather_in(&self.keys, buffers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, Array3, array};

    #[test]
    fn rows_copy_into_the_array_a_gather_would_give() {
        let a = ArcArray::from(Array3::from_shape_fn((5, 2, 3), |(i, j, k)| {
            (i * 6 + j * 3 + k) as u8
        }));
        let rows = InPlace::new(a.clone()).gather(&[4, 1, 4]).unwrap();
        assert_eq!(rows.shape(), vec![3, 2, 3]);
        assert_eq!(rows.keys(), &[4, 1, 4]);
        assert_eq!(rows.to_array().unwrap(), a.gather(&[4, 1, 4]).unwrap());
    }

    #[test]
    fn keys_out_of_range_are_errors_that_name_the_key() {
        let a = ArcArray::from(array![[1.0f32], [2.0]]);
        let err = InPlace::new(a).gather(&[0, 7]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::IndexOutOfRange {
                    index: 7,
                    len: 2,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn a_transposed_array_is_made_row_major_once() {
        let a = ArcArray::from(
            Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as i32).reversed_axes(),
        );
        let table = InPlace::new(a);
        assert!(table.array().is_standard_layout());
        let rows = table.gather(&[1]).unwrap();
        assert_eq!(rows.to_array().unwrap(), array![[1, 5, 9]]);
    }
}

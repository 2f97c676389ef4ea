use std::sync::Arc;

use adl_exec::{BufferPool, Buffers, Recycle, Recycler};
use ndarray::{Array, Array1, Array2, Axis, Dimension, RemoveAxis};

use super::{BatchBuilder, Collatable};
use crate::{Error, Result};

/// How one value (a field, a key) is collated. `#[derive(Collate)]` picks a
/// strategy per field: [`Stack`] by default, or the one named by
/// `#[collate(list)]`, `#[collate(concat)]`, `#[collate(pad)]`,
/// `#[collate(packed)]` ([`Packed`](super::Packed)), or a program's own,
/// named by its type: `#[collate(with = Ragged)]`, where `Ragged`
/// implements `Strategy<T>` for the field's type `T` (its batch type and
/// a [`BatchBuilder`] that pushes each sample's value).
pub trait Strategy<T> {
    /// The batch of `T` under this strategy.
    type Batch;
    /// Its builder.
    type Builder: BatchBuilder<T, Batch = Self::Batch>;

    /// A builder for `len` samples laid out like `first`.
    fn builder(first: &T, len: usize) -> Self::Builder;

    /// [`builder`](Strategy::builder), with the batch's memory from
    /// `buffers` (a context's pool). The default ignores them and calls
    /// `builder`.
    fn builder_in(first: &T, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        let _ = buffers;
        Self::builder(first, len)
    }
}

/// The default strategy: the value's own [`Collatable`] batching (stacking
/// for arrays and numbers, structure-preserving for containers).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stack;

impl<T: Collatable> Strategy<T> for Stack {
    type Batch = T::Batch;
    type Builder = T::Builder;

    fn builder(first: &T, len: usize) -> T::Builder {
        T::builder(first, len)
    }

    fn builder_in(first: &T, len: usize, buffers: Buffers<'_>) -> T::Builder {
        T::builder_in(first, len, buffers)
    }
}

/// Keep the values as they are, in a `Vec` (`#[collate(list)]`): for values
/// that do not batch (ragged data, opaque objects).
#[derive(Debug, Clone, Copy, Default)]
pub struct List;

/// Builder of [`List`].
#[derive(Debug)]
pub struct ListBuilder<T> {
    values: Vec<T>,
}

impl<T> BatchBuilder<T> for ListBuilder<T> {
    type Batch = Vec<T>;

    fn push(&mut self, item: T, _position: usize) -> Result<()> {
        self.values.push(item);
        Ok(())
    }

    fn finish(self) -> Result<Vec<T>> {
        Ok(self.values)
    }
}

impl<T> Strategy<T> for List {
    type Batch = Vec<T>;
    type Builder = ListBuilder<T>;

    fn builder(_first: &T, len: usize) -> ListBuilder<T> {
        ListBuilder {
            values: Vec::with_capacity(len),
        }
    }
}

/// Concatenate arrays along their first axis (`#[collate(concat)]`, ADL's
/// "concat" mode): shapes `[n_i, rest...]` give `[sum n_i, rest...]`. The
/// other axes must agree.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConcatRows;

/// Builder of [`ConcatRows`].
#[derive(Debug)]
pub struct ConcatBuilder<A, D> {
    first_shape: D,
    rows: usize,
    data: Vec<A>,
}

/// Whether `shape` and `first` disagree on an axis other than the first.
/// Both have at least one axis (checked before).
pub(super) fn trailing_shape_differs<D: Dimension>(shape: &[usize], first: &D) -> bool {
    shape.len() != first.ndim() || shape[1..] != first.slice()[1..]
}

pub(super) fn zero_dimensional(position: usize, what: &str) -> Error {
    Error::collate(
        position,
        format!("a zero-dimensional array cannot be {what}: it has no first axis"),
    )
}

impl<A: Clone, D: RemoveAxis> BatchBuilder<Array<A, D>> for ConcatBuilder<A, D> {
    type Batch = Array<A, D>;

    fn push(&mut self, item: Array<A, D>, position: usize) -> Result<()> {
        if item.ndim() == 0 {
            return Err(zero_dimensional(position, "concatenated"));
        }
        if trailing_shape_differs(item.shape(), &self.first_shape) {
            return Err(Error::collate(
                position,
                format!(
                    "shape {:?} cannot be concatenated with shape {:?} of sample 0: all axes but the first must agree",
                    item.shape(),
                    self.first_shape.slice()
                ),
            ));
        }
        self.rows += item.len_of(Axis(0));
        super::array::extend_row_major(&mut self.data, &item);
        Ok(())
    }

    fn finish(self) -> Result<Array<A, D>> {
        let mut shape = self.first_shape;
        if shape.ndim() == 0 {
            return Err(zero_dimensional(0, "concatenated"));
        }
        shape[0] = self.rows;
        Array::from_shape_vec(shape, self.data)
            .map_err(|e| Error::collate(0, format!("cannot concatenate the batch: {e}")))
    }
}

impl<A: Clone, D: RemoveAxis> Strategy<Array<A, D>> for ConcatRows {
    type Batch = Array<A, D>;
    type Builder = ConcatBuilder<A, D>;

    fn builder(first: &Array<A, D>, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &Array<A, D>, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        ConcatBuilder {
            first_shape: first.raw_dim(),
            rows: 0,
            data: buffers.take(first.len().saturating_mul(len)),
        }
    }
}

/// Pad arrays that are ragged along their first axis to the longest, and
/// stack them (`#[collate(pad)]`): shapes `[n_i, rest...]` give
/// `[batch, max n_i, rest...]`, padded with `A::default()`, plus the length
/// of each sample and a mask of the real rows. The other axes must agree.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pad;

/// A batch of ragged arrays padded to the longest: what [`Pad`] gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Padded<A, D: Dimension> {
    /// `[batch, max len, rest...]`, padding filled with `A::default()`.
    pub data: Array<A, D>,
    /// The real length (rows) of every sample.
    pub lengths: Array1<usize>,
    /// `[batch, max len]`: true for real rows, false for padding.
    pub mask: Array2<bool>,
}

/// Builder of [`Pad`]: holds the samples (moved, not copied) until the
/// longest is known, then writes each once into the padded batch.
#[derive(Debug)]
pub struct PadBuilder<A, D: Dimension> {
    first_shape: D,
    samples: Vec<Array<A, D>>,
    /// Where the padded batch's memory comes from, when it is known how
    /// long it is (at `finish`).
    pool: Option<Arc<BufferPool>>,
}

impl<A: Clone + Default, D: RemoveAxis> BatchBuilder<Array<A, D>> for PadBuilder<A, D> {
    type Batch = Padded<A, D::Larger>;

    fn push(&mut self, item: Array<A, D>, position: usize) -> Result<()> {
        if item.ndim() == 0 {
            return Err(zero_dimensional(position, "padded"));
        }
        if trailing_shape_differs(item.shape(), &self.first_shape) {
            return Err(Error::collate(
                position,
                format!(
                    "shape {:?} cannot be padded together with shape {:?} of sample 0: all axes but the first must agree",
                    item.shape(),
                    self.first_shape.slice()
                ),
            ));
        }
        self.samples.push(item);
        Ok(())
    }

    fn finish(self) -> Result<Self::Batch> {
        if self.first_shape.ndim() == 0 {
            return Err(zero_dimensional(0, "padded"));
        }
        let lengths: Array1<usize> = self.samples.iter().map(|a| a.len_of(Axis(0))).collect();
        let longest = lengths.iter().copied().max().unwrap_or(0);
        let mut shape = D::Larger::zeros(self.first_shape.ndim() + 1);
        shape[0] = self.samples.len();
        shape[1] = longest;
        shape.slice_mut()[2..].copy_from_slice(&self.first_shape.slice()[1..]);
        // One pass: each sample's rows, then its padding, straight into the
        // batch buffer.
        let row_len: usize = self.first_shape.slice()[1..].iter().product();
        let buffers = self
            .pool
            .as_ref()
            .map_or(Buffers::none(), Buffers::from_pool);
        let mut values = buffers.take(self.samples.len() * longest * row_len);
        for (sample, &rows) in self.samples.iter().zip(&lengths) {
            super::array::extend_row_major(&mut values, sample);
            values.extend(std::iter::repeat_n(
                A::default(),
                (longest - rows) * row_len,
            ));
        }
        let data = Array::from_shape_vec(shape, values)
            .map_err(|e| Error::collate(0, format!("cannot pad the batch: {e}")))?;
        let mask = Array2::from_shape_fn((self.samples.len(), longest), |(b, r)| r < lengths[b]);
        Ok(Padded {
            data,
            lengths,
            mask,
        })
    }
}

impl<A: Clone + Default, D: RemoveAxis> Strategy<Array<A, D>> for Pad {
    type Batch = Padded<A, D::Larger>;
    type Builder = PadBuilder<A, D>;

    fn builder(first: &Array<A, D>, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &Array<A, D>, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        PadBuilder {
            first_shape: first.raw_dim(),
            samples: Vec::with_capacity(len),
            pool: buffers.pool().cloned(),
        }
    }
}

/// A padded batch gives back the memory of its data, lengths and mask.
impl<A, D: Dimension> Recycle for Padded<A, D> {
    fn recycle(self, recycler: &mut Recycler) {
        self.data.recycle(recycler);
        self.lengths.recycle(recycler);
        self.mask.recycle(recycler);
    }
}

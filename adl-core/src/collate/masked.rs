//! [`Masked`]: a reading and whether it is valid, as an
//! [`Interpolated`](crate::Interpolated) sensor gives it; a batch of them
//! is a [`MaskedBatch`], the values' batch with the mask beside it.

use adl_exec::Buffers;
use ndarray::Array1;

use super::{BatchBuilder, Collatable};
use crate::Result;

/// A reading and whether it is valid: an
/// [`Interpolated`](crate::Interpolated) sensor masks a time outside its
/// samples, or in a gap longer than its `max_gap`, and its value there is
/// the nearest sample's, so that a batch keeps its shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Masked<T> {
    /// The reading (the nearest sample's where it is not valid).
    pub value: T,
    /// Whether the reading is valid.
    pub valid: bool,
}

/// A batch of [`Masked`] readings: the values' batch, and the mask beside
/// it (`valid[i]` for sample `i`).
#[derive(Debug, Clone, PartialEq)]
pub struct MaskedBatch<B> {
    /// The values' batch, as their type collates.
    pub value: B,
    /// Which samples are valid: `[B]`.
    pub valid: Array1<bool>,
}

/// Builds a [`MaskedBatch`]: the values' builder and the mask's.
pub struct MaskedBuilder<T: Collatable> {
    value: T::Builder,
    valid: <bool as Collatable>::Builder,
}

impl<T: Collatable> BatchBuilder<Masked<T>> for MaskedBuilder<T> {
    type Batch = MaskedBatch<T::Batch>;

    fn push(&mut self, item: Masked<T>, position: usize) -> Result<()> {
        self.value.push(item.value, position)?;
        self.valid.push(item.valid, position)
    }

    fn finish(self) -> Result<MaskedBatch<T::Batch>> {
        Ok(MaskedBatch {
            value: self.value.finish()?,
            valid: self.valid.finish()?,
        })
    }
}

impl<T: Collatable> Collatable for Masked<T> {
    type Batch = MaskedBatch<T::Batch>;
    type Builder = MaskedBuilder<T>;

    fn builder(first: &Self, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        MaskedBuilder {
            value: T::builder_in(&first.value, len, buffers),
            valid: bool::builder_in(&first.valid, len, buffers),
        }
    }
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;
    use crate::Collate;
    use crate::collate::DefaultCollate;

    #[test]
    fn the_mask_stands_beside_the_values() {
        let samples = vec![
            Masked {
                value: array![1.0f32, 2.0],
                valid: true,
            },
            Masked {
                value: array![3.0f32, 4.0],
                valid: false,
            },
        ];
        let batch = DefaultCollate.collate(samples).unwrap();
        assert_eq!(batch.value, array![[1.0f32, 2.0], [3.0, 4.0]]);
        assert_eq!(batch.valid, array![true, false]);
    }
}

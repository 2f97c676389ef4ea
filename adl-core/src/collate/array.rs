use ndarray::{Array, Dimension};

use super::{BatchBuilder, Collatable};
use crate::{Error, Result};

/// Stacks arrays of one shape along a new first axis, copying each sample
/// once into the preallocated batch.
#[derive(Debug)]
pub struct StackBuilder<A, D: Dimension> {
    shape: D,
    data: Vec<A>,
    pushed: usize,
}

impl<A: Clone, D: Dimension> StackBuilder<A, D> {
    /// A builder for `len` arrays of `first`'s shape.
    pub fn new(first: &Array<A, D>, len: usize) -> Self {
        StackBuilder {
            shape: first.raw_dim(),
            data: crate::exec::buffer(first.len().saturating_mul(len)),
            pushed: 0,
        }
    }
}

impl<A: Clone, D: Dimension> BatchBuilder<Array<A, D>> for StackBuilder<A, D> {
    type Batch = Array<A, D::Larger>;

    fn push(&mut self, item: Array<A, D>, position: usize) -> Result<()> {
        if item.raw_dim() != self.shape {
            return Err(Error::collate(
                position,
                format!(
                    "shape {:?} differs from shape {:?} of sample 0",
                    item.shape(),
                    self.shape.slice()
                ),
            ));
        }
        match item.as_slice() {
            Some(contiguous) => self.data.extend_from_slice(contiguous),
            None => self.data.extend(item.iter().cloned()),
        }
        self.pushed += 1;
        Ok(())
    }

    fn finish(self) -> Result<Self::Batch> {
        let mut shape = D::Larger::zeros(self.shape.ndim() + 1);
        shape[0] = self.pushed;
        shape.slice_mut()[1..].copy_from_slice(self.shape.slice());
        // Every push checked the shape, so the data has exactly
        // pushed * product(shape) elements.
        Array::from_shape_vec(shape, self.data)
            .map_err(|e| Error::collate(self.pushed, format!("cannot stack the batch: {e}")))
    }
}

impl<A: Clone, D: Dimension> Collatable for Array<A, D> {
    type Batch = Array<A, D::Larger>;
    type Builder = StackBuilder<A, D>;

    fn builder(first: &Self, len: usize) -> Self::Builder {
        StackBuilder::new(first, len)
    }
}

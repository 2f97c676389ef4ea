use adl_exec::Buffers;
use ndarray::{Array, ArrayBase, Axis, Data, Dimension};

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
        Self::new_in(first, len, Buffers::none())
    }

    /// A builder for `len` arrays of `first`'s shape, the batch's memory
    /// from `buffers`.
    pub fn new_in(first: &Array<A, D>, len: usize, buffers: Buffers<'_>) -> Self {
        StackBuilder {
            shape: first.raw_dim(),
            data: buffers.take(first.len().saturating_mul(len)),
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
        extend_row_major(&mut self.data, &item);
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

/// Append the elements of `array` to `out` in row-major order, at memcpy
/// speed whatever its memory layout: a contiguous array in one copy, any
/// other lane by lane along its last axis (a lane with stride 1 copied, one
/// with stride -1 (a flipped view) read backwards from its memory, which
/// the compiler vectorises, others element by element).
pub(crate) fn extend_row_major<A: Clone, S, D>(out: &mut Vec<A>, array: &ArrayBase<S, D>)
where
    S: Data<Elem = A>,
    D: Dimension,
{
    if let Some(contiguous) = array.as_slice() {
        out.extend_from_slice(contiguous);
        return;
    }
    if array.ndim() == 0 {
        out.extend(array.iter().cloned());
        return;
    }
    out.reserve(array.len());
    for lane in array.lanes(Axis(array.ndim() - 1)) {
        match (lane.strides()[0], lane.as_slice_memory_order()) {
            (1, Some(run)) => out.extend_from_slice(run),
            (-1, Some(run)) => out.extend(run.iter().rev().cloned()),
            _ => out.extend(lane.iter().cloned()),
        }
    }
}

impl<A: Clone, D: Dimension> Collatable for Array<A, D> {
    type Batch = Array<A, D::Larger>;
    type Builder = StackBuilder<A, D>;

    fn builder(first: &Self, len: usize) -> Self::Builder {
        StackBuilder::new(first, len)
    }

    fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        StackBuilder::new_in(first, len, buffers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array3, s};

    #[test]
    fn any_layout_is_copied_in_row_major_order() {
        let a = Array3::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 12 + j * 4 + k) as i32);
        for view in [
            a.view(),
            a.slice(s![.., .., ..;-1]),
            a.slice(s![..;-1, .., ..]),
            a.slice(s![.., ..;2, 1..;2]),
            a.view().reversed_axes(),
        ] {
            let mut out = Vec::new();
            extend_row_major(&mut out, &view);
            assert_eq!(out, view.iter().copied().collect::<Vec<_>>());
        }
    }
}

use adl_exec::Buffers;

use super::{BatchBuilder, Collatable};
use crate::{Error, Result};

/// Collates lists of one length element-wise: a batch of `Vec<T>` of
/// length `n` is a `Vec` of `n` batches (torch's transposition of lists).
pub struct VecBuilder<T: Collatable> {
    elements: Vec<T::Builder>,
}

impl<T: Collatable> BatchBuilder<Vec<T>> for VecBuilder<T> {
    type Batch = Vec<T::Batch>;

    fn push(&mut self, item: Vec<T>, position: usize) -> Result<()> {
        if item.len() != self.elements.len() {
            return Err(Error::collate(
                position,
                format!(
                    "list of {} elements, but sample 0 has {}; lists must have equal lengths",
                    item.len(),
                    self.elements.len()
                ),
            ));
        }
        for (k, (builder, value)) in self.elements.iter_mut().zip(item).enumerate() {
            builder
                .push(value, position)
                .map_err(|e| e.within(format!("[{k}]")))?;
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<T::Batch>> {
        self.elements
            .into_iter()
            .enumerate()
            .map(|(k, b)| b.finish().map_err(|e| e.within(format!("[{k}]"))))
            .collect()
    }
}

impl<T: Collatable> Collatable for Vec<T> {
    type Batch = Vec<T::Batch>;
    type Builder = VecBuilder<T>;

    fn builder(first: &Self, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        VecBuilder {
            elements: first
                .iter()
                .map(|x| T::builder_in(x, len, buffers))
                .collect(),
        }
    }
}

/// Collates fixed-size arrays element-wise: `[T; N]` gives `[T::Batch; N]`.
pub struct FixedArrayBuilder<T: Collatable, const N: usize> {
    elements: [T::Builder; N],
}

impl<T: Collatable, const N: usize> BatchBuilder<[T; N]> for FixedArrayBuilder<T, N> {
    type Batch = [T::Batch; N];

    fn push(&mut self, item: [T; N], position: usize) -> Result<()> {
        for (k, (builder, value)) in self.elements.iter_mut().zip(item).enumerate() {
            builder
                .push(value, position)
                .map_err(|e| e.within(format!("[{k}]")))?;
        }
        Ok(())
    }

    fn finish(self) -> Result<[T::Batch; N]> {
        let mut batches = Vec::with_capacity(N);
        for (k, b) in self.elements.into_iter().enumerate() {
            batches.push(b.finish().map_err(|e| e.within(format!("[{k}]")))?);
        }
        match batches.try_into() {
            Ok(array) => Ok(array),
            Err(_) => unreachable!("exactly N batches from N builders"),
        }
    }
}

impl<T: Collatable, const N: usize> Collatable for [T; N] {
    type Batch = [T::Batch; N];
    type Builder = FixedArrayBuilder<T, N>;

    fn builder(first: &Self, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        FixedArrayBuilder {
            elements: std::array::from_fn(|k| T::builder_in(&first[k], len, buffers)),
        }
    }
}

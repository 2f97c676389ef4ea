//! [`Batch`]: a batch handed out by the loader, whose memory goes back to
//! the loader when it is dropped.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use adl_exec::{BufferPool, Recycle};

/// A batch from a [`Loader`](super::Loader): use it as the batch itself
/// (it dereferences to `B`); when it is dropped, its memory goes back to the
/// loader and the next batches are built in it, so a warm epoch allocates
/// nothing and its speed does not depend on the allocator.
///
/// [`into_inner`](Batch::into_inner) takes the batch out for good (its
/// memory is then not recycled).
///
/// ```
/// use adl::pipeline::Stages;
/// use adl::{InMemory, collate::DefaultCollate};
/// use adl::graph::loader::Loader;
/// let dataset: InMemory<f32> = (0..6).map(|i| i as f32).collect();
/// let pipeline = Stages::new().with_collate(DefaultCollate);
/// let loader = Loader::new(dataset, pipeline).batch_size(3).workers(1).build()?;
/// let mut epoch = loader.epoch(0);
/// let first = epoch.next().unwrap()?;
/// assert_eq!(first.sum(), 3.0); // methods of the batch, through Deref
/// assert_eq!(first.to_vec(), vec![0.0f32, 1.0, 2.0]);
/// let kept = epoch.next().unwrap()?.into_inner(); // an Array1<f32>, owned
/// assert_eq!(kept.len(), 3);
/// # Ok::<(), adl::Error>(())
/// ```
pub struct Batch<B: Recycle> {
    value: Option<B>,
    pool: Arc<BufferPool>,
    indices: Option<Box<[usize]>>,
}

impl<B: Recycle> Batch<B> {
    pub(crate) fn new(value: B, pool: Arc<BufferPool>, indices: Option<Box<[usize]>>) -> Self {
        Batch {
            value: Some(value),
            pool,
            indices,
        }
    }

    /// The dataset indices of the batch's samples, in the batch's order
    /// (without those skipped), when the loader was asked for them
    /// ([`LoaderBuilder::batch_indices`](super::LoaderBuilder::batch_indices)):
    /// for logging which samples a step saw, or finding a bad one.
    ///
    /// ```
    /// use adl::prelude::*;
    /// use adl::InMemory;
    ///
    /// let dataset: InMemory<f32> = (0..6).map(|i| i as f32 * 10.0).collect();
    /// let pipeline = Stages::new().with_collate(DefaultCollate);
    /// let loader = Loader::new(dataset, pipeline)
    ///     .batch_size(4)
    ///     .shuffle(3)
    ///     .batch_indices(true)
    ///     .build()?;
    /// for batch in loader.epoch(0) {
    ///     let batch = batch?;
    ///     let indices = batch.indices().expect("asked for");
    ///     for (value, &index) in batch.iter().zip(indices) {
    ///         assert_eq!(*value, index as f32 * 10.0);
    ///     }
    /// }
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn indices(&self) -> Option<&[usize]> {
        self.indices.as_deref()
    }

    /// The batch, taken out of the loader's care: its memory is not
    /// recycled.
    pub fn into_inner(mut self) -> B {
        match self.value.take() {
            Some(value) => value,
            // `value` is `None` only inside `into_inner` and `drop`, which
            // both consume the batch.
            None => unreachable!("a loader batch is emptied only when consumed"),
        }
    }
}

impl<B: Recycle> Deref for Batch<B> {
    type Target = B;

    fn deref(&self) -> &B {
        match &self.value {
            Some(value) => value,
            None => unreachable!("a loader batch is emptied only when consumed"),
        }
    }
}

impl<B: Recycle> DerefMut for Batch<B> {
    fn deref_mut(&mut self) -> &mut B {
        match &mut self.value {
            Some(value) => value,
            None => unreachable!("a loader batch is emptied only when consumed"),
        }
    }
}

impl<B: Recycle> Drop for Batch<B> {
    fn drop(&mut self) {
        if let Some(value) = self.value.take() {
            self.pool.recycle(value);
        }
    }
}

impl<B: Recycle + fmt::Debug> fmt::Debug for Batch<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<B: Recycle + PartialEq> PartialEq<B> for Batch<B> {
    fn eq(&self, other: &B) -> bool {
        **self == *other
    }
}

impl<B: Recycle + PartialEq> PartialEq for Batch<B> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

/// Iterating a batch by value takes it out of the loader's care (as
/// [`into_inner`](Batch::into_inner)): `epoch.flat_map(Result::unwrap)`
/// gives the items of every batch.
impl<B: Recycle + IntoIterator> IntoIterator for Batch<B> {
    type Item = B::Item;
    type IntoIter = B::IntoIter;

    fn into_iter(self) -> B::IntoIter {
        self.into_inner().into_iter()
    }
}

impl<B: Recycle> AsRef<B> for Batch<B> {
    fn as_ref(&self) -> &B {
        self
    }
}

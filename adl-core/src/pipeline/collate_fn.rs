use crate::{Collate, Result};

/// A collate made of a function `Fn(Vec<T>) -> Batch`: see [`collate_fn`].
///
/// Closures are not collates by themselves (they are
/// [`Transform`](crate::Transform)s, and a collate must not be mistaken for
/// one); this wrapper says which role the function plays. For a collate
/// that can fail, implement [`Collate`] directly.
#[derive(Debug, Clone, Copy)]
pub struct CollateFn<F>(pub F);

/// A collate from a function of the whole batch of samples.
///
/// ```
/// use adl::{Collate, pipeline::collate_fn};
///
/// let sum = collate_fn(|v: Vec<i64>| v.iter().sum::<i64>());
/// assert_eq!(sum.collate(vec![1, 2, 3])?, 6);
/// # Ok::<(), adl::Error>(())
/// ```
pub fn collate_fn<F>(f: F) -> CollateFn<F> {
    CollateFn(f)
}

impl<T, B, F: Fn(Vec<T>) -> B> Collate<T> for CollateFn<F> {
    type Batch = B;

    fn collate(&self, samples: Vec<T>) -> Result<B> {
        Ok((self.0)(samples))
    }
}

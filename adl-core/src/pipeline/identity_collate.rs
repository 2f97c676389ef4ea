use crate::{Collate, Result};

/// The collate that returns the samples as they are, a `Vec`: the
/// reference's default collate (`abstract.Collate`, "identity to list"), and
/// the default collate of a [`Stages`](super::Stages) pipeline.
///
/// ```
/// use adl::{Collate, pipeline::IdentityCollate};
///
/// assert_eq!(IdentityCollate.collate(vec![1, 2, 3])?, vec![1, 2, 3]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct IdentityCollate;

impl<T> Collate<T> for IdentityCollate {
    type Batch = Vec<T>;

    fn collate(&self, samples: Vec<T>) -> Result<Vec<T>> {
        Ok(samples)
    }
}

use adl_exec::Buffers;

use super::{BatchBuilder, Collatable};
use crate::{Error, Result};

/// Collates options: all `Some` gives `Some(batch)`, all `None` gives
/// `None`; a mix is an error naming the first sample that differs.
pub enum OptionBuilder<T: Collatable> {
    /// The first sample was `Some`: collate the values.
    Some(T::Builder),
    /// The first sample was `None`.
    None,
}

impl<T: Collatable> BatchBuilder<Option<T>> for OptionBuilder<T> {
    type Batch = Option<T::Batch>;

    fn push(&mut self, item: Option<T>, position: usize) -> Result<()> {
        match (self, item) {
            (OptionBuilder::Some(builder), Some(value)) => builder.push(value, position),
            (OptionBuilder::None, None) => Ok(()),
            (OptionBuilder::Some(_), None) => {
                Err(Error::collate(position, "None, but sample 0 is Some"))
            }
            (OptionBuilder::None, Some(_)) => {
                Err(Error::collate(position, "Some, but sample 0 is None"))
            }
        }
    }

    fn finish(self) -> Result<Option<T::Batch>> {
        match self {
            OptionBuilder::Some(builder) => builder.finish().map(Some),
            OptionBuilder::None => Ok(None),
        }
    }
}

impl<T: Collatable> Collatable for Option<T> {
    type Batch = Option<T::Batch>;
    type Builder = OptionBuilder<T>;

    fn builder(first: &Self, len: usize) -> Self::Builder {
        Self::builder_in(first, len, Buffers::none())
    }

    fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        match first {
            Some(value) => OptionBuilder::Some(T::builder_in(value, len, buffers)),
            None => OptionBuilder::None,
        }
    }
}

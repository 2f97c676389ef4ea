use super::{BatchBuilder, Collatable};
use crate::Result;

/// Collects strings into a `Vec<String>`, as torch keeps strings as a list.
#[derive(Debug)]
pub struct TextBuilder {
    values: Vec<String>,
}

impl TextBuilder {
    /// A builder for `len` strings.
    pub fn new(len: usize) -> Self {
        TextBuilder {
            values: Vec::with_capacity(len),
        }
    }
}

impl<S: Into<String>> BatchBuilder<S> for TextBuilder {
    type Batch = Vec<String>;

    fn push(&mut self, item: S, _position: usize) -> Result<()> {
        self.values.push(item.into());
        Ok(())
    }

    fn finish(self) -> Result<Vec<String>> {
        Ok(self.values)
    }
}

impl Collatable for String {
    type Batch = Vec<String>;
    type Builder = TextBuilder;

    fn builder(_first: &Self, len: usize) -> TextBuilder {
        TextBuilder::new(len)
    }
}

impl Collatable for &str {
    type Batch = Vec<String>;
    type Builder = TextBuilder;

    fn builder(_first: &Self, len: usize) -> TextBuilder {
        TextBuilder::new(len)
    }
}

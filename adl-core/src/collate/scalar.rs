use adl_exec::Buffers;
use ndarray::Array1;

use super::{BatchBuilder, Collatable};
use crate::Result;

/// Collects numbers (or bools) into a 1-D array of the same type.
#[derive(Debug)]
pub struct ScalarBuilder<T> {
    values: Vec<T>,
}

impl<T> ScalarBuilder<T> {
    /// A builder for `len` values.
    pub fn new(len: usize) -> Self {
        Self::new_in(len, Buffers::none())
    }

    /// A builder for `len` values, the batch's memory from `buffers`.
    pub fn new_in(len: usize, buffers: Buffers<'_>) -> Self {
        ScalarBuilder {
            values: buffers.take(len),
        }
    }
}

impl<T> BatchBuilder<T> for ScalarBuilder<T> {
    type Batch = Array1<T>;

    fn push(&mut self, item: T, _position: usize) -> Result<()> {
        self.values.push(item);
        Ok(())
    }

    fn finish(self) -> Result<Array1<T>> {
        Ok(Array1::from(self.values))
    }
}

macro_rules! scalar_collatable {
    ($($t:ty),*) => {$(
        impl Collatable for $t {
            type Batch = Array1<$t>;
            type Builder = ScalarBuilder<$t>;

            fn builder(_first: &Self, len: usize) -> Self::Builder {
                ScalarBuilder::new(len)
            }

            fn builder_in(_first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
                ScalarBuilder::new_in(len, buffers)
            }
        }
    )*};
}

scalar_collatable!(
    i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, bool
);

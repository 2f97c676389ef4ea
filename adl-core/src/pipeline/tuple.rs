//! Typed parallel composition: tuples of pipelines over tuple samples, and
//! tuples of collates.

use super::in_branch;
use crate::transform::label;
use crate::{Collate, Pipeline, Result};

macro_rules! tuple_pipeline {
    ($(($idx:tt, $p:ident, $in:ident)),+) => {
        /// Parallel composition over a tuple: element `i` of each sample
        /// goes through pipeline `i`, collated by its own collate. Errors of
        /// element `i` are named `.i`.
        impl<$($in, $p: Pipeline<$in>),+> Pipeline<($($in,)+)> for ($($p,)+) {
            type Transformed = ($($p::Transformed,)+);
            type Collated = ($($p::Collated,)+);
            type Processed = ($($p::Processed,)+);

            fn sample(&self, raw: ($($in,)+)) -> Result<Self::Transformed> {
                Ok(($(
                    self.$idx
                        .sample(raw.$idx)
                        .map_err(|e| label(e, concat!(".", stringify!($idx))))?,
                )+))
            }

            fn collate(&self, samples: Vec<Self::Transformed>) -> Result<Self::Collated> {
                let len = samples.len();
                let mut columns = ($(Vec::<$p::Transformed>::with_capacity(len),)+);
                for sample in samples {
                    $(columns.$idx.push(sample.$idx);)+
                }
                Ok(($(
                    self.$idx.collate(columns.$idx).map_err(|e| {
                        let at = concat!(".", stringify!($idx));
                        in_branch(e, at, at)
                    })?,
                )+))
            }

            fn batch(&self, collated: Self::Collated) -> Result<Self::Processed> {
                Ok(($(
                    self.$idx
                        .batch(collated.$idx)
                        .map_err(|e| label(e, concat!(".", stringify!($idx))))?,
                )+))
            }
        }

        /// Parallel composition of collates over a tuple: element `i` of the
        /// samples is collated by collate `i`.
        impl<$($in, $p: Collate<$in>),+> Collate<($($in,)+)> for ($($p,)+) {
            type Batch = ($($p::Batch,)+);

            fn collate(&self, samples: Vec<($($in,)+)>) -> Result<Self::Batch> {
                let len = samples.len();
                let mut columns = ($(Vec::<$in>::with_capacity(len),)+);
                for sample in samples {
                    $(columns.$idx.push(sample.$idx);)+
                }
                Ok(($(
                    self.$idx.collate(columns.$idx).map_err(|e| {
                        let at = concat!(".", stringify!($idx));
                        in_branch(e, at, at)
                    })?,
                )+))
            }
        }
    };
}

tuple_pipeline!((0, P0, I0));
tuple_pipeline!((0, P0, I0), (1, P1, I1));
tuple_pipeline!((0, P0, I0), (1, P1, I1), (2, P2, I2));
tuple_pipeline!((0, P0, I0), (1, P1, I1), (2, P2, I2), (3, P3, I3));
tuple_pipeline!(
    (0, P0, I0),
    (1, P1, I1),
    (2, P2, I2),
    (3, P3, I3),
    (4, P4, I4)
);
tuple_pipeline!(
    (0, P0, I0),
    (1, P1, I1),
    (2, P2, I2),
    (3, P3, I3),
    (4, P4, I4),
    (5, P5, I5)
);
tuple_pipeline!(
    (0, P0, I0),
    (1, P1, I1),
    (2, P2, I2),
    (3, P3, I3),
    (4, P4, I4),
    (5, P5, I5),
    (6, P6, I6)
);
tuple_pipeline!(
    (0, P0, I0),
    (1, P1, I1),
    (2, P2, I2),
    (3, P3, I3),
    (4, P4, I4),
    (5, P5, I5),
    (6, P6, I6),
    (7, P7, I7)
);

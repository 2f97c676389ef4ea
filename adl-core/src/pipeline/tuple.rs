//! Typed parallel composition: tuples of pipelines over tuple samples, and
//! tuples of collates.

use super::filled;
use super::in_branch;
use crate::transform::label;
use crate::{Collate, Pipeline, Result};
use adl_exec::{Context, Sequential, join_each};

macro_rules! tuple_pipeline {
    ($(($idx:tt, $p:ident, $in:ident)),+) => {
        /// Parallel composition over a tuple: element `i` of each sample
        /// goes through pipeline `i`, collated by its own collate. Errors of
        /// element `i` are named `.i`. In an execution context the
        /// elements' collate and batch stages run at once.
        impl<$($in, $p),+> Pipeline<($($in,)+)> for ($($p,)+)
        where
            $($p: Pipeline<$in> + Sync,
              $p::Transformed: Send,
              $p::Collated: Send,
              $p::Processed: Send,)+
        {
            type Transformed = ($($p::Transformed,)+);
            type Collated = ($($p::Collated,)+);
            type Processed = ($($p::Processed,)+);

            fn sample(&self, raw: ($($in,)+)) -> Result<Self::Transformed> {
                self.sample_in(&Sequential::new(), raw)
            }

            fn collate(&self, samples: Vec<Self::Transformed>) -> Result<Self::Collated> {
                self.collate_in(&Sequential::new(), samples)
            }

            fn batch(&self, collated: Self::Collated) -> Result<Self::Processed> {
                self.batch_in(&Sequential::new(), collated)
            }

            fn sample_in(&self, cx: &dyn Context, raw: ($($in,)+)) -> Result<Self::Transformed> {
                Ok(($(
                    self.$idx
                        .sample_in(cx, raw.$idx)
                        .map_err(|e| label(e, concat!(".", stringify!($idx))))?,
                )+))
            }

            fn collate_in(&self, cx: &dyn Context, samples: Vec<Self::Transformed>) -> Result<Self::Collated> {
                let len = samples.len();
                let mut columns = ($(Some(Vec::<$p::Transformed>::with_capacity(len)),)+);
                for sample in samples {
                    $(if let Some(c) = &mut columns.$idx { c.push(sample.$idx); })+
                }
                let mut out = ($(None::<Result<$p::Collated>>,)+);
                join_each(cx, &mut [$((&mut || {
                    out.$idx = columns.$idx.take().map(|c| self.$idx.collate_in(cx, c));
                }) as &mut (dyn FnMut() + Send)),+], |task| task());
                Ok(($(
                    filled(out.$idx).map_err(|e| {
                        let at = concat!(".", stringify!($idx));
                        in_branch(e, at, at)
                    })?,
                )+))
            }

            fn batch_in(&self, cx: &dyn Context, collated: Self::Collated) -> Result<Self::Processed> {
                let mut inputs = ($(Some(collated.$idx),)+);
                let mut out = ($(None::<Result<$p::Processed>>,)+);
                join_each(cx, &mut [$((&mut || {
                    out.$idx = inputs.$idx.take().map(|c| self.$idx.batch_in(cx, c));
                }) as &mut (dyn FnMut() + Send)),+], |task| task());
                Ok(($(
                    filled(out.$idx)
                        .map_err(|e| label(e, concat!(".", stringify!($idx))))?,
                )+))
            }
        }

        /// Parallel composition of collates over a tuple: element `i` of the
        /// samples is collated by collate `i`.
        impl<$($in, $p: Collate<$in>),+> Collate<($($in,)+)> for ($($p,)+) {
            type Batch = ($($p::Batch,)+);

            fn collate(&self, samples: Vec<($($in,)+)>) -> Result<Self::Batch> {
                self.collate_in(&Sequential::new(), samples)
            }

            fn collate_in(&self, cx: &dyn Context, samples: Vec<($($in,)+)>) -> Result<Self::Batch> {
                let len = samples.len();
                let mut columns = ($(Vec::<$in>::with_capacity(len),)+);
                for sample in samples {
                    $(columns.$idx.push(sample.$idx);)+
                }
                Ok(($(
                    self.$idx.collate_in(cx, columns.$idx).map_err(|e| {
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

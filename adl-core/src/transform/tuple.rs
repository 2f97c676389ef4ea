//! Typed parallel composition: a tuple of transforms over a tuple sample.

use super::named::label;
use crate::{Result, Transform};
use adl_exec::{Context, Sequential};

macro_rules! tuple_transform {
    ($(($idx:tt, $t:ident, $in:ident)),+) => {
        /// Parallel composition over a tuple: element `i` of the sample goes
        /// through transform `i`. An error of element `i` is named `.i`.
        impl<$($in, $t: Transform<$in>),+> Transform<($($in,)+)> for ($($t,)+) {
            type Output = ($($t::Output,)+);

            fn apply(&self, input: ($($in,)+)) -> Result<Self::Output> {
                self.apply_in(&Sequential::new(), input)
            }

            fn apply_in(&self, cx: &dyn Context, input: ($($in,)+)) -> Result<Self::Output> {
                Ok(($(
                    self.$idx
                        .apply_in(cx, input.$idx)
                        .map_err(|e| label(e, concat!(".", stringify!($idx))))?,
                )+))
            }
        }
    };
}

tuple_transform!((0, T0, I0));
tuple_transform!((0, T0, I0), (1, T1, I1));
tuple_transform!((0, T0, I0), (1, T1, I1), (2, T2, I2));
tuple_transform!((0, T0, I0), (1, T1, I1), (2, T2, I2), (3, T3, I3));
tuple_transform!(
    (0, T0, I0),
    (1, T1, I1),
    (2, T2, I2),
    (3, T3, I3),
    (4, T4, I4)
);
tuple_transform!(
    (0, T0, I0),
    (1, T1, I1),
    (2, T2, I2),
    (3, T3, I3),
    (4, T4, I4),
    (5, T5, I5)
);
tuple_transform!(
    (0, T0, I0),
    (1, T1, I1),
    (2, T2, I2),
    (3, T3, I3),
    (4, T4, I4),
    (5, T5, I5),
    (6, T6, I6)
);
tuple_transform!(
    (0, T0, I0),
    (1, T1, I1),
    (2, T2, I2),
    (3, T3, I3),
    (4, T4, I4),
    (5, T5, I5),
    (6, T6, I6),
    (7, T7, I7)
);

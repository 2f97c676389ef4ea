use adl_exec::Buffers;

use super::{BatchBuilder, Collatable};
use crate::Result;

macro_rules! tuple_collatable {
    ($name:ident; $($t:ident $idx:tt),+) => {
        /// Collates tuples element-wise: a tuple of batches.
        pub struct $name<$($t: Collatable),+>($(pub $t::Builder),+);

        impl<$($t: Collatable),+> BatchBuilder<($($t,)+)> for $name<$($t),+> {
            type Batch = ($($t::Batch,)+);

            fn push(&mut self, item: ($($t,)+), position: usize) -> Result<()> {
                $(self.$idx.push(item.$idx, position).map_err(|e| e.within(concat!(".", stringify!($idx))))?;)+
                Ok(())
            }

            fn finish(self) -> Result<Self::Batch> {
                Ok(($(self.$idx.finish().map_err(|e| e.within(concat!(".", stringify!($idx))))?,)+))
            }
        }

        impl<$($t: Collatable),+> Collatable for ($($t,)+) {
            type Batch = ($($t::Batch,)+);
            type Builder = $name<$($t),+>;

            fn builder(first: &Self, len: usize) -> Self::Builder {
                Self::builder_in(first, len, Buffers::none())
            }

            fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
                $name($($t::builder_in(&first.$idx, len, buffers)),+)
            }
        }
    };
}

tuple_collatable!(Tuple1Builder; A 0);
tuple_collatable!(Tuple2Builder; A 0, B 1);
tuple_collatable!(Tuple3Builder; A 0, B 1, C 2);
tuple_collatable!(Tuple4Builder; A 0, B 1, C 2, D 3);
tuple_collatable!(Tuple5Builder; A 0, B 1, C 2, D 3, E 4);
tuple_collatable!(Tuple6Builder; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_collatable!(Tuple7Builder; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_collatable!(Tuple8Builder; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

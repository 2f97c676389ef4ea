//! [`Field`]: one value of a LeRobot item (a feature's array, a camera's
//! frames, the task), and its batch, [`FieldBatch`].

use adl_core::collate::{BatchBuilder, Collatable, StackBuilder, TextBuilder};
use adl_core::{Error, Result};
use adl_exec::{Buffers, Recycle, Recycler};
use ndarray::{ArrayD, IxDyn};

use crate::video::{Frames, FramesBuilder};

/// `$macro!` applied to every numeric variant: `(Variant, element type)`.
macro_rules! numeric_variants {
    ($macro:ident) => {
        $macro! {F32 f32, F64 f64, I64 i64, I32 i32, I16 i16, I8 i8, U8 u8, Bool bool}
    };
}

macro_rules! field_enums {
    ($($variant:ident $t:ty),*) => {
        /// One value of a LeRobot item: a feature's array (a frame's value,
        /// or a window of them with `delta_timestamps`: `[T, ...]`), a
        /// camera's frames not yet decoded (decoded when the batch is
        /// collated, or by [`Frames::decode`]), or text (the task).
        ///
        /// A batch of them ([`DefaultCollate`](adl_core::collate::DefaultCollate)
        /// of items, each a [`Record`](adl_core::Record) of fields) is a
        /// [`FieldBatch`] per key: the arrays stacked, the frames decoded
        /// into one array, the texts a list.
        #[derive(Debug, Clone)]
        pub enum Field {
            $(
                #[doc = concat!("An array of `", stringify!($t), "`.")]
                $variant(ArrayD<$t>),
            )*
            /// A camera's frames, not yet decoded.
            Frames(Frames),
            /// Text (the task).
            Text(String),
        }

        /// A batch of [`Field`]s: the arrays stacked along a new first
        /// axis, the frames decoded into one `uint8` array, the texts a list.
        #[derive(Debug, Clone, PartialEq)]
        pub enum FieldBatch {
            $(
                #[doc = concat!("Arrays of `", stringify!($t), "`, stacked.")]
                $variant(ArrayD<$t>),
            )*
            /// Texts, one a sample.
            Text(Vec<String>),
        }

        /// Builds a [`FieldBatch`] of the variant of the first sample.
        pub enum FieldBuilder {
            $(
                #[doc = concat!("Arrays of `", stringify!($t), "`.")]
                $variant(StackBuilder<$t, IxDyn>),
            )*
            /// Frames, decoded at the end.
            Frames(FramesBuilder),
            /// Texts.
            Text(TextBuilder),
        }

        impl Field {
            /// What the field holds, for messages: its type and shape.
            pub fn kind(&self) -> String {
                match self {
                    $(Field::$variant(a) => format!("{} array of shape {:?}", stringify!($t), a.shape()),)*
                    Field::Frames(f) => format!("frames of shape {:?}", f.shape()),
                    Field::Text(_) => "text".to_string(),
                }
            }
        }

        impl Collatable for Field {
            type Batch = FieldBatch;
            type Builder = FieldBuilder;

            fn builder(first: &Self, len: usize) -> FieldBuilder {
                Field::builder_in(first, len, Buffers::none())
            }

            fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> FieldBuilder {
                match first {
                    $(Field::$variant(a) => FieldBuilder::$variant(StackBuilder::new_in(a, len, buffers)),)*
                    Field::Frames(f) => FieldBuilder::Frames(Frames::builder_in(f, len, buffers)),
                    Field::Text(_) => FieldBuilder::Text(TextBuilder::new(len)),
                }
            }
        }

        impl BatchBuilder<Field> for FieldBuilder {
            type Batch = FieldBatch;

            fn push(&mut self, item: Field, position: usize) -> Result<()> {
                match (self, item) {
                    $((FieldBuilder::$variant(b), Field::$variant(a)) => b.push(a, position),)*
                    (FieldBuilder::Frames(b), Field::Frames(f)) => b.push(f, position),
                    (FieldBuilder::Text(b), Field::Text(t)) => b.push(t, position),
                    (builder, item) => Err(Error::collate(
                        position,
                        format!("{}, where sample 0 has {}", item.kind(), builder.kind()),
                    )),
                }
            }

            fn finish(self) -> Result<FieldBatch> {
                match self {
                    $(FieldBuilder::$variant(b) => b.finish().map(FieldBatch::$variant),)*
                    FieldBuilder::Frames(b) => b.finish().map(FieldBatch::U8),
                    FieldBuilder::Text(b) => BatchBuilder::<String>::finish(b).map(FieldBatch::Text),
                }
            }
        }

        impl FieldBuilder {
            /// What the builder takes, for messages.
            fn kind(&self) -> &'static str {
                match self {
                    $(FieldBuilder::$variant(_) => concat!("a ", stringify!($t), " array"),)*
                    FieldBuilder::Frames(_) => "frames",
                    FieldBuilder::Text(_) => "text",
                }
            }
        }

        /// The arrays' buffers go back to the pool; texts are dropped.
        impl Recycle for FieldBatch {
            fn recycle(self, recycler: &mut Recycler) {
                match self {
                    $(FieldBatch::$variant(a) => a.recycle(recycler),)*
                    FieldBatch::Text(_) => {}
                }
            }
        }
    };
}

numeric_variants!(field_enums);

//! Collation: turning a `Vec` of samples into one batch, with PyTorch
//! `default_collate` semantics, typed.
//!
//! [`DefaultCollate`] collates any [`Collatable`] sample, preserving its
//! structure:
//!
//! | sample | batch |
//! |---|---|
//! | `ndarray::Array<A, D>` (equal shapes) | `Array<A, D::Larger>`, stacked along a new first axis |
//! | `i8`…`i64`, `u8`…`u64`, `isize`, `usize`, `f32`, `f64`, `bool` | `Array1` of the **same** type |
//! | `String`, `&str` | `Vec<String>` |
//! | tuples (up to 8), `[T; N]` | the same shape of batches |
//! | `Vec<T>` (equal lengths) | `Vec<T::Batch>`, transposed, as torch does for lists |
//! | `HashMap<K, V>`, `BTreeMap<K, V>`, [`Record<T>`](crate::Record) (same keys) | the same map of batches |
//! | `Option<T>` (all `Some` or all `None`) | `Option<T::Batch>` |
//! | [`Masked<T>`] (an [`Interpolated`](crate::Interpolated) sensor's reading) | [`MaskedBatch`]: `T`'s batch, and the mask `Array1<bool>` beside it |
//! | a struct with `#[derive(Collate)]` | its generated `…Batch` struct |
//!
//! **A deliberate difference from torch**: numbers keep their type. torch
//! turns Python floats into `float64` tensors; here `f32` samples give an
//! `Array1<f32>` and `f64` samples an `Array1<f64>`, because a Rust sample's
//! type is already the precision its author chose.
//!
//! Collation writes each sample once: the first sample fixes the layout, a
//! [`BatchBuilder`] preallocates the whole batch, and every sample is moved or
//! copied straight into its slot. A sample that does not fit (another shape,
//! other keys, another list length) is an [`Error::Collate`]
//! naming the path inside the sample (`.image`, `[2]`, `["key"]`), the
//! sample's position and both values.
//!
//! Other strategies for one field (keep a list, concatenate rows, pad ragged
//! arrays, pack ragged arrays with their offsets) are [`Strategy`] types:
//! [`Stack`], [`List`], [`ConcatRows`], [`Pad`], [`Packed`]. Each named one
//! is a [`Collate`] of its own too, batching the whole sample its way:
//! what `collate: pad` (`packed`, `list`, `concat`) is in a `pipeline!`
//! branch over ragged data. [`WrittenRows`] batches values that write
//! their own rows ([`WriteRow`]): a sample's last step done in the
//! batch's memory, not in an array of its own that is then copied.
//!
//! ```
//! use adl::Collate;
//! use adl::collate::Pad;
//! use adl::ndarray::array;
//!
//! let padded = Pad.collate(vec![array![1.0f32, 2.0, 3.0], array![4.0]])?;
//! assert_eq!(padded.data, array![[1.0f32, 2.0, 3.0], [4.0, 0.0, 0.0]]);
//! assert_eq!(padded.lengths, array![3, 1]);
//! # Ok::<(), adl::Error>(())
//! ```
//!
//! **A window of readings.** A [`Window`](crate::Window)'s sample is a
//! `Vec` of its sensor's samples, and a `Vec` collates as torch collates a
//! list: position by position, a batch per position of the window (for
//! readings of `Array1<f32>`, `N` arrays `[B, C]`; for `[f32; C]`, `N`
//! times `C` arrays `[B]`). For one `[B, N, C]` array, stack each window
//! first:
//! [`Window::stacked`](crate::Window::stacked) gives a sample that is one
//! array `[N, C]` of its readings (numbers, `[A; C]` or arrays: a
//! [`Reading`]), which collates to `[B, N, C]`.
//!
//! ```
//! use adl::{Collate, Sensor, Series, Timestamps, Window, collate::DefaultCollate};
//!
//! let times = Timestamps::new("imu", (0..6).map(|i| i as f64 * 0.01).collect())?;
//! let imu = Series::new("imu", times, |i| Ok([i as f32, 0.0, 1.0]));
//! let windows = Window::new(imu, 2, 0)?.stacked(); // the last 3 readings
//! let batch = DefaultCollate.collate(vec![windows.get(0)?, windows.get(3)?])?;
//! assert_eq!(batch.shape(), &[2, 3, 3]);
//! assert_eq!(batch[[1, 2, 0]], 5.0); // window 3 ends at reading 5
//! # Ok::<(), adl::Error>(())
//! ```
//!
//! For data already in memory, [`Gather`] collates without sample arrays:
//! the samples are row indices, and each row is copied once, straight from
//! the arrays into the batch. An [`InPlace`] array is not copied at all:
//! its batch is [`Rows`], which the batch kernels read where they lie.
//!
//! ```
//! use adl::{Collate, collate::DefaultCollate};
//! use ndarray::{Array1, array};
//!
//! let samples = vec![(array![1.0f32, 2.0], 7i64), (array![3.0, 4.0], 8)];
//! let (x, y) = DefaultCollate.collate(samples)?;
//! assert_eq!(x, array![[1.0f32, 2.0], [3.0, 4.0]]);
//! assert_eq!(y, Array1::from(vec![7i64, 8]));
//! # Ok::<(), adl::Error>(())
//! ```

mod array;
mod gather;
mod map;
mod masked;
mod option;
mod packed;
mod reading;
mod rows;
mod same_row;
mod scalar;
mod sequence;
mod strategy;
mod text;
mod tuple;
mod written;

pub use array::StackBuilder;
pub use gather::{Gather, RowSource, RowWindows};
pub use map::{BTreeMapBuilder, HashMapBuilder, RecordBuilder};
pub use masked::{Masked, MaskedBatch, MaskedBuilder};
pub use option::OptionBuilder;
pub use packed::{Packed, PackedBuilder, PackedRows};
pub use reading::{Reading, StackReadings, Stacked, stack_readings};
pub use rows::{InPlace, Rows};
pub use same_row::SameRow;
pub use scalar::ScalarBuilder;
pub use sequence::{FixedArrayBuilder, VecBuilder};
pub use strategy::{
    ConcatBuilder, ConcatRows, List, ListBuilder, Pad, PadBuilder, Padded, Stack, Strategy,
};
pub use text::TextBuilder;
pub use tuple::{
    Tuple1Builder, Tuple2Builder, Tuple3Builder, Tuple4Builder, Tuple5Builder, Tuple6Builder,
    Tuple7Builder, Tuple8Builder,
};
pub use written::{WriteRow, WrittenRows, WrittenRowsBuilder};

use adl_exec::Buffers;

use crate::{Collate, Error, Result};
use adl_exec::Context;

/// A sample type that [`DefaultCollate`] can batch.
///
/// Implemented for the types in the [module table](self) and derived for
/// structs with `#[derive(Collate)]`. An implementation says what a batch
/// of `Self` is and how to build one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be collated into a batch by `default`",
    label = "no way to batch `{Self}`",
    note = "derive it: `#[derive(adl::Collate)]` on the struct batches its fields one by one; or collate with a function of the whole batch, `collate: collate_fn(|samples: Vec<{Self}>| ...)`. Numbers, arrays, strings, tuples, `Vec`s, maps and `Option`s collate as PyTorch's default_collate does"
)]
pub trait Collatable: Sized {
    /// A batch of `Self`.
    type Batch;
    /// Builds a batch from samples pushed one by one.
    type Builder: BatchBuilder<Self, Batch = Self::Batch>;

    /// A builder for a batch of `len` samples whose layout (shapes, keys,
    /// list lengths) is that of `first`. Allocates the batch once.
    fn builder(first: &Self, len: usize) -> Self::Builder;

    /// [`builder`](Collatable::builder), with the batch's memory from
    /// `buffers` (a context's pool: see [`Buffers`]). The default ignores
    /// them and calls `builder`; the implementations of this crate and of
    /// `#[derive(Collate)]` take their memory there, and pass `buffers` on
    /// to the builders of their parts.
    fn builder_in(first: &Self, len: usize, buffers: Buffers<'_>) -> Self::Builder {
        let _ = buffers;
        Self::builder(first, len)
    }
}

/// Builds one batch: samples are pushed in order, each written once into
/// the preallocated batch, then [`finish`](BatchBuilder::finish) hands the
/// batch over.
pub trait BatchBuilder<T> {
    /// The batch built.
    type Batch;

    /// Write sample `item`, at `position` in the batch. A sample whose
    /// layout differs from the first is an [`Error::Collate`].
    fn push(&mut self, item: T, position: usize) -> Result<()>;

    /// The finished batch. Fails only where the samples pushed cannot form
    /// a batch (for instance none were pushed where a layout needs one).
    fn finish(self) -> Result<Self::Batch>;
}

/// The default collate: structure-preserving batching of any
/// [`Collatable`] sample (see the [module docs](self)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DefaultCollate;

impl<T: Collatable> Collate<T> for DefaultCollate {
    type Batch = T::Batch;

    fn collate(&self, samples: Vec<T>) -> Result<T::Batch> {
        collate_with::<Stack, T>(samples)
    }

    /// The batch's memory comes from the context's pool.
    fn collate_in(&self, cx: &dyn Context, samples: Vec<T>) -> Result<T::Batch> {
        collate_with_in::<Stack, T>(cx, samples)
    }
}

// A named strategy is a collate of its own: the whole sample batched by
// it, as the strategy batches a field (see the module docs).
macro_rules! strategy_collates {
    ($($strategy:ident),*) => {$(
        impl<T> Collate<T> for $strategy
        where
            $strategy: Strategy<T>,
        {
            type Batch = <$strategy as Strategy<T>>::Batch;

            fn collate(&self, samples: Vec<T>) -> Result<Self::Batch> {
                collate_with::<$strategy, T>(samples)
            }

            /// The batch's memory comes from the context's pool.
            fn collate_in(&self, cx: &dyn Context, samples: Vec<T>) -> Result<Self::Batch> {
                collate_with_in::<$strategy, T>(cx, samples)
            }
        }
    )*};
}

strategy_collates!(List, ConcatRows, Pad, Packed);

/// Collate `samples` with strategy `S`: build from the first sample's
/// layout, push every sample, finish. An empty batch is an error (there is
/// no first sample to take the layout from).
pub fn collate_with<S: Strategy<T>, T>(samples: Vec<T>) -> Result<S::Batch> {
    collate_from::<S, T>(Buffers::none(), samples)
}

/// [`collate_with`] in a context: the batch's memory comes from the
/// context's pool (its [`Buffers`]).
pub fn collate_with_in<S: Strategy<T>, T>(cx: &dyn Context, samples: Vec<T>) -> Result<S::Batch> {
    collate_from::<S, T>(cx.buffers(), samples)
}

/// [`collate_with`], with the batch's memory from `buffers`.
fn collate_from<S: Strategy<T>, T>(buffers: Buffers<'_>, samples: Vec<T>) -> Result<S::Batch> {
    let Some(first) = samples.first() else {
        return Err(Error::collate(
            0,
            "the batch is empty; there is nothing to collate",
        ));
    };
    let mut builder = S::builder_in(first, samples.len(), buffers);
    for (position, sample) in samples.into_iter().enumerate() {
        builder.push(sample, position)?;
    }
    builder.finish()
}

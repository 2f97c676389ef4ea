//! [`Recycle`]: how a batch gives its memory back to a
//! [`BufferPool`](super::BufferPool).

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};

use ndarray::{Array, Dimension};

use super::Recycler;

/// A batch whose memory can be reused for later batches.
///
/// A loader hands out batches that give their buffers back to its
/// [`BufferPool`](super::BufferPool) when they are dropped; for that the
/// batch type implements `Recycle`. Every batch type of `DefaultCollate`
/// does (arrays, tuples, `Vec`s, maps, `Record`, `Option`, `Padded`, `PackedRows`), and
/// `#[derive(Collate)]` implements it for the batch struct it generates.
///
/// A batch type of your own needs one line when it has nothing worth
/// recycling (its memory is then freed as usual):
///
/// ```
/// struct Summary { mean: f64, count: usize }
/// impl adl::exec::Recycle for Summary {}
/// ```
///
/// or hands its arrays to the [`Recycler`]:
///
/// ```
/// use adl::exec::{Recycle, Recycler};
/// use ndarray::{Array1, Array4};
///
/// struct Frames { pixels: Array4<f32>, ids: Array1<u64>, note: String }
/// impl Recycle for Frames {
///     fn recycle(self, recycler: &mut Recycler) {
///         self.pixels.recycle(recycler);
///         self.ids.recycle(recycler);
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "the batch type `{Self}` does not implement `adl::exec::Recycle`",
    label = "the loader recycles the memory of the batches it hands out",
    note = "add `impl adl::exec::Recycle for {Self} {{}}` (its memory is then freed, not reused), or recycle its arrays in `Recycle::recycle`"
)]
pub trait Recycle {
    /// Hand every reusable buffer of `self` to `recycler`. The default
    /// recycles nothing: `self` is dropped.
    fn recycle(self, recycler: &mut Recycler)
    where
        Self: Sized,
    {
        let _ = recycler;
    }

    /// The bytes of memory `self` holds that it does not give back through
    /// [`recycle`](Recycle::recycle), as far as it knows (a batch of Python
    /// objects, say): a loader under a memory budget
    /// (`LoaderBuilder::memory_budget`) counts them with the batch. The default: none, every buffer of the
    /// batch is given back and counted there.
    fn unpooled_bytes(&self) -> usize {
        0
    }
}

impl<A, D: Dimension> Recycle for Array<A, D> {
    fn recycle(self, recycler: &mut Recycler) {
        let (values, _offset) = self.into_raw_vec_and_offset();
        recycler.vec(values);
    }
}

impl<T: Recycle> Recycle for Vec<T> {
    fn recycle(mut self, recycler: &mut Recycler) {
        for item in self.drain(..) {
            item.recycle(recycler);
        }
        recycler.vec(self);
    }
}

impl<T: Recycle, const N: usize> Recycle for [T; N] {
    fn recycle(self, recycler: &mut Recycler) {
        for item in self {
            item.recycle(recycler);
        }
    }
}

impl<T: Recycle> Recycle for Option<T> {
    fn recycle(self, recycler: &mut Recycler) {
        if let Some(value) = self {
            value.recycle(recycler);
        }
    }
}

impl<T: Recycle> Recycle for Box<T> {
    fn recycle(self, recycler: &mut Recycler) {
        (*self).recycle(recycler);
    }
}

impl<K, V: Recycle, S> Recycle for HashMap<K, V, S> {
    fn recycle(self, recycler: &mut Recycler) {
        for (_, value) in self {
            value.recycle(recycler);
        }
    }
}

impl<K, V: Recycle> Recycle for BTreeMap<K, V> {
    fn recycle(self, recycler: &mut Recycler) {
        for (_, value) in self {
            value.recycle(recycler);
        }
    }
}

/// Values with no buffer worth keeping: recycling them drops them.
macro_rules! nothing_to_recycle {
    ($($t:ty),*) => { $(impl Recycle for $t {})* };
}
nothing_to_recycle!(
    (),
    bool,
    char,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64,
    String,
    &str
);

macro_rules! recycle_tuple {
    ($($name:ident)+) => {
        impl<$($name: Recycle),+> Recycle for ($($name,)+) {
            #[allow(non_snake_case)]
            fn recycle(self, recycler: &mut Recycler) {
                let ($($name,)+) = self;
                $($name.recycle(recycler);)+
            }
        }
    };
}
recycle_tuple!(A);
recycle_tuple!(A B);
recycle_tuple!(A B C);
recycle_tuple!(A B C D);
recycle_tuple!(A B C D E);
recycle_tuple!(A B C D E F);
recycle_tuple!(A B C D E F G);
recycle_tuple!(A B C D E F G H);

/// A field of a struct that `#[derive(Collate)]` generates, recycled if its
/// type implements [`Recycle`] and dropped otherwise (chosen at the
/// expansion site, where the type is known; see [`RecycleKnown`] and
/// [`RecycleOther`]).
#[doc(hidden)]
pub struct RecycleField<T>(Cell<Option<T>>);

impl<T> RecycleField<T> {
    /// Wrap `value`.
    #[doc(hidden)]
    pub fn new(value: T) -> Self {
        RecycleField(Cell::new(Some(value)))
    }
}

/// Picked for a field whose type implements [`Recycle`].
#[doc(hidden)]
pub trait RecycleKnown {
    /// Recycle the field.
    fn recycle_field(&self, recycler: &mut Recycler);
}

impl<T: Recycle> RecycleKnown for RecycleField<T> {
    fn recycle_field(&self, recycler: &mut Recycler) {
        if let Some(value) = self.0.take() {
            value.recycle(recycler);
        }
    }
}

/// Picked for any other field: it is dropped.
#[doc(hidden)]
pub trait RecycleOther {
    /// Drop the field.
    fn recycle_field(&self, recycler: &mut Recycler);
}

impl<T> RecycleOther for &RecycleField<T> {
    fn recycle_field(&self, _recycler: &mut Recycler) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};

    #[test]
    fn nested_batches_give_every_array() {
        let mut recycler = Recycler::default();
        let batch = (
            Array2::<f32>::zeros((64, 128)),
            vec![Array1::<i64>::zeros(4096)],
            Some(Array1::<u8>::zeros(20_000)),
            String::from("not kept"),
            Array1::<f32>::zeros(4), // too small to be worth keeping
        );
        batch.recycle(&mut recycler);
        assert_eq!(recycler.bytes(), 32768 + 32768 + 20_000);
    }

    #[test]
    // The borrow picks the method (autoref specialisation), as in the
    // derive's expansion.
    #[allow(clippy::needless_borrow)]
    fn a_field_is_recycled_when_its_type_can_be_and_dropped_otherwise() {
        struct Opaque(#[allow(dead_code)] Vec<f32>);
        let mut recycler = Recycler::default();
        (&RecycleField::new(Array1::<f32>::zeros(8192))).recycle_field(&mut recycler);
        (&RecycleField::new(Opaque(vec![1.0; 8192]))).recycle_field(&mut recycler);
        assert_eq!(recycler.bytes(), 32768);
    }
}

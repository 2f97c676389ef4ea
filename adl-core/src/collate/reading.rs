use ndarray::{Array, Dimension, Ix0, Ix1};

use crate::{Error, Result};

/// A value that is one block of an array: a number (`f32`, `i64`, `bool`,
/// ...), a fixed-size array of numbers (`[f32; 3]`), or an ndarray array.
/// What [`Window::stacked`](crate::Window::stacked) stacks: `N` readings
/// of one shape are one array of shape `[N, shape...]` (their
/// [`Stacked`] type), which [`DefaultCollate`](super::DefaultCollate)
/// batches to `[B, N, shape...]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stacked into an array with other readings",
    label = "not a number, a `[number; C]` or an ndarray array",
    note = "a stacked window's readings are numbers (`f32`, `i64`, `bool`...), fixed-size arrays of numbers (`[f32; 3]`) or `ndarray` arrays; for other samples, keep the window's `Vec` (it collates position by position) or map it with `.try_map(...)`"
)]
pub trait Reading {
    /// The type of its elements.
    type Elem: Clone;
    /// The shape of one reading: `Ix0` for a number, `Ix1` for `[A; C]`,
    /// `D` for an `Array<A, D>`.
    type Dim: Dimension;

    /// The reading's shape.
    fn shape(&self) -> Self::Dim;

    /// Append the reading's elements to `out`, in row-major order.
    fn append_to(self, out: &mut Vec<Self::Elem>);
}

/// The array that readings of type `R` stack into: one axis more than a
/// reading, the readings first (`Vec<[f32; 3]>` gives `Array2<f32>`,
/// `Vec<Array2<u8>>` gives `Array3<u8>`).
pub type Stacked<R> = Array<<R as Reading>::Elem, <<R as Reading>::Dim as Dimension>::Larger>;

/// [`stack_readings`] for readings of type `R`, as a function pointer: what
/// [`Window::stacked`](crate::Window::stacked) maps each window with, so
/// that a stacked window's type can be written
/// (`TryMapped<Window<Imu>, StackReadings<[f32; 3]>>`).
pub type StackReadings<R> = fn(Vec<R>) -> Result<Stacked<R>>;

macro_rules! number_reading {
    ($($t:ty),*) => {$(
        impl Reading for $t {
            type Elem = $t;
            type Dim = Ix0;

            fn shape(&self) -> Ix0 {
                Ix0()
            }

            fn append_to(self, out: &mut Vec<$t>) {
                out.push(self);
            }
        }
    )*};
}

number_reading!(
    i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, bool
);

/// `C` numbers: a reading of shape `[C]`.
impl<A: Reading<Dim = Ix0>, const C: usize> Reading for [A; C] {
    type Elem = A::Elem;
    type Dim = Ix1;

    fn shape(&self) -> Ix1 {
        Ix1(C)
    }

    fn append_to(self, out: &mut Vec<A::Elem>) {
        for number in self {
            number.append_to(out);
        }
    }
}

impl<A: Clone, D: Dimension> Reading for Array<A, D> {
    type Elem = A;
    type Dim = D;

    fn shape(&self) -> D {
        self.raw_dim()
    }

    fn append_to(self, out: &mut Vec<A>) {
        super::array::extend_row_major(out, &self);
    }
}

/// `readings` stacked along a new first axis: `N` readings of shape `s`
/// are one array of shape `[N, s...]`, each reading copied once.
///
/// Readings of different shapes, or none (there is no shape to give the
/// array), are an [`Error::InvalidParameter`] naming the first reading
/// that differs and both shapes.
///
/// ```
/// use adl::collate::stack_readings;
/// use adl::ndarray::array;
///
/// let window = vec![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// assert_eq!(stack_readings(window)?, array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
/// let err = stack_readings(vec![array![1, 2], array![3, 4, 5]]).unwrap_err();
/// assert!(err.to_string().contains("reading 1 has shape [3], reading 0 [2]"), "{err}");
/// # Ok::<(), adl::Error>(())
/// ```
pub fn stack_readings<R: Reading>(readings: Vec<R>) -> Result<Stacked<R>> {
    let Some(first) = readings.first() else {
        return Err(Error::invalid(
            "stacked readings",
            "there are none, so their shape is unknown",
        ));
    };
    let reading = first.shape();
    let mut shape = <R::Dim as Dimension>::Larger::zeros(reading.ndim() + 1);
    shape[0] = readings.len();
    shape.slice_mut()[1..].copy_from_slice(reading.slice());
    let mut values = Vec::with_capacity(shape.size());
    for (k, value) in readings.into_iter().enumerate() {
        let other = value.shape();
        if other != reading {
            return Err(Error::invalid(
                "stacked readings",
                format!(
                    "reading {k} has shape {:?}, reading 0 {:?}; readings are stacked only where they have one shape",
                    other.slice(),
                    reading.slice()
                ),
            ));
        }
        value.append_to(&mut values);
    }
    Array::from_shape_vec(shape, values).map_err(|e| Error::internal("stack_readings", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array3, array, s};

    #[test]
    fn numbers_fixed_arrays_and_arrays_stack_along_a_new_first_axis() {
        assert_eq!(stack_readings(vec![1u8, 2, 3]).unwrap(), array![1u8, 2, 3]);
        assert_eq!(
            stack_readings(vec![[true, false], [false, false]]).unwrap(),
            array![[true, false], [false, false]]
        );
        let planes = Array3::from_shape_fn((3, 2, 4), |(i, j, k)| (i * 8 + j * 4 + k) as i32);
        let readings: Vec<_> = planes.outer_iter().map(|p| p.to_owned()).collect();
        assert_eq!(stack_readings(readings).unwrap(), planes);
        // A reading of another layout is copied in its logical order.
        let flipped = planes.slice(s![0, .., ..;-1]).to_owned();
        let view = planes.slice(s![0, .., ..;-1]);
        let stacked = stack_readings(vec![view.to_owned(), flipped]).unwrap();
        assert_eq!(stacked.slice(s![1, .., ..]), view);
    }

    #[test]
    fn readings_of_two_shapes_or_none_are_errors() {
        let err = stack_readings(vec![
            Array1::<f32>::zeros(3),
            Array1::zeros(3),
            Array1::zeros(2),
        ])
        .unwrap_err();
        assert!(matches!(err, Error::InvalidParameter { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("reading 2 has shape [2], reading 0 [3]"),
            "{err}"
        );
        let err = stack_readings(Vec::<[f32; 3]>::new()).unwrap_err();
        assert!(err.to_string().contains("there are none"), "{err}");
    }
}

//! [`Interpolate`]: readings that can be evaluated between two samples,
//! for a sensor read at another sensor's times
//! ([`Interpolated`](crate::Interpolated)): numbers, arrays and vectors of
//! numbers linearly (as NumPy's `interp`), a [`Quaternion`] by spherical
//! linear interpolation (as SciPy's `Slerp`).
//!
//! ```
//! use adl::interpolate::{Interpolate, Quaternion};
//!
//! assert_eq!(f64::interpolate(&1.0, &3.0, 0.25)?, 1.5);
//! assert_eq!(<[f32; 2]>::interpolate(&[0.0, 10.0], &[1.0, 20.0], 0.5)?, [0.5, 15.0]);
//! let quarter_turn = Quaternion::new(0.0, 0.0, 0.5f64.sqrt(), 0.5f64.sqrt())?;
//! let eighth = Quaternion::interpolate(&Quaternion::IDENTITY, &quarter_turn, 0.5)?;
//! assert!((eighth.z - (std::f64::consts::PI / 8.0).sin()).abs() < 1e-12);
//! # Ok::<(), adl::Error>(())
//! ```

mod quaternion;

pub use quaternion::{Quaternion, QuaternionBuilder};

use ndarray::{Array, Dimension, Zip};

use crate::{Error, Result};

/// A reading that can be evaluated a fraction of the way between two
/// readings of one sensor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be interpolated between two readings",
    label = "no interpolation for `{Self}`",
    note = "numbers, arrays of numbers, `Vec`s and `Quaternion`s interpolate; implement `adl::interpolate::Interpolate` for a type of your own (field by field), or synchronize this sensor with `Nearest` instead"
)]
pub trait Interpolate: Sized {
    /// The reading a fraction `w` (from 0 to 1) of the way from `a` to
    /// `b`: `a` at 0, `b` at 1. Readings that cannot be mixed (arrays of
    /// different shapes) are an error.
    fn interpolate(a: &Self, b: &Self, w: f64) -> Result<Self>;
}

/// `a + (b - a) * w`, in `f64`.
fn lerp(a: f64, b: f64, w: f64) -> f64 {
    a + (b - a) * w
}

impl Interpolate for f64 {
    fn interpolate(a: &f64, b: &f64, w: f64) -> Result<f64> {
        Ok(lerp(*a, *b, w))
    }
}

impl Interpolate for f32 {
    /// Computed in `f64`, then rounded to `f32`.
    fn interpolate(a: &f32, b: &f32, w: f64) -> Result<f32> {
        Ok(lerp(f64::from(*a), f64::from(*b), w) as f32)
    }
}

impl<T: Interpolate, const N: usize> Interpolate for [T; N] {
    /// Element by element.
    fn interpolate(a: &[T; N], b: &[T; N], w: f64) -> Result<[T; N]> {
        let mut out = Vec::with_capacity(N);
        for (a, b) in a.iter().zip(b) {
            out.push(T::interpolate(a, b, w)?);
        }
        out.try_into()
            .map_err(|_| Error::internal("interpolate", "an array of N readings"))
    }
}

impl<T: Interpolate> Interpolate for Vec<T> {
    /// Element by element; vectors of different lengths are an error.
    fn interpolate(a: &Vec<T>, b: &Vec<T>, w: f64) -> Result<Vec<T>> {
        if a.len() != b.len() {
            return Err(Error::invalid(
                "interpolated readings",
                format!(
                    "{} values, then {}: cannot interpolate between them",
                    a.len(),
                    b.len()
                ),
            ));
        }
        a.iter()
            .zip(b)
            .map(|(a, b)| T::interpolate(a, b, w))
            .collect()
    }
}

impl<T: Interpolate + Clone, D: Dimension> Interpolate for Array<T, D> {
    /// Element by element; arrays of different shapes are an error.
    fn interpolate(a: &Self, b: &Self, w: f64) -> Result<Self> {
        if a.shape() != b.shape() {
            return Err(Error::invalid(
                "interpolated readings",
                format!(
                    "arrays of shape {:?}, then {:?}: cannot interpolate between them",
                    a.shape(),
                    b.shape()
                ),
            ));
        }
        let mut failed = None;
        let out = Zip::from(a)
            .and(b)
            .map_collect(|a, b| match T::interpolate(a, b, w) {
                Ok(v) => v,
                Err(e) => {
                    failed.get_or_insert(e);
                    a.clone()
                }
            });
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

/// A pair of readings, each interpolated.
impl<A: Interpolate, B: Interpolate> Interpolate for (A, B) {
    fn interpolate(a: &(A, B), b: &(A, B), w: f64) -> Result<(A, B)> {
        Ok((
            A::interpolate(&a.0, &b.0, w)?,
            B::interpolate(&a.1, &b.1, w)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;

    #[test]
    fn numbers_and_arrays_are_linear() {
        assert_eq!(f64::interpolate(&-1.0, &1.0, 0.75).unwrap(), 0.5);
        assert_eq!(f32::interpolate(&0.0, &4.0, 0.5).unwrap(), 2.0);
        let a = array![[0.0f32, 1.0], [2.0, 3.0]];
        let b = array![[2.0f32, 3.0], [4.0, 5.0]];
        assert_eq!(
            Array::interpolate(&a, &b, 0.5).unwrap(),
            array![[1.0f32, 2.0], [3.0, 4.0]]
        );
        let pair = <(f64, [f64; 1])>::interpolate(&(0.0, [1.0]), &(1.0, [3.0]), 0.5).unwrap();
        assert_eq!(pair, (0.5, [2.0]));
    }

    #[test]
    fn readings_of_different_shapes_are_an_error() {
        let err = Vec::interpolate(&vec![1.0f64], &vec![1.0, 2.0], 0.5).unwrap_err();
        assert!(err.to_string().contains("1 values, then 2"), "{err}");
        let a = Array::<f64, _>::zeros((2, 2));
        let b = Array::<f64, _>::zeros((2, 3));
        let err = Array::interpolate(&a, &b, 0.5).unwrap_err();
        assert!(err.to_string().contains("[2, 2], then [2, 3]"), "{err}");
    }
}

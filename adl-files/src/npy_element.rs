//! [`NpyElement`]: the element types a `.npy` file is read as.

use ndarray_npy::ViewElement;
use num_complex::Complex;

/// An element type that [`Npy`](crate::Npy) and [`NpyFiles`](crate::NpyFiles) read:
/// the NumPy types with a Rust twin of the same bytes, `u8`..`u64`
/// (`uint8`..`uint64`), `i8`..`i64` (`int8`..`int64`), `f32`, `f64`
/// (`float32`, `float64`) and [`Complex<f32>`], [`Complex<f64>`]
/// (`complex64`, `complex128`: radar data, as `adl::num_complex`).
///
/// The list is closed (the trait is sealed), and it is checked where a
/// sensor is opened: an element type outside it is one compile error at
/// the `open` call, not one at every use of the sensor. A file whose
/// elements are of another type than the one asked for is refused when it
/// is opened, naming the file, its element type and the one asked for.
///
/// ```
/// use adl::Sensor;
/// use adl::files::Npy;
/// use adl::ndarray::Ix1;
/// use adl::num_complex::Complex;
///
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("radar.npy");
/// # ndarray_npy::write_npy(&path, &adl::ndarray::array![[Complex::new(1.0f32, -1.0)], [Complex::new(0.5, 2.0)]])?;
/// // radar.npy: complex64 [2, 1]
/// let times = adl::Timestamps::new("radar", vec![0.0, 0.1])?;
/// let radar: Npy<Complex<f32>, Ix1> = Npy::open("radar", &path, times.clone())?;
/// assert_eq!(radar.get(1)?[0], Complex::new(0.5, 2.0));
///
/// let err = Npy::<f32, Ix1>::open("radar", &path, times).unwrap_err();
/// assert!(err.to_string().ends_with("holds elements of type '<c8', not f32"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Another type is refused at the `open` call (`a .npy file's elements
/// cannot be read as bool`), and only there:
///
/// ```compile_fail,E0277
/// # let times = adl::Timestamps::new("mask", vec![0.0])?;
/// let mask: adl::files::Npy<bool> = adl::files::Npy::open("mask", "mask.npy", times)?;
/// # Ok::<(), adl::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "a `.npy` file's elements cannot be read as `{Self}`",
    label = "not one of NumPy's element types that adl reads",
    note = "`Npy` and `NpyFiles` read `u8`, `u16`, `u32`, `u64`, `i8`, `i16`, `i32`, `i64`, `f32`, `f64`, `adl::num_complex::Complex<f32>` (NumPy's complex64) and `Complex<f64>` (complex128); for another dtype, convert the file with numpy (`array.astype(...)`), or read it as the type of the same size (`bool` as `u8`) and convert its samples in a transform"
)]
pub trait NpyElement: ViewElement + bytemuck::Pod + Send + Sync + sealed::Sealed {}

/// Keeps the list of [`NpyElement`]s closed: each is a type whose bytes are
/// a NumPy dtype's, which ndarray-npy checks a file's header against.
mod sealed {
    /// Implemented for the element types of [`NpyElement`](super::NpyElement) only.
    pub trait Sealed {}
}

macro_rules! npy_elements {
    ($($element:ty),* $(,)?) => {$(
        impl sealed::Sealed for $element {}
        impl NpyElement for $element {}
    )*};
}

npy_elements!(
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    f32,
    f64,
    Complex<f32>,
    Complex<f64>
);

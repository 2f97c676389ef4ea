//! [`ChannelArray`]: a roverd channel's frames as an array of the
//! channel's element type, filled in place from the bytes it is read or
//! decoded from.

use adl_core::{Error, Result};
use ndarray::{ArrayD, IxDyn};
use num_complex::{Complex32, Complex64};

use super::element::Element;

/// Frames of a roverd channel: an array of its declared element type and
/// shape, `[window, *shape]` (a sample's window of frames first, as
/// roverd's `DynamicSensor` gives it).
///
/// ```
/// use adl::files::rover::{ChannelArray, Element};
///
/// let frames = ChannelArray::filled(Element::I16, &[1, 2], |bytes| {
///     bytes.copy_from_slice(&[1, 0, 0xFF, 0xFF]); // little-endian 1, -1
///     Ok(())
/// })?;
/// let ChannelArray::I16(values) = frames else { unreachable!() };
/// assert_eq!(values.into_raw_vec_and_offset().0, vec![1i16, -1]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ChannelArray {
    /// `uint8`.
    U8(ArrayD<u8>),
    /// `int8`.
    I8(ArrayD<i8>),
    /// `uint16`.
    U16(ArrayD<u16>),
    /// `int16`.
    I16(ArrayD<i16>),
    /// `uint32`.
    U32(ArrayD<u32>),
    /// `int32`.
    I32(ArrayD<i32>),
    /// `uint64`.
    U64(ArrayD<u64>),
    /// `int64`.
    I64(ArrayD<i64>),
    /// `float32`.
    F32(ArrayD<f32>),
    /// `float64`.
    F64(ArrayD<f64>),
    /// `complex64`.
    C64(ArrayD<Complex32>),
    /// `complex128`.
    C128(ArrayD<Complex64>),
}

/// An array of `shape` of `T`, its bytes written by `fill` (all of them:
/// one allocation, aligned for `T`, which becomes the array's buffer).
fn typed<T: bytemuck::Pod>(
    shape: &[usize],
    fill: impl FnOnce(&mut [u8]) -> Result<()>,
) -> Result<ArrayD<T>> {
    let len = shape
        .iter()
        .try_fold(1usize, |n, &axis| n.checked_mul(axis))
        .filter(|&n| n.saturating_mul(size_of::<T>()) <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::invalid(
                "the frames of a sample",
                format!("an array of shape {shape:?} is too large to address"),
            )
        })?;
    let mut values = vec![T::zeroed(); len];
    fill(bytemuck::cast_slice_mut(&mut values))?;
    ArrayD::from_shape_vec(IxDyn(shape), values).map_err(|e| Error::internal("ChannelArray", e))
}

impl ChannelArray {
    /// An array of `element`s of `shape` whose bytes (little-endian, as
    /// roverd writes them) `fill` writes, all of them, into the buffer
    /// that becomes the array's.
    pub fn filled(
        element: Element,
        shape: &[usize],
        fill: impl FnOnce(&mut [u8]) -> Result<()>,
    ) -> Result<ChannelArray> {
        Ok(match element {
            Element::U8 => ChannelArray::U8(typed(shape, fill)?),
            Element::I8 => ChannelArray::I8(typed(shape, fill)?),
            Element::U16 => ChannelArray::U16(typed(shape, fill)?),
            Element::I16 => ChannelArray::I16(typed(shape, fill)?),
            Element::U32 => ChannelArray::U32(typed(shape, fill)?),
            Element::I32 => ChannelArray::I32(typed(shape, fill)?),
            Element::U64 => ChannelArray::U64(typed(shape, fill)?),
            Element::I64 => ChannelArray::I64(typed(shape, fill)?),
            Element::F32 => ChannelArray::F32(typed(shape, fill)?),
            Element::F64 => ChannelArray::F64(typed(shape, fill)?),
            Element::C64 => ChannelArray::C64(typed(shape, fill)?),
            Element::C128 => ChannelArray::C128(typed(shape, fill)?),
        })
    }

    /// The element type.
    pub fn element(&self) -> Element {
        match self {
            ChannelArray::U8(_) => Element::U8,
            ChannelArray::I8(_) => Element::I8,
            ChannelArray::U16(_) => Element::U16,
            ChannelArray::I16(_) => Element::I16,
            ChannelArray::U32(_) => Element::U32,
            ChannelArray::I32(_) => Element::I32,
            ChannelArray::U64(_) => Element::U64,
            ChannelArray::I64(_) => Element::I64,
            ChannelArray::F32(_) => Element::F32,
            ChannelArray::F64(_) => Element::F64,
            ChannelArray::C64(_) => Element::C64,
            ChannelArray::C128(_) => Element::C128,
        }
    }

    /// The array's shape.
    pub fn shape(&self) -> &[usize] {
        match self {
            ChannelArray::U8(a) => a.shape(),
            ChannelArray::I8(a) => a.shape(),
            ChannelArray::U16(a) => a.shape(),
            ChannelArray::I16(a) => a.shape(),
            ChannelArray::U32(a) => a.shape(),
            ChannelArray::I32(a) => a.shape(),
            ChannelArray::U64(a) => a.shape(),
            ChannelArray::I64(a) => a.shape(),
            ChannelArray::F32(a) => a.shape(),
            ChannelArray::F64(a) => a.shape(),
            ChannelArray::C64(a) => a.shape(),
            ChannelArray::C128(a) => a.shape(),
        }
    }
}

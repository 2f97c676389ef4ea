//! The header of a `.npy` file read from its first bytes alone, checked as
//! strictly as a memory-mapped file is (by `ViewNpyExt::view_npy`): for a
//! file in an object store, whose data is not read until a sample is.

use ndarray_npy::ViewNpyError;
use ndarray_npy::npy::header::Header;

use crate::npy::NpyElement;

/// What a `.npy` header says, checked against the element type and the
/// file's size.
#[derive(Debug)]
pub(crate) struct NpyLayout {
    /// The array's shape.
    pub(crate) shape: Vec<usize>,
    /// Whether it is stored in Fortran order.
    pub(crate) fortran: bool,
    /// Where the data starts (the header's length).
    pub(crate) offset: usize,
}

impl NpyLayout {
    /// Whether its rows are stored in C order, as ndarray's
    /// `is_standard_layout` says of a mapped view: not Fortran order, or
    /// an array where the two orders are the same bytes (an empty one,
    /// or one with at most one axis longer than 1).
    pub(crate) fn c_order(&self) -> bool {
        !self.fortran
            || self.shape.contains(&0)
            || self.shape.iter().filter(|&&n| n > 1).count() <= 1
    }
}

/// How many bytes the header at the start of `start` spans (magic,
/// version, length, dictionary), where `start` holds enough of it to
/// tell.
pub(crate) fn header_len(start: &[u8]) -> Option<usize> {
    match start.get(6)? {
        1 => Some(10 + usize::from(u16::from_le_bytes([*start.get(8)?, *start.get(9)?]))),
        2 | 3 => {
            let len = u32::from_le_bytes(start.get(8..12)?.try_into().ok()?);
            Some(12 + usize::try_from(len).ok()?)
        }
        _ => None,
    }
}

/// The layout of an array of `T` in a `.npy` file of `size` bytes whose
/// first bytes, its whole header at least, are `start`.
///
/// The failures are those `view_npy` reports for the same file: not a
/// `.npy` header, elements of another type or byte order, a length that
/// overflows, missing or extra bytes after the data.
pub(crate) fn read_layout<T: NpyElement>(
    start: &[u8],
    size: u64,
) -> Result<NpyLayout, ViewNpyError> {
    let mut rest = start;
    let header = Header::from_reader(&mut rest)?;
    let offset = start.len() - rest.len();
    // The element type checked as view_npy checks it: an empty slice of
    // data, aligned for `T`, for no elements.
    let none: &[T] = &[];
    T::bytes_as_slice(bytemuck::cast_slice(none), &header.type_descriptor, 0)?;
    let elements = header
        .shape
        .iter()
        .try_fold(1usize, |n, &axis| n.checked_mul(axis))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or(ViewNpyError::LengthOverflow)?;
    let data = elements
        .checked_mul(size_of::<T>())
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or(ViewNpyError::LengthOverflow)?;
    let present = size.saturating_sub(offset as u64);
    let data = data as u64;
    if present < data {
        return Err(ViewNpyError::MissingBytes(
            usize::try_from(data - present).unwrap_or(usize::MAX),
        ));
    }
    if present > data {
        return Err(ViewNpyError::ExtraBytes(
            usize::try_from(present - data).unwrap_or(usize::MAX),
        ));
    }
    Ok(NpyLayout {
        shape: header.shape,
        fortran: header.layout.is_fortran(),
        offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, Array3};
    use ndarray_npy::WriteNpyExt;

    fn npy<A: WriteNpyExt>(array: &A) -> Vec<u8> {
        let mut bytes = Vec::new();
        array.write_npy(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn a_header_read_from_the_first_bytes_agrees_with_the_whole_file() {
        let bytes = npy(&Array3::<f32>::zeros((5, 2, 3)));
        let len = header_len(&bytes).unwrap();
        let layout = read_layout::<f32>(&bytes[..len], bytes.len() as u64).unwrap();
        assert_eq!(layout.shape, [5, 2, 3]);
        assert!(!layout.fortran);
        assert_eq!(layout.offset, len);
        assert_eq!(bytes.len() - len, 5 * 2 * 3 * 4);
    }

    #[test]
    fn the_same_failures_as_a_mapped_file() {
        let bytes = npy(&Array2::<f64>::zeros((4, 2)));
        let len = header_len(&bytes).unwrap();
        let size = bytes.len() as u64;
        assert!(matches!(
            read_layout::<f32>(&bytes[..len], size),
            Err(ViewNpyError::WrongDescriptor(_))
        ));
        assert!(matches!(
            read_layout::<f64>(&bytes[..len], size - 8),
            Err(ViewNpyError::MissingBytes(8))
        ));
        assert!(matches!(
            read_layout::<f64>(&bytes[..len], size + 3),
            Err(ViewNpyError::ExtraBytes(3))
        ));
        assert!(matches!(
            read_layout::<f64>(b"not a numpy file at all", 23),
            Err(ViewNpyError::ParseHeader(_))
        ));
        assert!(matches!(
            read_layout::<f64>(&bytes[..len - 5], size),
            Err(ViewNpyError::Io(_))
        ));
        assert_eq!(header_len(b"\x93NUMPY"), None);
    }
}

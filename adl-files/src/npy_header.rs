//! The header of a `.npy` file read from its first bytes alone, checked as
//! strictly as a memory-mapped file is (by `ViewNpyExt::view_npy`): for a
//! file in an object store, whose data is not read until a sample is.

use ndarray_npy::ViewNpyError;
use ndarray_npy::npy::header::Header;

use crate::npy_element::NpyElement;

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

/// The deepest a header's brackets may nest. A `.npy` header is a flat
/// dictionary (`{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2)}`:
/// two levels); a structured element type adds two more. ndarray-npy's
/// parser of Python literals backtracks exponentially in the depth of
/// brackets left open (a 150-byte header took it 11 seconds), so deeper
/// nesting is refused before it is parsed.
const MAX_NESTING: usize = 4;

/// Check what ndarray-npy would trust in a header before it reads it: that
/// the length field does not run past the end of a file of `size` bytes
/// (it allocates the length it is given, and a corrupt length, a `u32`
/// from version 2 on, would be gigabytes for a file of a few bytes), and
/// that the dictionary's brackets nest at most [`MAX_NESTING`] deep.
/// `start` is the file's first bytes. Every read of a `.npy` header passes
/// here first.
pub(crate) fn header_fits(start: &[u8], size: u64) -> Result<(), ViewNpyError> {
    let refused = |reason: String| {
        Err(ViewNpyError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            reason,
        )))
    };
    let Some(len) = header_len(start) else {
        // Not a header ndarray-npy reads past its first bytes either.
        return Ok(());
    };
    if len as u64 > size {
        return refused(format!(
            "its header says it is {len} bytes long, but the file has {size} bytes"
        ));
    }
    let text_start = if start.get(6) == Some(&1) { 10 } else { 12 };
    let text = start
        .get(text_start..len.min(start.len()))
        .unwrap_or_default();
    match nesting(text) {
        depth if depth > MAX_NESTING => refused(format!(
            "its header nests brackets {depth} deep; a .npy header is a dictionary of at most {MAX_NESTING} levels"
        )),
        _ => Ok(()),
    }
}

/// The deepest the brackets of `text` (a Python literal) nest, outside its
/// strings; in one pass.
fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for &b in text {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    deepest
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
    header_fits(start, size)?;
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

/// A parser's message on one line: ndarray-npy's syntax errors draw the
/// header over several (`--> 1:118`, the text, a caret, `= expected
/// value`); what they say is where and what was expected.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message.lines().map(str::trim).collect();
    let at = lines
        .iter()
        .find_map(|l| l.split_once("--> ").map(|(_, at)| at.trim()));
    let expected = lines.iter().find_map(|l| l.strip_prefix("= "));
    match (lines.first(), at, expected) {
        (Some(first), Some(at), Some(expected)) => {
            let first = first.split(" --> ").next().unwrap_or(first).trim_end();
            let column = at.split_once(':').map_or(at, |(_, column)| column);
            format!("{first} at character {column} of its header: {expected}")
        }
        _ => lines
            .into_iter()
            .filter(|l| !l.is_empty() && *l != "|")
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// A `.npy` file's failure, in words.
pub(crate) fn describe(error: &ViewNpyError) -> String {
    match error {
        ViewNpyError::Io(e) => format!("cannot read: {e}"),
        ViewNpyError::ParseHeader(e) => format!("not a NumPy .npy file ({})", one_line(&e.to_string())),
        ViewNpyError::InvalidData(e) => format!("holds values invalid for the element type: {e}"),
        ViewNpyError::LengthOverflow => "its header describes an array too large to address".into(),
        ViewNpyError::WrongNdim(_, found) => format!("holds a {found}-dimensional array"),
        ViewNpyError::WrongDescriptor(found) => format!("holds elements of type {found}"),
        ViewNpyError::NonNativeEndian => {
            "its elements are in the other byte order (save it in native order, e.g. with array.astype('<f4'))"
                .into()
        }
        ViewNpyError::MisalignedData => {
            "its data does not start at an address aligned for the element type".into()
        }
        ViewNpyError::MissingBytes(n) => {
            format!("truncated: {n} bytes of the data its header describes are missing")
        }
        ViewNpyError::ExtraBytes(n) => format!("{n} bytes follow the data its header describes"),
        other => other.to_string(),
    }
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

    #[test]
    fn a_header_longer_than_its_file_is_refused_before_it_is_read() {
        // Version 3, a header length of 0x7fff_ffff bytes in a 20-byte file.
        let mut bytes = b"\x93NUMPY\x03\x00".to_vec();
        bytes.extend_from_slice(&0x7fff_ffffu32.to_le_bytes());
        bytes.extend_from_slice(b"{'descr'");
        let size = bytes.len() as u64;
        let Err(ViewNpyError::Io(e)) = read_layout::<f32>(&bytes, size) else {
            panic!("a header past the end of the file was read");
        };
        assert_eq!(
            e.to_string(),
            "its header says it is 2147483659 bytes long, but the file has 20 bytes"
        );
        assert!(header_fits(&bytes, 1 << 32).is_ok());
    }

    #[test]
    fn a_header_nested_too_deep_is_refused_before_it_is_parsed() {
        // The fuzzer's find: brackets left open took the parser 11 s.
        let text = b"{'descr': '<f0', 'fortran_o1der': (5, 2,{'desder': {(5,{ {(5, 2,{'x': 1}";
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
        bytes.extend_from_slice(text);
        let size = bytes.len() as u64;
        let Err(ViewNpyError::Io(e)) = read_layout::<f32>(&bytes, size) else {
            panic!("a deeply nested header was parsed");
        };
        assert!(
            e.to_string()
                .starts_with("its header nests brackets 9 deep"),
            "{e}"
        );
        // Brackets inside strings do not count; a real header passes.
        assert_eq!(
            nesting(b"{'descr': '<f4', 'shape': (3, 2), 'x': '(((((('}"),
            2
        );
        let real = npy(&Array3::<f32>::zeros((5, 2, 3)));
        assert!(header_fits(&real, real.len() as u64).is_ok());
    }

    #[test]
    fn a_header_syntax_error_is_told_on_one_line_with_its_place() {
        let drawn = "error parsing metadata dict: syntax error:  --> 1:118\n  |\n1 | {'descr': '<f4', 'shape': (5' 2, 3), }\n  |                                        ^---\n  |\n  = expected value";
        assert_eq!(
            one_line(drawn),
            "error parsing metadata dict: syntax error: at character 118 of its header: expected value"
        );
        assert_eq!(one_line("unknown key: 'x'"), "unknown key: 'x'");
        assert_eq!(one_line("a\n  |\n  b"), "a b");
    }
}

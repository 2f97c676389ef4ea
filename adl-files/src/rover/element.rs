//! [`Element`]: the element type of a roverd channel, as its `meta.json`
//! names it (NumPy's type codes: `u1`, `i2`, `f4`, `c8`, ...).

use std::fmt;

/// The element type of a roverd channel's values: what NumPy's
/// `np.dtype(type)` makes of the channel's `type` in `meta.json`, for the
/// types a channel can hold with the bytes of a Rust type. All are
/// little-endian, as roverd writes them.
///
/// The names read are NumPy's type codes (`u1`, `i2`, `f4`, `c8`, with or
/// without the byte-order mark `<`, or `|` for one-byte types) and its
/// type names (`uint8`, `int16`, `float32`, `complex64`, ...).
///
/// ```
/// use adl::files::rover::Element;
///
/// assert_eq!(Element::parse("i2"), Some(Element::I16));
/// assert_eq!(Element::parse("<f4"), Some(Element::F32));
/// assert_eq!(Element::parse("complex64"), Some(Element::C64));
/// assert_eq!(Element::I16.size(), 2);
/// assert_eq!(Element::parse(">f4"), None); // big-endian: not roverd's
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Element {
    /// `u1`, `uint8`.
    U8,
    /// `i1`, `int8`.
    I8,
    /// `u2`, `uint16`.
    U16,
    /// `i2`, `int16`.
    I16,
    /// `u4`, `uint32`.
    U32,
    /// `i4`, `int32`.
    I32,
    /// `u8`, `uint64`.
    U64,
    /// `i8`, `int64`.
    I64,
    /// `f4`, `float32`.
    F32,
    /// `f8`, `float64`.
    F64,
    /// `c8`, `complex64`: a pair of `f32` (real, imaginary).
    C64,
    /// `c16`, `complex128`: a pair of `f64`.
    C128,
}

/// Every element type, with its NumPy type code and type name.
const NAMES: [(Element, &str, &str); 12] = [
    (Element::U8, "u1", "uint8"),
    (Element::I8, "i1", "int8"),
    (Element::U16, "u2", "uint16"),
    (Element::I16, "i2", "int16"),
    (Element::U32, "u4", "uint32"),
    (Element::I32, "i4", "int32"),
    (Element::U64, "u8", "uint64"),
    (Element::I64, "i8", "int64"),
    (Element::F32, "f4", "float32"),
    (Element::F64, "f8", "float64"),
    (Element::C64, "c8", "complex64"),
    (Element::C128, "c16", "complex128"),
];

impl Element {
    /// The element type NumPy's `text` names, if it is one of these (a
    /// big-endian type, `>f4`, is not: roverd's data are little-endian).
    pub fn parse(text: &str) -> Option<Element> {
        let text = text.trim();
        let code = text
            .strip_prefix('<')
            .or_else(|| text.strip_prefix('='))
            .unwrap_or(text);
        // `|` marks a type without byte order: one byte wide.
        let code = match code.strip_prefix('|') {
            Some(code) if matches!(code, "u1" | "i1") => code,
            Some(_) => return None,
            None => code,
        };
        NAMES
            .iter()
            .find(|(_, short, long)| code == *short || code == *long)
            .map(|&(element, _, _)| element)
    }

    /// The size of one value, in bytes.
    pub fn size(self) -> usize {
        match self {
            Element::U8 | Element::I8 => 1,
            Element::U16 | Element::I16 => 2,
            Element::U32 | Element::I32 | Element::F32 => 4,
            Element::U64 | Element::I64 | Element::F64 | Element::C64 => 8,
            Element::C128 => 16,
        }
    }

    /// NumPy's name of the type (`uint8`, `float32`, ...).
    pub fn numpy_name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(element, _, _)| *element == self)
            .map_or("?", |&(_, _, long)| long)
    }

    /// The type codes read, for messages.
    pub(crate) fn codes() -> String {
        NAMES
            .iter()
            .map(|(_, short, _)| *short)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.numpy_name())
    }
}

#[cfg(test)]
mod tests {
    use super::Element;

    #[test]
    fn every_code_and_name_reads_as_its_type_and_back() {
        for (element, short, long) in super::NAMES {
            assert_eq!(Element::parse(short), Some(element));
            assert_eq!(Element::parse(&format!("<{short}")), Some(element));
            assert_eq!(Element::parse(long), Some(element));
            assert_eq!(element.numpy_name(), long);
        }
        assert_eq!(Element::parse("|u1"), Some(Element::U8));
        for refused in [">f4", "|f4", "f2", "b1", "U8", "", "object"] {
            assert_eq!(Element::parse(refused), None, "{refused}");
        }
    }
}

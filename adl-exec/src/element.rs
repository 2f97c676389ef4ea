//! [`Element`]: the element types a kernel reads and writes.

use std::fmt;

/// An element type as a kernel sees it: its OpenCL C name and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElementType {
    /// `u8`, OpenCL `uchar`.
    U8,
    /// `i8`, OpenCL `char`.
    I8,
    /// `u16`, OpenCL `ushort`.
    U16,
    /// `i16`, OpenCL `short`.
    I16,
    /// `u32`, OpenCL `uint`.
    U32,
    /// `i32`, OpenCL `int`.
    I32,
    /// `u64`, OpenCL `ulong`.
    U64,
    /// `i64`, OpenCL `long`.
    I64,
    /// `f32`, OpenCL `float`.
    F32,
    /// `f64`, OpenCL `double` (devices with `cl_khr_fp64`).
    F64,
}

impl ElementType {
    /// Every element type.
    pub const ALL: [ElementType; 10] = [
        ElementType::U8,
        ElementType::I8,
        ElementType::U16,
        ElementType::I16,
        ElementType::U32,
        ElementType::I32,
        ElementType::U64,
        ElementType::I64,
        ElementType::F32,
        ElementType::F64,
    ];

    /// The OpenCL C type name.
    #[inline]
    pub fn cl_name(self) -> &'static str {
        match self {
            ElementType::U8 => "uchar",
            ElementType::I8 => "char",
            ElementType::U16 => "ushort",
            ElementType::I16 => "short",
            ElementType::U32 => "uint",
            ElementType::I32 => "int",
            ElementType::U64 => "ulong",
            ElementType::I64 => "long",
            ElementType::F32 => "float",
            ElementType::F64 => "double",
        }
    }

    /// Bytes per element.
    #[inline]
    pub fn size(self) -> usize {
        match self {
            ElementType::U8 | ElementType::I8 => 1,
            ElementType::U16 | ElementType::I16 => 2,
            ElementType::U32 | ElementType::I32 | ElementType::F32 => 4,
            ElementType::U64 | ElementType::I64 | ElementType::F64 => 8,
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cl_name())
    }
}

mod sealed {
    /// The element types, closed to others; each is plain old data
    /// (`bytemuck::Pod`), so a batch of them is viewed as bytes and back
    /// without a hand-written cast.
    pub trait Sealed: bytemuck::Pod {}
}

/// A Rust number type that a kernel can read or write: plain data of a
/// fixed size whose every bit pattern is a value, so a batch of them
/// travels to a device and back as bytes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of an OpenCL kernel",
    note = "kernel arrays hold u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64"
)]
pub trait Element: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// Its [`ElementType`].
    const TYPE: ElementType;
}

macro_rules! element {
    ($($t:ty => $e:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const TYPE: ElementType = ElementType::$e;
        }
    )*};
}
element!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32,
    u64 => U64, i64 => I64, f32 => F32, f64 => F64);

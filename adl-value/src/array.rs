//! [`AnyArray`]: an array of one of the element types adl's sensors
//! read, its type known at run time.

use ndarray::ArrayD;

/// An array of one of the element types adl's sensors read.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyArray {
    /// `uint8`: camera frames.
    U8(ArrayD<u8>),
    /// `int16`.
    I16(ArrayD<i16>),
    /// `uint16`: depth maps.
    U16(ArrayD<u16>),
    /// `int32`.
    I32(ArrayD<i32>),
    /// `int64`: Python's ints.
    I64(ArrayD<i64>),
    /// `float32`.
    F32(ArrayD<f32>),
    /// `float64`: Python's floats, tables, flight logs.
    F64(ArrayD<f64>),
}

/// `$body` with `$array` bound to the array of whatever element type.
#[macro_export]
macro_rules! each_array {
    ($value:expr, $array:ident => $body:expr) => {
        match $value {
            $crate::AnyArray::U8($array) => $body,
            $crate::AnyArray::I16($array) => $body,
            $crate::AnyArray::U16($array) => $body,
            $crate::AnyArray::I32($array) => $body,
            $crate::AnyArray::I64($array) => $body,
            $crate::AnyArray::F32($array) => $body,
            $crate::AnyArray::F64($array) => $body,
        }
    };
}

/// An element type of [`AnyArray`]: its arrays in and out of the enum.
pub trait Dtype: Copy + Send + Sync + 'static {
    /// NumPy's name of the type.
    const NAME: &'static str;
    /// The array, if `array` holds this type; else `array` back.
    fn unwrap(array: AnyArray) -> std::result::Result<ArrayD<Self>, AnyArray>;
    /// `array` in the enum.
    fn wrap(array: ArrayD<Self>) -> AnyArray;
}

macro_rules! dtype {
    ($($t:ty => $variant:ident, $name:ident);*) => {$(
        impl Dtype for $t {
            const NAME: &'static str = stringify!($name);
            fn unwrap(array: AnyArray) -> std::result::Result<ArrayD<$t>, AnyArray> {
                match array {
                    AnyArray::$variant(a) => Ok(a),
                    other => Err(other),
                }
            }
            fn wrap(array: ArrayD<$t>) -> AnyArray {
                AnyArray::$variant(array)
            }
        }
    )*};
}
dtype!(
    u8 => U8, uint8; i16 => I16, int16; u16 => U16, uint16; i32 => I32, int32;
    i64 => I64, int64; f32 => F32, float32; f64 => F64, float64
);

/// The NumPy names of [`AnyArray`]'s element types, for messages.
pub const DTYPES: &str = "uint8, int16, uint16, int32, int64, float32, float64";

impl AnyArray {
    /// The element type's NumPy name.
    pub fn dtype(&self) -> &'static str {
        fn name<T: Dtype>(_: &ArrayD<T>) -> &'static str {
            T::NAME
        }
        each_array!(self, a => name(a))
    }

    /// The array's shape.
    pub fn shape(&self) -> &[usize] {
        each_array!(self, a => a.shape())
    }
}

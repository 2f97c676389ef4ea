//! [`Value`]: a decoded message, typed by its definition: numbers,
//! strings, numeric arrays, nested messages and lists of them.

use std::fmt;
use std::sync::Arc;

use adl_core::{Error, Result};

/// A decoded value of a message field.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// `int8` (and ROS 1's `byte`).
    I8(i8),
    /// `uint8`, `char` (and ROS 2's `byte`).
    U8(u8),
    /// `int16`.
    I16(i16),
    /// `uint16`.
    U16(u16),
    /// `int32`.
    I32(i32),
    /// `uint32`.
    U32(u32),
    /// `int64`.
    I64(i64),
    /// `uint64`.
    U64(u64),
    /// `float32`.
    F32(f32),
    /// `float64`.
    F64(f64),
    /// `string`.
    String(String),
    /// An array of numbers or bools, fixed or variable in length.
    Array(Numbers),
    /// An array of strings or of messages.
    List(Vec<Value>),
    /// A nested message (ROS 1's `time` and `duration` among them, with
    /// fields `secs` and `nsecs`).
    Message(Message),
}

/// An array of one numeric type (or bools): what a `float32[]` or a
/// `uint8[]` field decodes to, in one allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum Numbers {
    /// `bool[]`.
    Bool(Vec<bool>),
    /// `int8[]`.
    I8(Vec<i8>),
    /// `uint8[]`: an image's pixels, a point cloud's bytes.
    U8(Vec<u8>),
    /// `int16[]`.
    I16(Vec<i16>),
    /// `uint16[]`.
    U16(Vec<u16>),
    /// `int32[]`.
    I32(Vec<i32>),
    /// `uint32[]`.
    U32(Vec<u32>),
    /// `int64[]`.
    I64(Vec<i64>),
    /// `uint64[]`.
    U64(Vec<u64>),
    /// `float32[]`.
    F32(Vec<f32>),
    /// `float64[]`.
    F64(Vec<f64>),
}

impl Numbers {
    /// How many values.
    pub fn len(&self) -> usize {
        match self {
            Numbers::Bool(v) => v.len(),
            Numbers::I8(v) => v.len(),
            Numbers::U8(v) => v.len(),
            Numbers::I16(v) => v.len(),
            Numbers::U16(v) => v.len(),
            Numbers::I32(v) => v.len(),
            Numbers::U32(v) => v.len(),
            Numbers::I64(v) => v.len(),
            Numbers::U64(v) => v.len(),
            Numbers::F32(v) => v.len(),
            Numbers::F64(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values as `f64`s (bools as 0 and 1; 64-bit integers above
    /// 2^53 rounded).
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            Numbers::Bool(v) => v.iter().map(|&b| f64::from(u8::from(b))).collect(),
            Numbers::I8(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Numbers::U8(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Numbers::I16(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Numbers::U16(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Numbers::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Numbers::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Numbers::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Numbers::U64(v) => v.iter().map(|&x| x as f64).collect(),
            Numbers::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Numbers::F64(v) => v.clone(),
        }
    }

    /// The element type's name, as a definition writes it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Numbers::Bool(_) => "bool",
            Numbers::I8(_) => "int8",
            Numbers::U8(_) => "uint8",
            Numbers::I16(_) => "int16",
            Numbers::U16(_) => "uint16",
            Numbers::I32(_) => "int32",
            Numbers::U32(_) => "uint32",
            Numbers::I64(_) => "int64",
            Numbers::U64(_) => "uint64",
            Numbers::F32(_) => "float32",
            Numbers::F64(_) => "float64",
        }
    }
}

/// A decoded message: its type's name and its fields' values, in the
/// definition's order.
#[derive(Clone, PartialEq)]
pub struct Message {
    pub(crate) type_name: Arc<str>,
    pub(crate) names: Arc<[Arc<str>]>,
    pub(crate) values: Vec<Value>,
}

impl Message {
    /// The message type, `pkg/Type`.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// Field `name`'s value, where the message has that field.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let at = self.names.iter().position(|n| &**n == name)?;
        self.values.get(at)
    }

    /// Field `name`'s value; a field the message does not have is an
    /// error naming the type and its fields.
    pub fn field(&self, name: &str) -> Result<&Value> {
        self.get(name).ok_or_else(|| {
            Error::invalid(
                format_args!("field of `{}`", self.type_name),
                format!(
                    "it has no field `{name}`; its fields: {}",
                    self.names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
    }

    /// The value at a dotted `path` of fields (`header.stamp.sec`).
    pub fn at(&self, path: &str) -> Result<&Value> {
        let mut fields = path.split('.');
        let first = fields.next().unwrap_or(path);
        let mut value = self.field(first)?;
        for name in fields {
            value = match value {
                Value::Message(m) => m.field(name)?,
                other => {
                    return Err(Error::invalid(
                        format_args!("field path `{path}` of `{}`", self.type_name),
                        format!("`{name}` is asked of a {}, not a message", other.kind()),
                    ));
                }
            };
        }
        Ok(value)
    }

    /// Field `name` as a number (see [`Value::as_f64`]); a field that is
    /// missing or not a number is an error naming it.
    pub fn number(&self, name: &str) -> Result<f64> {
        let value = self.field(name)?;
        value
            .as_f64()
            .ok_or_else(|| self.not_a(name, "number", value))
    }

    /// Field `name` as a string.
    pub fn string(&self, name: &str) -> Result<&str> {
        let value = self.field(name)?;
        value
            .as_str()
            .ok_or_else(|| self.not_a(name, "string", value))
    }

    /// Field `name` as a nested message.
    pub fn message(&self, name: &str) -> Result<&Message> {
        let value = self.field(name)?;
        value
            .as_message()
            .ok_or_else(|| self.not_a(name, "message", value))
    }

    /// Field `name` as a numeric array.
    pub fn numbers(&self, name: &str) -> Result<&Numbers> {
        let value = self.field(name)?;
        value
            .as_numbers()
            .ok_or_else(|| self.not_a(name, "numeric array", value))
    }

    /// Field `name` as a list (of strings or messages).
    pub fn list(&self, name: &str) -> Result<&[Value]> {
        match self.field(name)? {
            Value::List(items) => Ok(items),
            other => Err(self.not_a(name, "list", other)),
        }
    }

    fn not_a(&self, name: &str, wanted: &str, got: &Value) -> Error {
        Error::invalid(
            format_args!("field `{name}` of `{}`", self.type_name),
            format!("a {wanted} was expected, it is a {}", got.kind()),
        )
    }

    /// The fields, `(name, value)`, in the definition's order.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.names.iter().map(|n| &**n).zip(&self.values)
    }

    /// Give the values back, in the definition's order.
    pub fn into_values(self) -> Vec<Value> {
        self.values
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct(&self.type_name);
        for (name, value) in self.fields() {
            s.field(name, value);
        }
        s.finish()
    }
}

impl Value {
    /// What kind of value this is, in words (for errors).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::I8(_) => "int8",
            Value::U8(_) => "uint8",
            Value::I16(_) => "int16",
            Value::U16(_) => "uint16",
            Value::I32(_) => "int32",
            Value::U32(_) => "uint32",
            Value::I64(_) => "int64",
            Value::U64(_) => "uint64",
            Value::F32(_) => "float32",
            Value::F64(_) => "float64",
            Value::String(_) => "string",
            Value::Array(_) => "numeric array",
            Value::List(_) => "list",
            Value::Message(_) => "message",
        }
    }

    /// The number, as an `f64` (bools as 0 and 1), where this is one.
    pub fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            Value::Bool(b) => f64::from(u8::from(b)),
            Value::I8(x) => f64::from(x),
            Value::U8(x) => f64::from(x),
            Value::I16(x) => f64::from(x),
            Value::U16(x) => f64::from(x),
            Value::I32(x) => f64::from(x),
            Value::U32(x) => f64::from(x),
            Value::I64(x) => x as f64,
            Value::U64(x) => x as f64,
            Value::F32(x) => f64::from(x),
            Value::F64(x) => x,
            _ => return None,
        })
    }

    /// The string, where this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The message, where this is one.
    pub fn as_message(&self) -> Option<&Message> {
        match self {
            Value::Message(m) => Some(m),
            _ => None,
        }
    }

    /// The numeric array, where this is one.
    pub fn as_numbers(&self) -> Option<&Numbers> {
        match self {
            Value::Array(n) => Some(n),
            _ => None,
        }
    }
}

//! Messages decoded from their bytes by their [`Schema`]: ROS 2's CDR
//! (XCDR1, either byte order, fields aligned to their size from the end
//! of the 4-byte encapsulation header) and ROS 1's serialization (little
//! endian, packed, lengths before variable arrays and strings).

use std::sync::{Arc, OnceLock};

use super::definition::{Count, Dialect, Element, MessageType, Primitive, Schema};
use super::value::{Message, Numbers, Value};

/// Why bytes did not decode: where (the field path, the byte) and what.
#[derive(Debug)]
pub(crate) struct WireError {
    /// The fields from the message down to the one that failed.
    pub(crate) path: Vec<Arc<str>>,
    /// The byte offset in the message's bytes.
    pub(crate) at: usize,
    /// What went wrong.
    pub(crate) reason: String,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "at byte {}: {}", self.at, self.reason)
        } else {
            let path: Vec<&str> = self.path.iter().rev().map(|p| &**p).collect();
            write!(
                f,
                "field `{}`, at byte {}: {}",
                path.join("."),
                self.at,
                self.reason
            )
        }
    }
}

type Wire<T> = std::result::Result<T, WireError>;

/// Decode one message of `schema` from `bytes` (a whole CDR payload with
/// its encapsulation header, or a ROS 1 message).
pub(crate) fn decode(schema: &Schema, bytes: &[u8]) -> Wire<Message> {
    let mut reader = match schema.dialect {
        Dialect::Ros2 => Reader::cdr(bytes)?,
        Dialect::Ros1 => Reader {
            bytes,
            pos: 0,
            base: 0,
            little: true,
            aligned: false,
        },
    };
    reader.message(schema, 0)
}

/// A cursor over a message's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Where alignment counts from (after CDR's header).
    base: usize,
    little: bool,
    /// CDR aligns each primitive to its size; ROS 1 packs.
    aligned: bool,
}

/// The field names of ROS 1's `time` and `duration`, as messages.
fn time_names() -> &'static Arc<[Arc<str>]> {
    static NAMES: OnceLock<Arc<[Arc<str>]>> = OnceLock::new();
    NAMES.get_or_init(|| Arc::from(vec![Arc::from("secs"), Arc::from("nsecs")]))
}

macro_rules! read_number {
    ($self:ident, $t:ty) => {{
        const N: usize = std::mem::size_of::<$t>();
        $self.align(N);
        let bytes: [u8; N] = $self.take(N)?.try_into().expect("N bytes taken");
        if $self.little {
            <$t>::from_le_bytes(bytes)
        } else {
            <$t>::from_be_bytes(bytes)
        }
    }};
}

macro_rules! read_numbers {
    ($self:ident, $t:ty, $n:expr) => {{
        const N: usize = std::mem::size_of::<$t>();
        $self.align(N);
        let raw = $self.take_many($n, N)?;
        if $self.little {
            raw.chunks_exact(N)
                .map(|c| <$t>::from_le_bytes(c.try_into().expect("N bytes")))
                .collect::<Vec<$t>>()
        } else {
            raw.chunks_exact(N)
                .map(|c| <$t>::from_be_bytes(c.try_into().expect("N bytes")))
                .collect::<Vec<$t>>()
        }
    }};
}

impl<'a> Reader<'a> {
    /// A CDR payload: the encapsulation header says the byte order.
    fn cdr(bytes: &'a [u8]) -> Wire<Self> {
        let little = match bytes.get(..2) {
            Some([0, 1] | [0, 3] | [0, 7] | [0, 9] | [0, 11]) => true,
            Some([0, 0] | [0, 2] | [0, 6] | [0, 8] | [0, 10]) => false,
            Some(other) => {
                return Err(error(
                    0,
                    format!(
                        "unknown CDR encapsulation {:#04x} {:#04x}",
                        other[0], other[1]
                    ),
                ));
            }
            None => return Err(error(0, "shorter than CDR's 4-byte header")),
        };
        if bytes.len() < 4 {
            return Err(error(0, "shorter than CDR's 4-byte header"));
        }
        Ok(Reader {
            bytes,
            pos: 4,
            base: 4,
            little,
            aligned: true,
        })
    }

    fn align(&mut self, size: usize) {
        if self.aligned {
            let size = size.min(8);
            let rel = self.pos - self.base;
            self.pos += (size - rel % size) % size;
        }
    }

    fn take(&mut self, n: usize) -> Wire<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        match end {
            Some(end) => {
                let out = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(out)
            }
            None => Err(error(
                self.pos,
                format!(
                    "{n} bytes needed, {} left: the message is cut short",
                    self.bytes.len().saturating_sub(self.pos)
                ),
            )),
        }
    }

    /// `count` elements of `size` bytes each, checked against what is left
    /// before anything is allocated.
    fn take_many(&mut self, count: usize, size: usize) -> Wire<&'a [u8]> {
        match count.checked_mul(size) {
            Some(n) => self.take(n),
            None => Err(error(
                self.pos,
                format!("{count} elements cannot fit in a message"),
            )),
        }
    }

    fn length(&mut self) -> Wire<usize> {
        let at = self.pos;
        let n = read_number!(self, u32) as usize;
        let left = self.bytes.len().saturating_sub(self.pos);
        // Every element takes a byte at least, but for ROS 1's empty
        // messages: a length beyond what is left is damage.
        if n > left && n > 1 << 16 {
            return Err(error(
                at,
                format!("a length of {n}, with {left} bytes left: the message is damaged"),
            ));
        }
        Ok(n)
    }

    fn string(&mut self) -> Wire<String> {
        let n = self.length()?;
        let raw = self.take(n)?;
        let text = if self.aligned {
            // CDR counts the terminating NUL.
            raw.strip_suffix(&[0]).unwrap_or(raw)
        } else {
            raw
        };
        Ok(String::from_utf8_lossy(text).into_owned())
    }

    fn message(&mut self, schema: &Schema, ty: usize) -> Wire<Message> {
        let message_type: &MessageType = &schema.types[ty];
        let mut values = Vec::with_capacity(message_type.fields.len());
        for field in &message_type.fields {
            let value = self
                .field(schema, field.element, field.count)
                .map_err(|mut e| {
                    e.path.push(Arc::clone(&field.name));
                    e
                })?;
            values.push(value);
        }
        Ok(Message {
            type_name: Arc::clone(&message_type.name),
            names: Arc::clone(&message_type.names),
            values,
        })
    }

    fn field(&mut self, schema: &Schema, element: Element, count: Count) -> Wire<Value> {
        let n = match count {
            Count::One => return self.one(schema, element),
            Count::Fixed(n) => n,
            Count::Sequence => self.length()?,
        };
        if let Element::Primitive(p) = element
            && let Some(numbers) = self.numbers(p, n)?
        {
            return Ok(Value::Array(numbers));
        }
        // Strings, times and messages: a list of them, each read as one.
        let mut items = Vec::with_capacity(n.min(1 << 16));
        for i in 0..n {
            let item = self.one(schema, element).map_err(|mut e| {
                e.path.push(Arc::from(format!("[{i}]")));
                e
            })?;
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn one(&mut self, schema: &Schema, element: Element) -> Wire<Value> {
        let p = match element {
            Element::Message(ty) => return Ok(Value::Message(self.message(schema, ty)?)),
            Element::Primitive(p) => p,
        };
        Ok(match p {
            Primitive::Bool => Value::Bool(self.take(1)?[0] != 0),
            Primitive::I8 => Value::I8(self.take(1)?[0] as i8),
            Primitive::U8 => Value::U8(self.take(1)?[0]),
            Primitive::I16 => Value::I16(read_number!(self, i16)),
            Primitive::U16 => Value::U16(read_number!(self, u16)),
            Primitive::I32 => Value::I32(read_number!(self, i32)),
            Primitive::U32 => Value::U32(read_number!(self, u32)),
            Primitive::I64 => Value::I64(read_number!(self, i64)),
            Primitive::U64 => Value::U64(read_number!(self, u64)),
            Primitive::F32 => Value::F32(read_number!(self, f32)),
            Primitive::F64 => Value::F64(read_number!(self, f64)),
            Primitive::String => Value::String(self.string()?),
            Primitive::WString => {
                return Err(error(self.pos, "wstring fields are not supported"));
            }
            Primitive::Time => {
                let (secs, nsecs) = (read_number!(self, u32), read_number!(self, u32));
                time("time", Value::U32(secs), Value::U32(nsecs))
            }
            Primitive::Duration => {
                let (secs, nsecs) = (read_number!(self, i32), read_number!(self, i32));
                time("duration", Value::I32(secs), Value::I32(nsecs))
            }
        })
    }

    /// `n` numbers (or bools) of `p` in one array; `None` where `p` is
    /// not a number (a string, a time), read one by one.
    fn numbers(&mut self, p: Primitive, n: usize) -> Wire<Option<Numbers>> {
        Ok(Some(match p {
            Primitive::Bool => {
                Numbers::Bool(self.take_many(n, 1)?.iter().map(|&b| b != 0).collect())
            }
            Primitive::I8 => Numbers::I8(self.take_many(n, 1)?.iter().map(|&b| b as i8).collect()),
            Primitive::U8 => Numbers::U8(self.take_many(n, 1)?.to_vec()),
            Primitive::I16 => Numbers::I16(read_numbers!(self, i16, n)),
            Primitive::U16 => Numbers::U16(read_numbers!(self, u16, n)),
            Primitive::I32 => Numbers::I32(read_numbers!(self, i32, n)),
            Primitive::U32 => Numbers::U32(read_numbers!(self, u32, n)),
            Primitive::I64 => Numbers::I64(read_numbers!(self, i64, n)),
            Primitive::U64 => Numbers::U64(read_numbers!(self, u64, n)),
            Primitive::F32 => Numbers::F32(read_numbers!(self, f32, n)),
            Primitive::F64 => Numbers::F64(read_numbers!(self, f64, n)),
            Primitive::String | Primitive::WString | Primitive::Time | Primitive::Duration => {
                return Ok(None);
            }
        }))
    }
}

/// ROS 1's `time` or `duration` as a message of `secs` and `nsecs`.
fn time(name: &str, secs: Value, nsecs: Value) -> Value {
    Value::Message(Message {
        type_name: Arc::from(name),
        names: Arc::clone(time_names()),
        values: vec![secs, nsecs],
    })
}

fn error(at: usize, reason: impl Into<String>) -> WireError {
    WireError {
        path: Vec::new(),
        at,
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::definition::Definitions;
    use super::*;

    fn schema(dialect: Dialect, name: &str, text: &str) -> Schema {
        let mut d = Definitions::new(dialect);
        d.add_text(Some(name), text).unwrap();
        d.schema(name, None).unwrap()
    }

    #[test]
    fn cdr_aligns_each_field_from_the_header() {
        let s = schema(
            Dialect::Ros2,
            "p/A",
            "uint8 a\nfloat64 b\nstring c\nint16[] d\n",
        );
        let mut bytes = vec![0, 1, 0, 0, 7];
        bytes.extend([0; 7]); // to 8
        bytes.extend(2.5f64.to_le_bytes());
        bytes.extend(3u32.to_le_bytes());
        bytes.extend(b"hi\0");
        bytes.push(0); // to 4
        bytes.extend(2u32.to_le_bytes());
        bytes.extend((-3i16).to_le_bytes());
        bytes.extend(4i16.to_le_bytes());
        let m = decode(&s, &bytes).unwrap();
        assert_eq!(m.get("a"), Some(&Value::U8(7)));
        assert_eq!(m.get("b"), Some(&Value::F64(2.5)));
        assert_eq!(m.get("c"), Some(&Value::String("hi".into())));
        assert_eq!(m.get("d"), Some(&Value::Array(Numbers::I16(vec![-3, 4]))));
    }

    #[test]
    fn ros1_packs_fields_and_has_time() {
        let s = schema(Dialect::Ros1, "p/B", "time t\nstring s\nfloat32[2] v\n");
        let mut bytes = Vec::new();
        bytes.extend(5u32.to_le_bytes());
        bytes.extend(6u32.to_le_bytes());
        bytes.extend(1u32.to_le_bytes());
        bytes.push(b'x');
        bytes.extend(1.0f32.to_le_bytes());
        bytes.extend(2.0f32.to_le_bytes());
        let m = decode(&s, &bytes).unwrap();
        let t = m.get("t").unwrap().as_message().unwrap();
        assert_eq!(t.get("nsecs"), Some(&Value::U32(6)));
        assert_eq!(m.at("t.secs").unwrap(), &Value::U32(5));
        assert_eq!(
            m.get("v"),
            Some(&Value::Array(Numbers::F32(vec![1.0, 2.0])))
        );
    }

    #[test]
    fn cut_or_damaged_bytes_are_errors_naming_the_field() {
        let s = schema(
            Dialect::Ros2,
            "p/C",
            "p/D inner\n===\nMSG: p/D\nfloat64[] xs\n",
        );
        let mut bytes = vec![0, 1, 0, 0];
        bytes.extend(3u32.to_le_bytes());
        bytes.extend([0; 4]);
        bytes.extend(1.0f64.to_le_bytes());
        let err = decode(&s, &bytes).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field `inner.xs`, at byte 12: 24 bytes needed, 8 left: the message is cut short"
        );
        let mut huge = vec![0, 1, 0, 0];
        huge.extend(u32::MAX.to_le_bytes());
        let err = decode(&s, &huge).unwrap_err();
        assert!(err.to_string().contains("damaged"), "{err}");
        assert!(decode(&s, &[0, 1]).is_err());
        assert!(decode(&s, &[5, 5, 0, 0]).is_err());
    }
}

//! ULog message formats (`F` records) and their flattening into the columns
//! of a data record, as pyulog and PX4's tools name them: nested fields as
//! `parent.child`, array elements as `name[i]`, `_padding` fields left out
//! (and a trailing one at the top level not written at all).
//!
//! Every length here comes from the file, so each is bounded before it is
//! used: a record is at most 65 535 bytes, so is a flattened format (or it
//! is refused), nesting is at most [`MAX_DEPTH`] deep, an array length at
//! most 65 535, and the work of flattening is bounded by the columns it
//! makes (an element of no bytes, which would repeat for nothing, is
//! skipped).

use std::collections::HashMap;

/// How deeply formats may nest (PX4's deepest is three).
const MAX_DEPTH: usize = 32;
/// The largest a data record, and so a flattened format, can be: its
/// length is a `u16`.
const MAX_SIZE: usize = u16::MAX as usize;

/// The scalar types of ULog fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Bool,
    Char,
}

impl Scalar {
    fn named(name: &str) -> Option<Self> {
        Some(match name {
            "int8_t" => Scalar::I8,
            "uint8_t" => Scalar::U8,
            "int16_t" => Scalar::I16,
            "uint16_t" => Scalar::U16,
            "int32_t" => Scalar::I32,
            "uint32_t" => Scalar::U32,
            "int64_t" => Scalar::I64,
            "uint64_t" => Scalar::U64,
            "float" => Scalar::F32,
            "double" => Scalar::F64,
            "bool" => Scalar::Bool,
            "char" => Scalar::Char,
            _ => return None,
        })
    }

    fn width(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 | Scalar::Bool | Scalar::Char => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }

    /// The value at `at` in `record` as `f64` (NaN where the record is too
    /// short, which the record's size check rules out).
    pub(crate) fn decode(self, record: &[u8], at: usize) -> f64 {
        fn bytes<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
            data.get(at..at.checked_add(N)?)?.try_into().ok()
        }
        let value = match self {
            Scalar::I8 => bytes::<1>(record, at).map(|b| f64::from(i8::from_le_bytes(b))),
            Scalar::U8 | Scalar::Char => bytes::<1>(record, at).map(|b| f64::from(b[0])),
            Scalar::Bool => bytes::<1>(record, at).map(|b| f64::from(u8::from(b[0] != 0))),
            Scalar::I16 => bytes::<2>(record, at).map(|b| f64::from(i16::from_le_bytes(b))),
            Scalar::U16 => bytes::<2>(record, at).map(|b| f64::from(u16::from_le_bytes(b))),
            Scalar::I32 => bytes::<4>(record, at).map(|b| f64::from(i32::from_le_bytes(b))),
            Scalar::U32 => bytes::<4>(record, at).map(|b| f64::from(u32::from_le_bytes(b))),
            Scalar::I64 => bytes::<8>(record, at).map(|b| i64::from_le_bytes(b) as f64),
            Scalar::U64 => bytes::<8>(record, at).map(|b| u64::from_le_bytes(b) as f64),
            Scalar::F32 => bytes::<4>(record, at).map(|b| f64::from(f32::from_le_bytes(b))),
            Scalar::F64 => bytes::<8>(record, at).map(f64::from_le_bytes),
        };
        value.unwrap_or(f64::NAN)
    }
}

/// One field of a format as written: `type name` or `type[count] name`.
#[derive(Debug, Clone)]
struct Field {
    /// A scalar type's name, or another format's.
    type_name: String,
    /// The array length, for an array.
    count: Option<usize>,
    name: String,
}

impl Field {
    fn is_padding(&self) -> bool {
        self.name.starts_with("_padding")
    }
}

/// One column of a flattened format: where its value is in a data record.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Column {
    /// The flattened name (`accelerometer_m_s2[0]`, `gps.lat`).
    pub(crate) name: String,
    pub(crate) ty: Scalar,
    /// The byte offset in the record, its two-byte message id included.
    pub(crate) offset: usize,
}

/// A format flattened into the columns of its data records.
#[derive(Debug, Clone)]
pub(crate) struct Flattened {
    pub(crate) columns: Vec<Column>,
    /// The size of a data record, its two-byte message id included.
    pub(crate) size: usize,
    /// The offset of the uint64 `timestamp` field, where there is one.
    pub(crate) timestamp: Option<usize>,
}

/// The formats a log defined, by name.
#[derive(Debug, Default)]
pub(crate) struct Formats {
    formats: HashMap<String, Vec<Field>>,
}

impl Formats {
    /// Add the format of an `F` record's payload
    /// (`name:type field;type[n] field;...`).
    pub(crate) fn define(&mut self, payload: &[u8]) -> Result<(), String> {
        let text = std::str::from_utf8(payload)
            .map_err(|_| "a format (`F`) record that is not UTF-8 text".to_owned())?;
        let (name, fields) = text
            .split_once(':')
            .filter(|(name, _)| !name.is_empty())
            .ok_or_else(|| format!("a format (`F`) record without `name:` ({})", shown(text)))?;
        let mut parsed: Vec<Field> = Vec::new();
        for declaration in fields.split(';').filter(|s| !s.is_empty()) {
            let field = parse_field(declaration).ok_or_else(|| {
                format!(
                    "format `{name}`: a field `{}` that is not `type name` or `type[count] name`",
                    shown(declaration)
                )
            })?;
            if parsed.iter().any(|f| f.name == field.name) {
                return Err(format!(
                    "format `{name}`: field `{}` is declared twice",
                    field.name
                ));
            }
            parsed.push(field);
        }
        if self.formats.contains_key(name) {
            return Err(format!("format `{name}` is defined twice"));
        }
        self.formats.insert(name.to_owned(), parsed);
        Ok(())
    }

    /// The columns of the data records of format `name`, spending what it
    /// takes of `budget` (see [`WORK`]).
    pub(crate) fn flatten(&self, name: &str, budget: &mut usize) -> Result<Flattened, String> {
        let mut flattener = Flattener {
            formats: self,
            sizes: HashMap::new(),
            budget: *budget,
            columns: Vec::new(),
        };
        let size = flattener.add(name, "", 2, 0);
        *budget = flattener.budget;
        let size = size?;
        let columns = flattener.columns;
        let timestamp = columns
            .iter()
            .find(|c| c.name == "timestamp" && c.ty == Scalar::U64)
            .map(|c| c.offset);
        Ok(Flattened {
            columns,
            size,
            timestamp,
        })
    }

    /// The fields of format `name`, reached `depth` formats deep.
    fn fields(&self, name: &str, depth: usize) -> Result<&[Field], String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "format `{name}` is nested more than {MAX_DEPTH} formats deep (or in itself)"
            ));
        }
        self.formats
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| format!("no format `{name}` is defined"))
    }
}

/// The work a whole log's formats may take to flatten, and the memory of
/// the columns they make: a step per field and array element visited, and
/// [`COLUMN_COST`] plus the bytes of its name per column made (once per
/// format, and again per topic instance that holds the columns). A real
/// log takes about a megabyte's worth; a file whose formats would take
/// more (thousands of fields repeated thousands of times, names of
/// kilobytes, hundreds of instances of each) has its further topics
/// refused rather than flattened into gigabytes of names.
pub(crate) const WORK: usize = 1 << 26;

/// What a column costs besides its name's bytes (its `String`, its entry).
pub(crate) const COLUMN_COST: usize = 48;

/// One flattening: the sizes of the formats met so far, the work left, and
/// the columns made.
struct Flattener<'a> {
    formats: &'a Formats,
    sizes: HashMap<String, usize>,
    budget: usize,
    columns: Vec<Column>,
}

impl Flattener<'_> {
    /// Spend `work` of the budget.
    fn spend(&mut self, work: usize) -> Result<(), String> {
        self.budget = self.budget.checked_sub(work).ok_or_else(|| {
            format!(
                "the log's formats take more than {WORK} steps and bytes of column names to list"
            )
        })?;
        Ok(())
    }

    /// Append the columns of format `name` at `offset` under `prefix` (empty
    /// at the top level); the offset past it.
    fn add(
        &mut self,
        name: &str,
        prefix: &str,
        mut offset: usize,
        depth: usize,
    ) -> Result<usize, String> {
        let fields = self.formats.fields(name, depth)?;
        for (i, field) in fields.iter().enumerate() {
            self.spend(1)?;
            // A trailing padding field of the top level is not written.
            if prefix.is_empty() && field.is_padding() && i + 1 == fields.len() {
                break;
            }
            let element = self.size_of(&field.type_name, depth + 1)?;
            let count = field.count.unwrap_or(1);
            if field.is_padding() || element == 0 {
                // Bytes but no columns (or neither).
                offset = bounded(offset, element.checked_mul(count))?;
                continue;
            }
            for k in 0..count {
                let qualified = match field.count {
                    Some(_) => format!("{prefix}{}[{k}]", field.name),
                    None => format!("{prefix}{}", field.name),
                };
                self.spend(COLUMN_COST + qualified.len())?;
                match Scalar::named(&field.type_name) {
                    Some(ty) => self.columns.push(Column {
                        name: qualified,
                        ty,
                        offset,
                    }),
                    None => {
                        let nested = format!("{qualified}.");
                        self.add(&field.type_name, &nested, offset, depth + 1)?;
                    }
                }
                offset = bounded(offset, Some(element))?;
            }
        }
        Ok(offset)
    }

    /// The size in bytes of a field of type `type_name` (a scalar or a
    /// format), with its trailing padding (only the top level leaves it
    /// out); memoized.
    fn size_of(&mut self, type_name: &str, depth: usize) -> Result<usize, String> {
        if let Some(scalar) = Scalar::named(type_name) {
            return Ok(scalar.width());
        }
        if let Some(&size) = self.sizes.get(type_name) {
            return Ok(size);
        }
        let mut size = 0usize;
        for field in self.formats.fields(type_name, depth)? {
            self.spend(1)?;
            let element = self.size_of(&field.type_name, depth + 1)?;
            size = bounded(size, element.checked_mul(field.count.unwrap_or(1)))?;
        }
        self.sizes.insert(type_name.to_owned(), size);
        Ok(size)
    }
}

/// `offset + more`, if that stays within a record's largest size.
fn bounded(offset: usize, more: Option<usize>) -> Result<usize, String> {
    offset
        .checked_add(more.unwrap_or(usize::MAX))
        .filter(|&end| end <= MAX_SIZE)
        .ok_or_else(|| format!("a format larger than a record can be ({MAX_SIZE} bytes)"))
}

/// `type name` or `type[count] name`.
fn parse_field(declaration: &str) -> Option<Field> {
    let (ty, name) = declaration.split_once(' ')?;
    if ty.is_empty() || name.is_empty() || name.contains(' ') {
        return None;
    }
    let (type_name, count) = match ty.split_once('[') {
        None => (ty, None),
        Some((base, rest)) => {
            let count: usize = rest.strip_suffix(']')?.parse().ok()?;
            (base, Some(count).filter(|&n| n <= MAX_SIZE))
        }
    };
    if type_name.is_empty() || ty.contains('[') && count.is_none() {
        return None;
    }
    Some(Field {
        type_name: type_name.to_owned(),
        count,
        name: name.to_owned(),
    })
}

/// At most 80 characters of `text`, for a message.
fn shown(text: &str) -> String {
    let mut shown: String = text.chars().take(80).collect();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn formats(definitions: &[&str]) -> Formats {
        let mut formats = Formats::default();
        for d in definitions {
            formats.define(d.as_bytes()).unwrap();
        }
        formats
    }

    fn names(flat: &Flattened) -> Vec<(&str, usize)> {
        flat.columns
            .iter()
            .map(|c| (c.name.as_str(), c.offset))
            .collect()
    }

    #[test]
    fn nested_arrays_and_padding_flatten_as_pyulog_names_them() {
        let f = formats(&[
            "vec:float x;float y;",
            "imu:uint64_t timestamp;float[2] acc;vec[2] v;uint8_t[3] _padding0;uint8_t k;uint8_t[5] _padding1;",
        ]);
        let mut budget = WORK;
        let flat = f.flatten("imu", &mut budget).unwrap();
        assert!(budget < WORK);
        assert_eq!(
            names(&flat),
            [
                ("timestamp", 2),
                ("acc[0]", 10),
                ("acc[1]", 14),
                ("v[0].x", 18),
                ("v[0].y", 22),
                ("v[1].x", 26),
                ("v[1].y", 30),
                ("k", 37),
            ]
        );
        // The trailing padding is not written: 2 + 8 + 8 + 16 + 3 + 1.
        assert_eq!(flat.size, 38);
        assert_eq!(flat.timestamp, Some(2));
    }

    #[test]
    fn bad_formats_are_errors_not_panics_or_blowups() {
        let mut f = Formats::default();
        for bad in [
            "",
            ":float x;",
            "a:float;",
            "a:float[x] y;",
            "a:float[] y;",
            "a:float[99999999999] y;",
        ] {
            assert!(f.define(bad.as_bytes()).is_err(), "{bad:?}");
        }
        assert!(f.define(b"\xff:").is_err());
        assert!(
            f.define(b"a:float x;int8_t x;")
                .unwrap_err()
                .contains("twice")
        );
        // A cycle, a missing type, and a format too large for a record.
        let f = formats(&["a:b x;", "b:a y;", "c:missing z;", "big:double[9000] d;"]);
        let mut budget = WORK;
        assert!(
            f.flatten("a", &mut budget)
                .unwrap_err()
                .contains("nested more than")
        );
        assert!(
            f.flatten("c", &mut budget)
                .unwrap_err()
                .contains("no format `missing`")
        );
        assert!(
            f.flatten("big", &mut budget)
                .unwrap_err()
                .contains("larger than a record")
        );
        // Empty formats repeated (no bytes): no columns, no work per repeat.
        let mut f = formats(&["e:", "f:e[65535] x;", "g:f[65535] y;uint64_t timestamp;"]);
        let flat = f.flatten("g", &mut WORK.clone()).unwrap();
        assert_eq!(names(&flat), [("timestamp", 2)]);
        assert!(f.define(b"e:").is_err());
        // Long names repeated: refused before gigabytes of names are made.
        let long = format!("n:uint8_t {};", "x".repeat(60_000));
        let f = formats(&[&long, "m:n[65000] y;"]);
        let mut budget = WORK;
        assert!(
            f.flatten("m", &mut budget)
                .unwrap_err()
                .contains("column names")
        );
        assert!(budget < COLUMN_COST + 60_000);
    }
}

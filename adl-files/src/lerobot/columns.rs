//! A LeRobot table read: the columns asked for of a Parquet file (a local
//! file, or an object read by byte ranges: its footer, then the column
//! chunks asked for), each as a [`Column`], one value per row (a number,
//! or an array of one shape in every row).

use std::io::Read;
use std::sync::Arc;

use adl_core::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use bytes::Bytes;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::{ChunkReader, Length};

use crate::location::Location;
use crate::ranged::RangedFile;

/// The values of a column: every row's, one after another, each row of
/// `shape` (empty for a number).
#[derive(Debug, Clone, PartialEq)]
pub struct Values<T> {
    /// The values, row after row.
    pub values: Vec<T>,
    /// The shape of one row's value.
    pub shape: Vec<usize>,
}

impl<T: Clone> Values<T> {
    /// The number of values in a row.
    pub fn width(&self) -> usize {
        self.shape.iter().product()
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.values.len().checked_div(self.width()).unwrap_or(0)
    }

    /// Row `row`'s values.
    pub fn row(&self, row: usize) -> &[T] {
        let width = self.width();
        &self.values[row * width..(row + 1) * width]
    }
}

/// A column of a LeRobot table, by its element type.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// `float32`.
    F32(Values<f32>),
    /// `float64`.
    F64(Values<f64>),
    /// `int64`.
    I64(Values<i64>),
    /// `int32`.
    I32(Values<i32>),
    /// `int16`.
    I16(Values<i16>),
    /// `int8`.
    I8(Values<i8>),
    /// `uint8`.
    U8(Values<u8>),
    /// `bool`.
    Bool(Values<bool>),
    /// Text, one string a row.
    Text(Vec<String>),
    /// Lists of text, one a row (an episode's tasks).
    TextLists(Vec<Vec<String>>),
}

/// `$body` with `$values` bound to the [`Values`] of whatever numeric
/// element type, and `$text` for the others.
macro_rules! each_numeric {
    ($column:expr, $values:ident => $body:expr, $other:pat => $text:expr) => {
        match $column {
            Column::F32($values) => $body,
            Column::F64($values) => $body,
            Column::I64($values) => $body,
            Column::I32($values) => $body,
            Column::I16($values) => $body,
            Column::I8($values) => $body,
            Column::U8($values) => $body,
            Column::Bool($values) => $body,
            $other => $text,
        }
    };
}

impl Column {
    /// The number of rows.
    pub fn rows(&self) -> usize {
        each_numeric!(self, v => v.rows(), other => match other {
            Column::Text(t) => t.len(),
            Column::TextLists(t) => t.len(),
            _ => 0,
        })
    }

    /// Its element type, as NumPy names it (`text`, `list of text`).
    pub fn dtype(&self) -> &'static str {
        match self {
            Column::F32(_) => "float32",
            Column::F64(_) => "float64",
            Column::I64(_) => "int64",
            Column::I32(_) => "int32",
            Column::I16(_) => "int16",
            Column::I8(_) => "int8",
            Column::U8(_) => "uint8",
            Column::Bool(_) => "bool",
            Column::Text(_) => "text",
            Column::TextLists(_) => "list of text",
        }
    }

    /// The rows of `other` after this column's; a column of another type
    /// or shape is an error naming it (`name`, of the file at `location`).
    pub(crate) fn append(&mut self, other: Column, location: &Location, name: &str) -> Result<()> {
        macro_rules! join {
            ($($variant:ident),*) => {
                match (self, other) {
                    $((Column::$variant(a), Column::$variant(b)) if a.shape == b.shape => {
                        a.values.extend(b.values);
                        Ok(())
                    })*
                    (Column::Text(a), Column::Text(b)) => {
                        a.extend(b);
                        Ok(())
                    }
                    (Column::TextLists(a), Column::TextLists(b)) => {
                        a.extend(b);
                        Ok(())
                    }
                    (a, b) => Err(location.error(format!(
                        "column `{name}` holds {} values of shape {:?}, where the tables before \
                         it hold {} of {:?}",
                        b.dtype(), b.shape(), a.dtype(), a.shape()
                    ))),
                }
            };
        }
        join!(F32, F64, I64, I32, I16, I8, U8, Bool)
    }

    /// The shape of a row's value.
    pub fn shape(&self) -> Vec<usize> {
        each_numeric!(self, v => v.shape.clone(), _other => Vec::new())
    }

    /// The column as `int64` numbers, one a row, or an error naming it
    /// (`name`, of the file at `location`) and its type.
    pub(crate) fn int64(&self, location: &Location, name: &str) -> Result<&[i64]> {
        match self {
            Column::I64(v) if v.shape.is_empty() => Ok(&v.values),
            other => Err(wrong_type(location, name, other, "int64 numbers")),
        }
    }

    /// The column as `float64` numbers, one a row (`float32` widened), or
    /// an error naming it (`name`, of the file at `location`) and its type.
    pub(crate) fn float64(&self, location: &Location, name: &str) -> Result<Vec<f64>> {
        match self {
            Column::F64(v) if v.shape.is_empty() => Ok(v.values.clone()),
            Column::F32(v) if v.shape.is_empty() => {
                Ok(v.values.iter().map(|&x| f64::from(x)).collect())
            }
            other => Err(wrong_type(location, name, other, "float numbers")),
        }
    }

    /// "int64", or "float32 of shape [7]": what the column holds, in words.
    pub(crate) fn describe(&self) -> String {
        let shape = self.shape();
        if shape.is_empty() {
            self.dtype().to_string()
        } else {
            format!("{} of shape {shape:?}", self.dtype())
        }
    }
}

/// The error of column `name` of the file at `location` that holds
/// another type than `wanted`.
pub(crate) fn wrong_type(location: &Location, name: &str, column: &Column, wanted: &str) -> Error {
    location.error(format!(
        "column `{name}` holds {}, where it should hold {wanted}",
        column.describe()
    ))
}

/// A file read by byte ranges, as the Parquet reader asks for them.
struct Source(Arc<RangedFile>);

impl Length for Source {
    fn len(&self) -> u64 {
        self.0.len()
    }
}

impl ChunkReader for Source {
    type T = Tail;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Tail> {
        Ok(Tail {
            file: self.0.clone(),
            at: start,
            buffer: Bytes::new(),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let end = start.saturating_add(length as u64);
        let piece = self
            .0
            .read(start..end, "a part of the table")
            .map_err(|e| parquet::errors::ParquetError::External(Box::new(e)))?;
        Ok(Bytes::copy_from_slice(&piece))
    }
}

/// The file from a byte on, read 64 KiB at a time: the Parquet reader
/// reads a page's header a few bytes at a time, which must not each be a
/// request to a store.
struct Tail {
    file: Arc<RangedFile>,
    /// The file's offset of the byte after `buffer`.
    at: u64,
    /// Bytes read and not yet given.
    buffer: Bytes,
}

/// How much a [`Tail`] reads at once.
const TAIL_READ: u64 = 64 << 10;

impl Read for Tail {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.buffer.is_empty() {
            let end = self.at.saturating_add(TAIL_READ).min(self.file.len());
            if end <= self.at {
                return Ok(0);
            }
            let piece = self
                .file
                .read(self.at..end, "a part of the table")
                .map_err(std::io::Error::other)?;
            self.buffer = Bytes::copy_from_slice(&piece);
            self.at = end;
        }
        let n = buf.len().min(self.buffer.len());
        buf[..n].copy_from_slice(&self.buffer[..n]);
        self.buffer = self.buffer.slice(n..);
        Ok(n)
    }
}

/// The columns `names` of the Parquet file at `location`, in that order,
/// each read whole; `None` for a name the file has no column of. A file
/// that is not there or not Parquet, or a column of a type adl does not
/// read, is an error naming the file (and the column).
pub fn read_columns(location: &Location, names: &[&str]) -> Result<Vec<Option<Column>>> {
    let file = Arc::new(RangedFile::open(location)?);
    let parquet = |e: parquet::errors::ParquetError| {
        location.error(format!("not a Parquet table adl reads: {e}"))
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(Source(file)).map_err(parquet)?;
    let schema = builder.schema().clone();
    let roots: Vec<Option<usize>> = names
        .iter()
        .map(|name| schema.fields().iter().position(|f| f.name() == name))
        .collect();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().flatten().copied());
    let reader = builder
        .with_projection(mask)
        .with_batch_size(64 * 1024)
        .build()
        .map_err(parquet)?;
    let mut columns: Vec<Option<Column>> = vec![None; names.len()];
    for batch in reader {
        let batch = batch.map_err(|e| location.error(format!("cannot read its rows: {e}")))?;
        for (k, name) in names.iter().enumerate() {
            let Some(array) = batch.column_by_name(name) else {
                continue;
            };
            let part =
                column(array).map_err(|why| location.error(format!("column `{name}` {why}")))?;
            match &mut columns[k] {
                Some(column) => column.append(part, location, name)?,
                slot => *slot = Some(part),
            }
        }
    }
    // A table with no rows: its columns, empty, of their types.
    for (k, root) in roots.iter().enumerate() {
        if columns[k].is_none()
            && let Some(root) = root
        {
            let field = schema.field(*root);
            let empty = arrow_array::new_empty_array(field.data_type());
            let column = column(&empty)
                .map_err(|why| location.error(format!("column `{}` {why}", names[k])))?;
            columns[k] = Some(column);
        }
    }
    Ok(columns)
}

/// An Arrow array as a [`Column`]: numbers, booleans and text, or fixed or
/// variable lists of them (every row of one length), nested; or why not,
/// in words that follow the column's name.
fn column(array: &ArrayRef) -> std::result::Result<Column, String> {
    if array.null_count() > 0 {
        return Err(format!(
            "has {} null rows of {}",
            array.null_count(),
            array.len()
        ));
    }
    macro_rules! numbers {
        ($variant:ident, $arrow:ty) => {
            Column::$variant(Values {
                values: array.as_primitive::<$arrow>().values().to_vec(),
                shape: Vec::new(),
            })
        };
    }
    let text = |values: &mut dyn Iterator<Item = Option<&str>>| {
        Column::Text(values.map(|s| s.unwrap_or_default().to_string()).collect())
    };
    let single = match array.data_type() {
        DataType::Float32 => numbers!(F32, Float32Type),
        DataType::Float64 => numbers!(F64, Float64Type),
        DataType::Int64 => numbers!(I64, Int64Type),
        DataType::Int32 => numbers!(I32, Int32Type),
        DataType::Int16 => numbers!(I16, Int16Type),
        DataType::Int8 => numbers!(I8, Int8Type),
        DataType::UInt8 => numbers!(U8, UInt8Type),
        DataType::Boolean => Column::Bool(Values {
            values: array
                .as_boolean()
                .iter()
                .map(|b| b.unwrap_or(false))
                .collect(),
            shape: Vec::new(),
        }),
        DataType::Utf8 => text(&mut array.as_string::<i32>().iter()),
        DataType::LargeUtf8 => text(&mut array.as_string::<i64>().iter()),
        DataType::Utf8View => text(&mut array.as_string_view().iter()),
        DataType::FixedSizeList(_, size) => {
            let list = array.as_fixed_size_list();
            let size = usize::try_from(*size).unwrap_or(0);
            let inner = list.values().slice(list.offset() * size, list.len() * size);
            return nested(column(&inner)?, list.len(), size);
        }
        DataType::List(_) => {
            let list = array.as_list::<i32>();
            let offsets: Vec<usize> = list.offsets().iter().map(|&o| o as usize).collect();
            return variable(list.values(), &offsets);
        }
        DataType::LargeList(_) => {
            let list = array.as_list::<i64>();
            let offsets: Vec<usize> = list.offsets().iter().map(|&o| o as usize).collect();
            return variable(list.values(), &offsets);
        }
        other => {
            return Err(format!(
                "holds {other}, which adl does not read (numbers, booleans, text, and lists of \
                 them)"
            ));
        }
    };
    Ok(single)
}

/// The rows of a variable list (`offsets` into `values`): each of one
/// length, the list an axis of that length; lists of text stay lists.
fn variable(values: &ArrayRef, offsets: &[usize]) -> std::result::Result<Column, String> {
    let rows = offsets.len().saturating_sub(1);
    let first = offsets.first().copied().unwrap_or(0);
    let last = offsets.last().copied().unwrap_or(0);
    let inner = column(&values.slice(first, last - first))?;
    let lengths: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    if let Column::Text(texts) = inner {
        let mut texts = texts.into_iter();
        return Ok(Column::TextLists(
            lengths
                .iter()
                .map(|&n| texts.by_ref().take(n).collect())
                .collect(),
        ));
    }
    let size = lengths.first().copied().unwrap_or(0);
    if let Some(row) = lengths.iter().position(|&n| n != size) {
        return Err(format!(
            "holds lists of different lengths ({size} in row 0, {} in row {row}): adl reads a \
             value of one shape a row",
            lengths[row]
        ));
    }
    nested(inner, rows, size)
}

/// `inner`, `rows` lists of `size` values each, as a column whose rows are
/// those lists: its shape gains a first axis of `size`.
fn nested(inner: Column, rows: usize, size: usize) -> std::result::Result<Column, String> {
    macro_rules! wrap {
        ($($variant:ident),*) => {
            match inner {
                $(Column::$variant(mut v) => {
                    v.shape.insert(0, size);
                    if v.values.len() != rows * v.shape.iter().product::<usize>() {
                        return Err("holds lists whose values do not fill their rows".into());
                    }
                    Ok(Column::$variant(v))
                })*
                other => Err(format!("holds lists of {}, which adl does not read", other.dtype())),
            }
        };
    }
    wrap!(F32, F64, I64, I32, I16, I8, U8, Bool)
}

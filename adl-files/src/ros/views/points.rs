//! Range sensors: `sensor_msgs/PointCloud2` as `[N, C]` arrays, and
//! [`Scan`] for `sensor_msgs/LaserScan`.

use adl_core::{Error, Result};
use ndarray::{Array1, Array2};

use super::View;
use crate::ros::{Message, Numbers, Value};

/// A point field: where in a point, its type, how many values.
struct PointField {
    offset: usize,
    datatype: u8,
    count: usize,
}

/// The bytes of a `PointField` datatype (1 INT8 .. 8 FLOAT64).
fn field_size(datatype: u8) -> Option<usize> {
    Some(match datatype {
        1 | 2 => 1,
        3 | 4 => 2,
        5..=7 => 4,
        8 => 8,
        _ => return None,
    })
}

/// Column `column` of `out` (`points` rows of `columns`): each point's
/// value of `datatype`, from the bytes `at(point)` gives. The datatype is
/// matched once, not once a value.
fn fill_column<'a>(
    out: &mut [f32],
    column: usize,
    columns: usize,
    points: usize,
    at: impl Fn(usize) -> &'a [u8],
    datatype: u8,
    big: bool,
) {
    macro_rules! each {
        ($convert:expr) => {
            for p in 0..points {
                out[p * columns + column] = $convert(at(p));
            }
        };
    }
    macro_rules! num {
        ($t:ty) => {
            |b: &[u8]| {
                let b = b.try_into().expect("the field's size");
                (if big {
                    <$t>::from_be_bytes(b)
                } else {
                    <$t>::from_le_bytes(b)
                }) as f32
            }
        };
    }
    match datatype {
        1 => each!(|b: &[u8]| b[0] as i8 as f32),
        2 => each!(|b: &[u8]| f32::from(b[0])),
        3 => each!(num!(i16)),
        4 => each!(num!(u16)),
        5 => each!(num!(i32)),
        6 => each!(num!(u32)),
        7 => each!(num!(f32)),
        _ => each!(num!(f64)),
    }
}

/// The names of a `PointCloud2`'s columns in its `[N, C]` view: each
/// field, `name[k]` for a field of `count` values.
pub fn point_columns(message: &Message) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for field in message.list("fields")? {
        let field = field
            .as_message()
            .ok_or_else(|| Error::invalid("point field", "not a message"))?;
        let name = field.string("name")?;
        match field.number("count")? as usize {
            1 => names.push(name.to_owned()),
            n => names.extend((0..n).map(|k| format!("{name}[{k}]"))),
        }
    }
    Ok(names)
}

impl View for Array2<f32> {
    const TYPES: &'static [&'static str] = &["sensor_msgs/PointCloud2"];

    /// `[N, C]`, `N = height * width` points, a column per field value
    /// in the fields' order ([`point_columns`] names them), as `f32`.
    fn from_message(message: &Message) -> Result<Array2<f32>> {
        let mut fields = Vec::new();
        for field in message.list("fields")? {
            let Value::Message(field) = field else {
                return Err(Error::invalid("point field", "not a message"));
            };
            let datatype = field.number("datatype")? as u8;
            let name = field.string("name")?;
            field_size(datatype).ok_or_else(|| {
                Error::invalid(
                    format_args!("point field `{name}`"),
                    format!("datatype {datatype} is none of PointField's (1 INT8 .. 8 FLOAT64)"),
                )
            })?;
            fields.push(PointField {
                offset: field.number("offset")? as usize,
                datatype,
                count: field.number("count")? as usize,
            });
        }
        let count = |name: &str| -> Result<usize> { Ok(message.number(name)? as usize) };
        let (height, width) = (count("height")?, count("width")?);
        let (point_step, row_step) = (count("point_step")?, count("row_step")?);
        let big = message.number("is_bigendian")? != 0.0;
        let Numbers::U8(data) = message.numbers("data")? else {
            return Err(Error::invalid("point cloud data", "it is not a uint8[]"));
        };
        let bad = |why: String| Error::invalid("point cloud", why);
        // Every field lies in a point, every point in its row and every
        // row in the data, all checked before anything is allocated: a
        // damaged size cannot ask for more values than the data holds.
        let mut columns = 0usize;
        for f in &fields {
            let size = field_size(f.datatype).unwrap_or(1);
            let end = f
                .count
                .checked_mul(size)
                .and_then(|n| n.checked_add(f.offset));
            match end {
                Some(end) if end <= point_step => columns += f.count,
                _ => {
                    return Err(bad(format!(
                        "a field of {} values at byte {} runs past its point of {point_step} bytes",
                        f.count, f.offset
                    )));
                }
            }
        }
        let points = height
            .checked_mul(width)
            .ok_or_else(|| bad(format!("{height} x {width} points cannot be")))?;
        let row = width.checked_mul(point_step);
        let needed = row.and_then(|row| {
            let rows = row_step.checked_mul(height.saturating_sub(1))?;
            rows.checked_add(if height > 0 { row } else { 0 })
        });
        match (row, needed) {
            (Some(row), Some(needed))
                if (height <= 1 || row <= row_step) && needed <= data.len() => {}
            _ => {
                return Err(bad(format!(
                    "{height} rows of {width} points of {point_step} bytes, {row_step} bytes apart, \
                     do not fit its {} bytes of data",
                    data.len()
                )));
            }
        }
        let width = width.max(1);
        let mut out = vec![0.0f32; points * columns];
        let mut column = 0;
        for f in &fields {
            let size = field_size(f.datatype).unwrap_or(1);
            for k in 0..f.count {
                let at = f.offset + k * size;
                fill_column(
                    &mut out,
                    column,
                    columns,
                    points,
                    |p| {
                        let start = (p / width) * row_step + (p % width) * point_step + at;
                        &data[start..start + size]
                    },
                    f.datatype,
                    big,
                );
                column += 1;
            }
        }
        Array2::from_shape_vec((points, columns), out)
            .map_err(|e| Error::internal("point cloud view", e))
    }
}

/// A `sensor_msgs/LaserScan`: ranges at evenly spaced angles.
#[derive(Debug, Clone, PartialEq, adl_macros::Collate)]
#[collate(crate = "adl_core", derive(Debug, Clone))]
pub struct Scan {
    /// Metres, one a beam (values outside the range limits are invalid).
    pub ranges: Array1<f32>,
    /// One a beam (empty where the device gives none).
    pub intensities: Array1<f32>,
    /// The first beam's angle, radians.
    pub angle_min: f32,
    /// Radians between beams.
    pub angle_increment: f32,
}

impl View for Scan {
    const TYPES: &'static [&'static str] = &["sensor_msgs/LaserScan"];

    fn from_message(message: &Message) -> Result<Scan> {
        let floats = |name: &str| -> Result<Array1<f32>> {
            match message.numbers(name)? {
                Numbers::F32(v) => Ok(Array1::from(v.clone())),
                other => Ok(other.to_f64().into_iter().map(|x| x as f32).collect()),
            }
        };
        Ok(Scan {
            ranges: floats("ranges")?,
            intensities: floats("intensities")?,
            angle_min: message.number("angle_min")? as f32,
            angle_increment: message.number("angle_increment")? as f32,
        })
    }
}

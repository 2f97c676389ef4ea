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

/// One value of `datatype` from its bytes, as `f32`.
fn value(bytes: &[u8], datatype: u8, big: bool) -> f32 {
    macro_rules! num {
        ($t:ty) => {{
            let b = bytes.try_into().expect("the field's size");
            (if big {
                <$t>::from_be_bytes(b)
            } else {
                <$t>::from_le_bytes(b)
            }) as f32
        }};
    }
    match datatype {
        1 => bytes[0] as i8 as f32,
        2 => f32::from(bytes[0]),
        3 => num!(i16),
        4 => num!(u16),
        5 => num!(i32),
        6 => num!(u32),
        7 => num!(f32),
        _ => num!(f64),
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
        let points = (message.number("height")? * message.number("width")?) as usize;
        let point_step = message.number("point_step")? as usize;
        let row_step = message.number("row_step")? as usize;
        let width = message.number("width")? as usize;
        let big = message.number("is_bigendian")? != 0.0;
        let Numbers::U8(data) = message.numbers("data")? else {
            return Err(Error::invalid("point cloud data", "it is not a uint8[]"));
        };
        let columns: usize = fields.iter().map(|f| f.count).sum();
        let mut out = Vec::with_capacity(points * columns);
        for p in 0..points {
            let start = (p / width.max(1)) * row_step + (p % width.max(1)) * point_step;
            for f in &fields {
                let size = field_size(f.datatype).unwrap_or(1);
                for k in 0..f.count {
                    let at = start + f.offset + k * size;
                    let bytes = data.get(at..at + size).ok_or_else(|| {
                        Error::invalid(
                            "point cloud",
                            format!(
                                "point {p}'s field at byte {at} is past its {} bytes of data",
                                data.len()
                            ),
                        )
                    })?;
                    out.push(value(bytes, f.datatype, big));
                }
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

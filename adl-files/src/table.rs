//! [`Table`]: a sensor over a CSV table of timestamped rows.

use adl_core::storage::Storage;
use std::io::Read;
use std::sync::Arc;

use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};
use ndarray::{Array1, Array2};

use crate::location::Location;
use crate::timestamps::checked;

/// A sensor whose samples are the rows of a CSV table with a header (an
/// IMU, a GPS): one column holds the timestamps in seconds, and sample `i`
/// is row `i`'s other columns, as numbers, in the header's order
/// ([`columns`](Table::columns) names them). The table is read and checked
/// whole when it is opened, from a local file or an object in a store.
///
/// Fields are trimmed; lines starting with `#` are passed over. A missing
/// time column, a row with more or fewer fields than the header, a field
/// that is not a number, or timestamps that are not finite and sorted:
/// an [`Error::Source`] naming the file, the sensor and, where it is one
/// row's, the line and the column.
///
/// ```
/// use adl::Sensor;
/// use adl::files::Table;
/// use adl::ndarray::array;
///
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("imu.csv");
/// std::fs::write(&path, "t, ax, ay\n0.000, 0.1, 9.8\n0.005, 0.2, 9.7\n")?;
/// let imu = Table::open("imu", &path, "t")?;
/// assert_eq!(imu.columns(), &["ax", "ay"]);
/// assert_eq!(imu.metadata().as_slice(), &[0.0, 0.005]);
/// assert_eq!(imu.get(1)?, array![0.2, 9.7]);
///
/// std::fs::write(&path, "t, ax, ay\n0.000, 0.1, 9.8\n0.005, 0.2\n")?;
/// let err = Table::open("imu", &path, "t").unwrap_err();
/// assert!(err.to_string().ends_with("(sensor `imu`): line 3 has 2 fields; the header has 3"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Table {
    name: String,
    location: Location,
    columns: Arc<[String]>,
    /// `[rows, columns]`: the values, without the time column.
    values: Array2<f64>,
    timestamps: Timestamps,
}

impl Table {
    /// Sensor `name` over the CSV table at `location` (a path, or a URL in
    /// an object store), its timestamps (seconds) in the column headed
    /// `time_column`.
    pub fn open(name: &str, location: impl Into<Location>, time_column: &str) -> Result<Self> {
        let location = location.into();
        let Parsed {
            columns,
            times,
            values,
        } = Self::read(&location, time_column).map_err(|e| e.in_sensor(name, None))?;
        let timestamps = checked(name, &location, times)?;
        Ok(Table {
            name: name.to_string(),
            location,
            columns,
            values,
            timestamps,
        })
    }

    /// The table at `location`, read and parsed.
    fn read(location: &Location, time_column: &str) -> Result<Parsed> {
        let mut builder = csv::ReaderBuilder::new();
        builder.trim(csv::Trim::All).comment(Some(b'#'));
        match location.as_path() {
            Some(path) => {
                let file =
                    std::fs::File::open(path).map_err(|e| location.error_io("cannot read", e))?;
                Self::parse(builder.from_reader(file), location, time_column)
            }
            None => {
                let bytes = location.object()?.get()?;
                Self::parse(builder.from_reader(&bytes[..]), location, time_column)
            }
        }
    }

    /// The table `reader` reads, from `location`.
    fn parse<R: Read>(
        mut reader: csv::Reader<R>,
        location: &Location,
        time_column: &str,
    ) -> Result<Parsed> {
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| location.error(describe(&e)))?
            .iter()
            .map(str::to_string)
            .collect();
        let time = header
            .iter()
            .position(|c| c == time_column)
            .ok_or_else(|| {
                location.error(format!(
                    "no column `{time_column}` for the timestamps; its header is [{}]",
                    shown_header(&header)
                ))
            })?;
        let columns: Arc<[String]> = header
            .iter()
            .enumerate()
            .filter(|&(c, _)| c != time)
            .map(|(_, name)| name.clone())
            .collect();
        let mut times = Vec::new();
        let mut values = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| location.error(describe(&e)))?;
            let line = record.position().map_or(0, |p| p.line());
            for (c, field) in record.iter().enumerate() {
                let value = field.parse::<f64>().map_err(|_| {
                    location.error(format!(
                        "line {line}, column `{}`: `{field}` is not a number",
                        header[c]
                    ))
                })?;
                if c == time {
                    times.push(value);
                } else {
                    values.push(value);
                }
            }
        }
        let values = Array2::from_shape_vec((times.len(), columns.len()), values)
            .map_err(|e| Error::internal("Table::open", e))?;
        Ok(Parsed {
            columns,
            times,
            values,
        })
    }

    /// The names of the values' columns (the header without the time
    /// column), in the order of a sample's values.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The file the table was read from.
    pub fn location(&self) -> &Location {
        &self.location
    }
}

impl Sensor for Table {
    type Sample = Array1<f64>;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    /// Where its samples are: see its [`Storage`] impl.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> Result<Array1<f64>> {
        if index >= self.values.nrows() {
            return Err(Error::out_of_range(
                format_args!("sensor `{}`", self.name),
                index,
                self.values.nrows(),
            ));
        }
        Ok(self.values.row(index).to_owned())
    }
}

/// Its samples are rows of one file.
impl Storage for Table {
    type Origin = SensorOrigin;

    /// The file, and the row of the table (counting data rows from 0,
    /// without the header or comments).
    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        Some(SensorOrigin::new(self.name.as_str(), index).in_file(&self.location, Some(index)))
    }
}

/// A table as read, before its timestamps are checked.
struct Parsed {
    /// The value columns' names.
    columns: Arc<[String]>,
    /// The time column.
    times: Vec<f64>,
    /// `[rows, columns]`.
    values: Array2<f64>,
}

/// A CSV reader's failure, in words (with the line where it is one).
fn describe(error: &csv::Error) -> String {
    match error.kind() {
        csv::ErrorKind::Io(e) => format!("cannot read: {e}"),
        csv::ErrorKind::UnequalLengths {
            pos,
            expected_len,
            len,
        } => format!(
            "line {} has {len} fields; the header has {expected_len}",
            pos.as_ref().map_or(0, |p| p.line())
        ),
        csv::ErrorKind::Utf8 { pos, .. } => format!(
            "line {} is not UTF-8 text",
            pos.as_ref().map_or(0, |p| p.line())
        ),
        _ => error.to_string(),
    }
}

/// A header as a message shows it: its first 20 names, each escaped (a
/// damaged file's names are any text) and cut at 40 characters, and how
/// many more there are.
fn shown_header(header: &[String]) -> String {
    let mut names: Vec<String> = header
        .iter()
        .take(20)
        .map(|name| {
            let escaped: String = name.escape_debug().collect();
            let mut shown: String = escaped.chars().take(40).collect();
            if escaped.chars().count() > 40 {
                shown.push_str("...");
            }
            shown
        })
        .collect();
    if header.len() > 20 {
        names.push(format!("and {} more", header.len() - 20));
    }
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::shown_header;

    #[test]
    fn a_long_or_damaged_header_is_shown_short_and_escaped() {
        assert_eq!(shown_header(&["t".into(), "ax".into()]), "t, ax");
        let long: Vec<String> = (0..25).map(|i| format!("c{i}")).collect();
        assert!(shown_header(&long).ends_with("c19, and 5 more"));
        let odd = shown_header(&["a\u{7}b".into(), "x".repeat(50)]);
        assert_eq!(odd, format!("a\\u{{7}}b, {}...", "x".repeat(40)));
    }
}

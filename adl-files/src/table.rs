//! [`Table`]: a sensor over a CSV table of timestamped rows.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use adl_core::{Error, Result, Sensor, SensorOrigin, Timestamps};
use ndarray::{Array1, Array2};

use crate::timestamps::checked;

/// A sensor whose samples are the rows of a CSV table with a header (an
/// IMU, a GPS): one column holds the timestamps in seconds, and sample `i`
/// is row `i`'s other columns, as numbers, in the header's order
/// ([`columns`](Table::columns) names them). The table is read and checked
/// whole when it is opened.
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
    path: PathBuf,
    columns: Arc<[String]>,
    /// `[rows, columns]`: the values, without the time column.
    values: Array2<f64>,
    timestamps: Timestamps,
}

impl Table {
    /// Sensor `name` over the CSV table at `path`, its timestamps (seconds)
    /// in the column headed `time_column`.
    pub fn open(name: &str, path: impl AsRef<Path>, time_column: &str) -> Result<Self> {
        let path = path.as_ref();
        let Parsed {
            columns,
            times,
            values,
        } = Self::read(path, time_column).map_err(|e| e.in_sensor(name, None))?;
        Ok(Table {
            name: name.to_string(),
            path: path.to_path_buf(),
            columns,
            values,
            timestamps: checked(name, path, times)?,
        })
    }

    /// The table at `path`, read and parsed.
    fn read(path: &Path, time_column: &str) -> Result<Parsed> {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .comment(Some(b'#'))
            .from_path(path)
            .map_err(|e| Error::file(path, describe(&e)))?;
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| Error::file(path, describe(&e)))?
            .iter()
            .map(str::to_string)
            .collect();
        let time = header
            .iter()
            .position(|c| c == time_column)
            .ok_or_else(|| {
                Error::file(
                    path,
                    format!(
                        "no column `{time_column}` for the timestamps; its header is [{}]",
                        header.join(", ")
                    ),
                )
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
            let record = record.map_err(|e| Error::file(path, describe(&e)))?;
            let line = record.position().map_or(0, |p| p.line());
            for (c, field) in record.iter().enumerate() {
                let value = field.parse::<f64>().map_err(|_| {
                    Error::file(
                        path,
                        format!(
                            "line {line}, column `{}`: `{field}` is not a number",
                            header[c]
                        ),
                    )
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
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Sensor for Table {
    type Sample = Array1<f64>;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    /// The file, and the row of the table (counting data rows from 0,
    /// without the header or comments).
    fn origin(&self, index: usize) -> SensorOrigin {
        SensorOrigin::new(self.name.as_str(), index).in_file(self.path.display(), Some(index))
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

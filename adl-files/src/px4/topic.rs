//! [`TopicSensor`]: one `(topic, multi_id)` of a ULog file, held as columns.

use std::collections::HashMap;
use std::sync::Arc;

use ndarray::{Array1, Array2, ArrayView1};

use super::parse::RawTopic;
use adl_core::{Error, Record, Result, Sensor, Timestamps};

/// One instance of one uORB topic of a PX4 log, as a [`Sensor`].
///
/// - **Name**: the topic (`vehicle_attitude`) for instance (`multi_id`) 0,
///   `topic/N` (`sensor_accel/1`) for instance `N > 0`; see
///   [`TopicSensor::sensor_name`].
/// - **Timestamps**: the message's uint64 `timestamp` field (microseconds
///   since boot) in seconds, `timestamp as f64 / 1e6`.
/// - **Fields**: every other field of the message, in the order of its
///   format. Array fields (`gyro_rad[0]`, `gyro_rad[1]`, `gyro_rad[2]`) are
///   one field (`gyro_rad`) of width 3; fields of nested messages keep their
///   path (`esc[2].esc_rpm`). Every value is converted to `f64` (booleans as
///   0/1, chars as their byte; 64-bit integers above 2^53 lose precision).
/// - **Sample**: a [`Record`] of `Array1<f64>`, field name → that row's
///   values (length 1 for a scalar field), copied out of the columns.
///
/// The data is held in memory, one `Array2<f64>` of shape
/// `(samples, width)` per field, so reads are cheap and need no file access.
///
/// ```no_run
/// use adl::{Sensor, files::px4::Px4Log};
///
/// let log = Px4Log::open("flight.ulg")?;
/// let imu = log.sensor("sensor_combined")?;
/// let sample = imu.get(10)?;
/// assert_eq!(sample["accelerometer_m_s2"].len(), 3);
/// let all_gyro = imu.field("gyro_rad").unwrap(); // (samples, 3)
/// assert_eq!(all_gyro.nrows(), imu.len());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct TopicSensor {
    name: String,
    topic: String,
    instance: u8,
    timestamps: Timestamps,
    field_names: Arc<[String]>,
    fields: Vec<Array2<f64>>,
}

impl TopicSensor {
    /// The sensor name of instance `instance` of `topic`: `topic` for
    /// instance 0, `topic/N` otherwise.
    ///
    /// ```
    /// use adl::files::px4::TopicSensor;
    ///
    /// assert_eq!(TopicSensor::sensor_name("sensor_gyro", 0), "sensor_gyro");
    /// assert_eq!(TopicSensor::sensor_name("sensor_gyro", 2), "sensor_gyro/2");
    /// ```
    pub fn sensor_name(topic: &str, instance: u8) -> String {
        if instance == 0 {
            topic.to_owned()
        } else {
            format!("{topic}/{instance}")
        }
    }

    /// Build a sensor from a parsed topic, or the error that rejects its
    /// timestamps.
    pub(crate) fn from_raw(raw: RawTopic, path: &str) -> Result<Self> {
        let name = Self::sensor_name(&raw.topic, raw.instance);
        if !raw.has_timestamp {
            return Err(Error::file(
                path,
                format!("topic `{name}` has no uint64 `timestamp` field, so it cannot be a sensor"),
            )
            .in_sensor(&name, None));
        }
        if raw.times.is_empty() {
            return Err(Error::EmptySensor {
                sensor: name,
                needed_for: "a PX4 log sensor",
            });
        }
        if raw.times.iter().all(|&t| t == 0.0) {
            // Covers a single sample stamped 0, which `Timestamps` accepts:
            // a clock at zero never started.
            return Err(Error::ConstantTimestamps {
                sensor: name,
                len: raw.times.len(),
                value: 0.0,
            });
        }
        let timestamps = Timestamps::new(&name, raw.times)?;
        let rows = timestamps.as_slice().len();
        let width = raw.columns.len();

        // Group columns into fields: `name[i]` columns become one field.
        let mut field_names: Vec<String> = Vec::new();
        let mut field_columns: Vec<Vec<usize>> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (column, full) in raw.columns.iter().enumerate() {
            let base = field_of(full);
            let at = *by_name.entry(base.to_owned()).or_insert_with(|| {
                field_names.push(base.to_owned());
                field_columns.push(Vec::new());
                field_names.len() - 1
            });
            field_columns[at].push(column);
        }
        let fields = field_columns
            .iter()
            .map(|columns| {
                Array2::from_shape_fn((rows, columns.len()), |(r, c)| {
                    raw.values[r * width + columns[c]]
                })
            })
            .collect();
        Ok(TopicSensor {
            name,
            topic: raw.topic,
            instance: raw.instance,
            timestamps,
            field_names: field_names.into(),
            fields,
        })
    }

    /// The uORB topic, e.g. `sensor_accel`.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// The topic instance (the ULog `multi_id`), 0 for the first.
    pub fn instance(&self) -> u8 {
        self.instance
    }

    /// The fields' names, in the order of a sample's values.
    pub fn field_names(&self) -> &[String] {
        &self.field_names
    }

    /// Every sample of field `name`: shape `(samples, width)`.
    pub fn field(&self, name: &str) -> Option<&Array2<f64>> {
        let at = self.field_names.iter().position(|n| n == name)?;
        self.fields.get(at)
    }

    /// Field `name` of sample `index`, without copying; `None` if there is
    /// no such field or sample.
    pub fn value(&self, index: usize, name: &str) -> Option<ArrayView1<'_, f64>> {
        let field = self.field(name)?;
        (index < field.nrows()).then(|| field.row(index))
    }
}

/// The field a flattened column belongs to: `gyro_rad[2]` → `gyro_rad`;
/// anything not ending in `[digits]` is its own field.
fn field_of(column: &str) -> &str {
    if let Some(open) = column.rfind('[')
        && let Some(digits) = column[open + 1..].strip_suffix(']')
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
    {
        return &column[..open];
    }
    column
}

impl Sensor for TopicSensor {
    type Sample = Record<Array1<f64>>;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> Result<Self::Sample> {
        let len = self.timestamps.as_slice().len();
        if index >= len {
            return Err(Error::out_of_range(
                format!("sensor `{}`", self.name),
                index,
                len,
            ));
        }
        let values = self
            .fields
            .iter()
            .map(|f| f.row(index).to_owned())
            .collect();
        Record::new(self.field_names.clone(), values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(times: Vec<f64>) -> RawTopic {
        let rows = times.len();
        RawTopic {
            topic: "imu".into(),
            instance: 1,
            columns: vec![
                "gyro[0]".into(),
                "gyro[1]".into(),
                "temp".into(),
                "esc[0].rpm".into(),
            ],
            has_timestamp: true,
            times,
            values: (0..rows * 4).map(|v| v as f64).collect(),
        }
    }

    #[test]
    fn groups_array_columns_and_reads_rows() {
        let s = TopicSensor::from_raw(raw(vec![0.1, 0.2, 0.3]), "f.ulg").unwrap();
        assert_eq!(s.name(), "imu/1");
        assert_eq!(s.field_names(), &["gyro", "temp", "esc[0].rpm"]);
        assert_eq!(s.field("gyro").unwrap().dim(), (3, 2));
        let r = s.get(1).unwrap();
        assert_eq!(r["gyro"].to_vec(), vec![4.0, 5.0]);
        assert_eq!(r["temp"].to_vec(), vec![6.0]);
        assert_eq!(r["esc[0].rpm"].to_vec(), vec![7.0]);
        assert_eq!(s.value(2, "temp").unwrap()[0], 10.0);
        assert!(s.value(3, "temp").is_none());
        assert!(matches!(
            s.get(3),
            Err(Error::IndexOutOfRange {
                index: 3,
                len: 3,
                ..
            })
        ));
    }

    #[test]
    fn rejects_bad_timestamps() {
        let empty = TopicSensor::from_raw(raw(vec![]), "f").unwrap_err();
        assert!(matches!(empty, Error::EmptySensor { .. }));
        let zero = TopicSensor::from_raw(raw(vec![0.0]), "f").unwrap_err();
        assert!(matches!(zero, Error::ConstantTimestamps { len: 1, .. }));
        let constant = TopicSensor::from_raw(raw(vec![2.0, 2.0]), "f").unwrap_err();
        assert!(matches!(constant, Error::ConstantTimestamps { len: 2, .. }));
        let unsorted = TopicSensor::from_raw(raw(vec![2.0, 1.0]), "f").unwrap_err();
        assert!(matches!(unsorted, Error::UnsortedTimestamps { .. }));
        let nan = TopicSensor::from_raw(raw(vec![1.0, f64::NAN]), "f").unwrap_err();
        assert!(matches!(nan, Error::NonFiniteTimestamp { .. }));
        let mut no_time = raw(vec![1.0, 2.0]);
        no_time.has_timestamp = false;
        assert!(matches!(
            TopicSensor::from_raw(no_time, "f"),
            Err(Error::Source { .. })
        ));
    }

    #[test]
    fn field_names() {
        assert_eq!(field_of("a[12]"), "a");
        assert_eq!(field_of("a[0].b"), "a[0].b");
        assert_eq!(field_of("a[0].b[3]"), "a[0].b");
        assert_eq!(field_of("a[]"), "a[]");
        assert_eq!(field_of("a[x]"), "a[x]");
    }
}

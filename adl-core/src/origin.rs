//! Where a sample comes from: [`Origin`] (a dataset sample's trace and the
//! place of each sensor's part) and [`SensorOrigin`] (one sensor's sample:
//! its index, and the file and row it is read from, where there is one).

use std::fmt;

use crate::{Dataset, Error, Result, Sensor};

/// Where one sensor's sample is read from: the sensor, its own index, and
/// for a file-backed sensor the file and the row (the place in the file:
/// a row of an array, a line of a table; none for a file per sample).
///
/// [`SensorOrigin::of`] reads it through the sensor's
/// [`storage`](crate::Sensor::storage).
///
/// ```
/// use adl::SensorOrigin;
///
/// let place = SensorOrigin::new("radar", 7).in_file("run-1/radar/data.npy", Some(7));
/// assert_eq!(place.to_string(), "sensor `radar` sample 7 (run-1/radar/data.npy, row 7)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SensorOrigin {
    /// The sensor's name.
    pub sensor: String,
    /// The sample's index in the sensor.
    pub index: usize,
    /// The file the sample is read from, where the sensor reads files (a
    /// path or a URL).
    pub file: Option<String>,
    /// The row of the file the sample is (an array's row along its first
    /// axis, a table's line), where the file holds many samples.
    pub row: Option<usize>,
    /// Where the sensor is a [`Window`](crate::Window): the samples it
    /// takes before and after each one (`(past, future)`).
    pub window: Option<(usize, usize)>,
}

impl SensorOrigin {
    /// Where sample `index` of `sensor` is read from: what its
    /// [`storage`](Sensor::storage) knows (a file, a row), or else the
    /// sensor's name and the index. Reads nothing; an index out of range is
    /// reported as it is given.
    pub fn of<S: Sensor + ?Sized>(sensor: &S, index: usize) -> SensorOrigin {
        sensor
            .storage()
            .and_then(|storage| storage.origin(index))
            .unwrap_or_else(|| SensorOrigin::new(sensor.name(), index))
    }

    /// Sample `index` of sensor `sensor`, not read from a file.
    pub fn new(sensor: impl Into<String>, index: usize) -> Self {
        SensorOrigin {
            sensor: sensor.into(),
            index,
            file: None,
            row: None,
            window: None,
        }
    }

    /// The same sample, read from `file` (at `row`, where the file holds
    /// many samples).
    pub fn in_file(mut self, file: impl fmt::Display, row: Option<usize>) -> Self {
        self.file = Some(file.to_string());
        self.row = row;
        self
    }
}

impl fmt::Display for SensorOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sensor `{}` sample {}", self.sensor, self.index)?;
        match (&self.file, self.row) {
            (Some(file), Some(row)) => write!(f, " ({file}, row {row})"),
            (Some(file), None) => write!(f, " ({file})"),
            _ => Ok(()),
        }
    }
}

/// Where a dataset's sample comes from: its index in the dataset, the
/// trace that holds it and its index there, and each sensor's part
/// ([`SensorOrigin`]).
///
/// [`Origin::of`] reads it through the dataset's
/// [`storage`](crate::Dataset::storage): a
/// [`Recording`](crate::Recording) knows its name and its sensors' rows, a
/// [`Concat`](crate::Concat) of traces says which trace, and the
/// adaptors that keep samples whole ([`Sampled`](crate::sample::Sampled),
/// `map`, `shuffled`, `skip`, `take`...) pass it through. A dataset that
/// does not know gives only the index.
///
/// ```
/// use adl::{Origin, Recording, Sensor, Series, Timestamps, sync::Nearest};
///
/// let s = |n: &str, t: Vec<f64>| Series::new(n, Timestamps::new(n, t).unwrap(), |i| Ok(i));
/// let trace = Recording::new(
///     "run-7",
///     vec![s("camera", vec![0.0, 0.1, 0.2]), s("imu", vec![0.0, 0.05, 0.1, 0.15, 0.2])],
///     &Nearest::new("camera", 0.01)?,
/// )?;
/// let origin = Origin::of(&trace, 2)?;
/// assert_eq!(origin.trace.as_deref(), Some("run-7"));
/// assert_eq!(origin.sensors[1].index, 4);
/// assert_eq!(
///     origin.to_string(),
///     "sample 2: trace `run-7` sample 2, sensor `camera` sample 2, sensor `imu` sample 4"
/// );
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Origin {
    /// The sample's index in the dataset asked.
    pub index: usize,
    /// The trace holding the sample, where the dataset knows it.
    pub trace: Option<String>,
    /// The sample's index in its trace (the dataset index where there is no
    /// trace).
    pub trace_index: usize,
    /// Each sensor's part of the sample, in the trace's sensor order; empty
    /// where the dataset does not know its sensors.
    pub sensors: Vec<SensorOrigin>,
    /// How the trace synchronizes its sensors (the policy's type, such as
    /// `Nearest`; `aligned` or `given indices` for a trace built so),
    /// where the dataset knows it.
    pub sync: Option<String>,
}

impl Origin {
    /// Where sample `index` of `dataset` comes from: what its
    /// [`storage`](Dataset::storage) knows (its trace, each sensor's file
    /// and row), or else the index alone. Reads no sample; an index out of
    /// range is [`Error::IndexOutOfRange`].
    pub fn of<D: Dataset + ?Sized>(dataset: &D, index: usize) -> Result<Origin> {
        let len = dataset.len();
        if index >= len {
            return Err(Error::out_of_range("dataset", index, len));
        }
        Ok(dataset
            .storage()
            .and_then(|storage| storage.origin(index))
            .unwrap_or_else(|| Origin::unknown(index)))
    }

    /// Sample `index` of a dataset that knows nothing more about it.
    pub fn unknown(index: usize) -> Self {
        Origin {
            index,
            trace: None,
            trace_index: index,
            sensors: Vec::new(),
            sync: None,
        }
    }

    /// Sample `index` of trace `trace`, read from `sensors`.
    pub fn in_trace(trace: impl Into<String>, index: usize, sensors: Vec<SensorOrigin>) -> Self {
        Origin {
            index,
            trace: Some(trace.into()),
            trace_index: index,
            sensors,
            sync: None,
        }
    }

    /// The same origin, its trace synchronized by `sync` (a policy's name).
    pub fn synchronized_by(mut self, sync: impl Into<String>) -> Self {
        self.sync = Some(sync.into());
        self
    }

    /// The same origin, seen as sample `index` of an outer dataset (a
    /// concatenation, a sampled or shuffled view).
    pub fn at(mut self, index: usize) -> Self {
        self.index = index;
        self
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sample {}", self.index)?;
        if let Some(trace) = &self.trace {
            write!(f, ": trace `{trace}` sample {}", self.trace_index)?;
        }
        for (k, sensor) in self.sensors.iter().enumerate() {
            let sep = if k == 0 && self.trace.is_none() {
                ": "
            } else {
                ", "
            };
            write!(f, "{sep}{sensor}")?;
        }
        Ok(())
    }
}

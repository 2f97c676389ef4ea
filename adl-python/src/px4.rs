//! `adl.px4`: PX4 flight logs (ULog) read by adl-core's reader with the
//! GIL released, each logged topic instance a Python sensor (a name,
//! `metadata.timestamps`, `__getitem__`, `__len__`) whose sample is a dict
//! of its fields' values, as the Rust `TopicSensor`'s `Record`.

use adl_core::Sensor;
use adl_files::px4::{Completeness, Px4Log, TopicSensor};
use numpy::{PyArray1, PyArray2, ToPyArray};
use pyo3::prelude::*;

use crate::made_from::{MadeFrom, kwargs, located};
use pyo3::types::PyDict;

use crate::errors::to_python;
use crate::files::{Metadata, Stream, position};
use crate::native::{AnyArray, Value};

/// A PX4 flight log: `Log(path)` reads the whole file (a local path, or
/// an object's URL such as `s3://bucket/flight.ulg`; the GIL released),
/// and each topic instance with usable timestamps is a sensor, `log[name]`
/// (`topic`, or `topic/N` for instance N > 0). Topics that cannot be
/// sensors are in `rejected` with the reason; a file cut short keeps what
/// came before the break (`complete` says whether it was).
#[pyclass(module = "adl.px4", frozen)]
pub(crate) struct Log {
    path: String,
    made: MadeFrom,
    sensors: Vec<Py<Topic>>,
    rejected: Vec<(String, String)>,
    completeness: Completeness,
}

#[pymethods]
impl Log {
    #[new]
    fn new(py: Python<'_>, path: String) -> PyResult<Self> {
        let made = MadeFrom::class::<Log>(py, (located(&path),), kwargs!(py))?;
        let log = py
            .detach(|| Px4Log::open_at(path.as_str()))
            .map_err(to_python)?;
        let rejected = log
            .rejected()
            .iter()
            .map(|(name, why)| (name.clone(), format!("{why:#}")))
            .collect();
        let completeness = log.completeness().clone();
        let sensors = log
            .into_sensors()
            .into_iter()
            .map(|sensor| {
                let name = sensor.name().to_owned();
                Topic::made(
                    py,
                    sensor,
                    made.then(py, "__getitem__", (name,), kwargs!(py))?,
                )
            })
            .collect::<PyResult<_>>()?;
        Ok(Log {
            path,
            made,
            sensors,
            rejected,
            completeness,
        })
    }

    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The file the log was read from.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// The sensors' names, sorted by topic then instance.
    #[getter]
    fn sensors(&self) -> Vec<String> {
        self.sensors
            .iter()
            .map(|s| s.get().sensor.name().to_owned())
            .collect()
    }

    /// The topic instances that are not sensors, `(name, why)` each.
    #[getter]
    fn rejected(&self) -> Vec<(String, String)> {
        self.rejected.clone()
    }

    /// Whether the file's data section was read to its end; where it was
    /// not, `incomplete` says how it ended.
    #[getter]
    fn complete(&self) -> bool {
        self.completeness.is_complete()
    }

    /// `None` for a whole file, else how it ended: cut short partway
    /// through a record, or the parser's message for a corrupt one.
    #[getter]
    fn incomplete(&self) -> Option<String> {
        match &self.completeness {
            Completeness::Complete => None,
            Completeness::Truncated => {
                Some("truncated: the file ends partway through a record".into())
            }
            Completeness::Malformed(why) => Some(format!("malformed: {why}")),
        }
    }

    fn __len__(&self) -> usize {
        self.sensors.len()
    }

    fn __contains__(&self, name: &str) -> bool {
        self.sensors.iter().any(|s| s.get().sensor.name() == name)
    }

    /// The sensor `name`; a `KeyError` listing the log's sensors if there
    /// is none.
    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Py<Topic>> {
        match self.sensors.iter().find(|s| s.get().sensor.name() == name) {
            Some(sensor) => Ok(sensor.clone_ref(py)),
            None => Err(to_python(adl_core::Error::UnknownSensor {
                role: "requested",
                name: name.to_owned(),
                available: self.sensors(),
            })),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "px4.Log({:?}, {} sensors, {} rejected{})",
            self.path,
            self.sensors.len(),
            self.rejected.len(),
            if self.completeness.is_complete() {
                ""
            } else {
                ", incomplete"
            }
        )
    }
}

/// One topic instance of a [`Log`] as a sensor: sample `i` is a dict of
/// its fields, each a float64 array (`gyro_rad`: its 3 values; a scalar
/// field: 1 value), as the Rust `TopicSensor`'s record.
#[pyclass(module = "adl.px4", frozen)]
pub(crate) struct Topic {
    sensor: TopicSensor,
    metadata: Py<Metadata>,
    made: MadeFrom,
}

impl Topic {
    /// Sample `index` as an `adl.Pipeline`'s value: a dict of its fields, read
    /// without Python, with what the read stage read ahead for it, where it
    /// did.
    pub(crate) fn value_fetched(
        &self,
        index: usize,
        fetched: adl_core::storage::Fetched,
    ) -> adl_core::Result<Value> {
        let record = self.sensor.get_fetched(index, fetched)?;
        let names: Vec<std::sync::Arc<str>> = record
            .names()
            .iter()
            .map(|name| std::sync::Arc::from(name.as_str()))
            .collect();
        Ok(Value::Map(
            names
                .into_iter()
                .zip(record.into_values())
                .map(|(name, values)| (name, Value::Array(AnyArray::F64(values.into_dyn()))))
                .collect(),
        ))
    }

    /// The number of samples.
    pub(crate) fn samples(&self) -> usize {
        self.sensor.len()
    }

    /// Where its samples are stored, and what it reads ahead (the Rust
    /// sensor's).
    pub(crate) fn storage(
        &self,
    ) -> Option<&dyn adl_core::storage::Storage<Origin = adl_core::SensorOrigin>> {
        self.sensor.storage()
    }

    fn made(py: Python<'_>, sensor: TopicSensor, made: MadeFrom) -> PyResult<Py<Topic>> {
        let metadata = Metadata::of(py, sensor.metadata())?;
        Py::new(
            py,
            Topic {
                sensor,
                metadata,
                made,
            },
        )
    }
}

#[pymethods]
impl Topic {
    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The sensor's name: `topic`, or `topic/N` for instance N > 0.
    #[getter]
    fn name(&self) -> &str {
        self.sensor.name()
    }

    /// The uORB topic (`sensor_accel`).
    #[getter]
    fn topic(&self) -> &str {
        self.sensor.topic()
    }

    /// The topic's instance (ULog's `multi_id`), 0 for the first.
    #[getter]
    fn instance(&self) -> u8 {
        self.sensor.instance()
    }

    /// The sensor's metadata (`metadata.timestamps`, seconds).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// The fields' names, in a sample's order.
    #[getter]
    fn fields(&self) -> Vec<String> {
        self.sensor.field_names().to_vec()
    }

    /// Every sample of field `name`: a float64 array `[samples, width]`.
    fn field<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyArray2<f64>>> {
        match self.sensor.field(name) {
            Some(values) => Ok(values.to_pyarray(py)),
            None => Err(pyo3::exceptions::PyKeyError::new_err(format!(
                "sensor `{}` has no field `{name}`; its fields: {}",
                self.sensor.name(),
                self.sensor.field_names().join(", ")
            ))),
        }
    }

    fn __len__(&self) -> usize {
        self.sensor.len()
    }

    /// Sample `index`: a dict of each field's values (the Rust sensor's
    /// record, its arrays handed over without a copy).
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyDict>> {
        let at = position(index, self.sensor.len(), self.sensor.name())?;
        let record = self.sensor.get(at).map_err(to_python)?;
        let sample = PyDict::new(py);
        for (name, values) in record {
            sample.set_item(name, PyArray1::from_owned_array(py, values))?;
        }
        Ok(sample)
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        format!(
            "px4.Topic({:?}, {} samples, fields {})",
            self.sensor.name(),
            self.sensor.len(),
            self.sensor.field_names().join(", ")
        )
    }
}

//! [`Source`]: the dataset of a loader with an `adl.Pipeline`, its
//! samples as [`Value`]s. An `adl.Dataset` or `adl.Trace` of adl's own
//! sensors (`adl.files`, `adl.px4`) is read in Rust without the GIL, its
//! synchronized indices read once; any other dataset is called with the
//! GIL and its samples copied.

use std::sync::Arc;

use adl_core::{Dataset, Error, Result};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyMapping;

use crate::dataset::Dataset as PyDatasetClass;
use crate::errors::PythonError;
use crate::files::{EncodedImages, Images, Npy, Table};
use crate::gil::GilTime;
use crate::px4::Topic;
use crate::rover::RoverSensor;
use crate::trace::Trace;
use crate::video::Video;
use adl_value::{Path, Value};

/// One of adl's sensors, read without the GIL.
enum Sensor {
    Images(Py<Images>),
    Encoded(Py<EncodedImages>),
    Npy(Py<Npy>),
    Table(Py<Table>),
    Topic(Py<Topic>),
    Rover(Py<RoverSensor>),
    Video(Py<Video>),
}

impl Sensor {
    /// `object` if it is one of adl's sensors.
    fn of(object: &Bound<'_, PyAny>) -> Option<Sensor> {
        if let Ok(s) = object.cast_exact::<Images>() {
            return Some(Sensor::Images(s.clone().unbind()));
        }
        if let Ok(s) = object.cast_exact::<EncodedImages>() {
            return Some(Sensor::Encoded(s.clone().unbind()));
        }
        if let Ok(s) = object.cast_exact::<Npy>() {
            return Some(Sensor::Npy(s.clone().unbind()));
        }
        if let Ok(s) = object.cast_exact::<Table>() {
            return Some(Sensor::Table(s.clone().unbind()));
        }
        if let Ok(s) = object.cast_exact::<Topic>() {
            return Some(Sensor::Topic(s.clone().unbind()));
        }
        if let Ok(s) = object.cast_exact::<Video>() {
            return Some(Sensor::Video(s.clone().unbind()));
        }
        // A roverd sensor whose channels' dtypes an adl.Pipeline takes.
        if let Ok(s) = object.cast_exact::<RoverSensor>()
            && s.get().is_native()
        {
            return Some(Sensor::Rover(s.clone().unbind()));
        }
        None
    }

    fn len(&self) -> usize {
        match self {
            Sensor::Images(s) => s.get().samples(),
            Sensor::Encoded(s) => s.get().samples(),
            Sensor::Npy(s) => s.get().samples(),
            Sensor::Table(s) => s.get().samples(),
            Sensor::Topic(s) => s.get().samples(),
            Sensor::Rover(s) => s.get().samples(),
            Sensor::Video(s) => s.get().samples(),
        }
    }

    fn value(&self, index: usize) -> Result<Value> {
        match self {
            Sensor::Images(s) => s.get().value(index),
            Sensor::Encoded(s) => s.get().value(index),
            Sensor::Npy(s) => s.get().value(index),
            Sensor::Table(s) => s.get().value(index),
            Sensor::Topic(s) => s.get().value(index),
            Sensor::Rover(s) => s.get().value(index),
            Sensor::Video(s) => s.get().value(index),
        }
    }
}

/// A trace of adl's sensors: sample `i` is each sensor's sample at its
/// synchronized index (or at `i`, when the trace has no indices).
pub(crate) struct NativeTrace {
    name: String,
    /// The sensors by name, each with its index for every sample of the
    /// trace, if the trace has indices.
    sensors: Vec<(Arc<str>, Sensor, Option<Vec<usize>>)>,
    len: usize,
}

impl NativeTrace {
    /// `object` if it is an `adl.Trace` (not a subclass, which may read
    /// otherwise) of adl's sensors, with indices of Python ints (or none).
    fn of(object: &Bound<'_, PyAny>) -> PyResult<Option<NativeTrace>> {
        let Ok(trace) = object.cast_exact::<Trace>() else {
            return Ok(None);
        };
        let (sensors, indices, name) = {
            let trace = trace.borrow();
            (
                trace.sensors(object.py()),
                trace.indices(object.py()),
                trace.name().to_owned(),
            )
        };
        let Ok(mapping) = sensors.cast::<PyMapping>() else {
            return Ok(None);
        };
        let mut native = Vec::new();
        for item in mapping.items()?.iter() {
            let (key, sensor): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let (Ok(key), Some(sensor)) = (key.extract::<String>(), Sensor::of(&sensor)) else {
                return Ok(None);
            };
            let rows = if indices.is_none() {
                None
            } else {
                match indices.get_item(&key).ok().and_then(|rows| rows_of(&rows)) {
                    Some(rows) => Some(rows),
                    // Indices the native reader cannot take as they are
                    // (negative, or missing): the trace is Python's.
                    None => return Ok(None),
                }
            };
            native.push((Arc::from(key), sensor, rows));
        }
        let Some((_, first, rows)) = native.first() else {
            return Ok(None);
        };
        let len = match rows {
            Some(rows) => rows.len(),
            None => first.len(),
        };
        // Every sensor's index column as long as the trace (the reference
        // reads a shorter one's missing rows as an IndexError): else
        // Python's.
        if native
            .iter()
            .any(|(_, _, rows)| rows.as_ref().is_some_and(|r| r.len() != len))
        {
            return Ok(None);
        }
        Ok(Some(NativeTrace {
            name,
            sensors: native,
            len,
        }))
    }

    fn value(&self, index: usize) -> Result<Value> {
        let mut items = Vec::with_capacity(self.sensors.len());
        for (name, sensor, rows) in &self.sensors {
            let row = match rows {
                Some(rows) => rows[index],
                None => index,
            };
            if row >= sensor.len() {
                return Err(Error::out_of_range(
                    format_args!("sensor `{name}` of trace `{}`", self.name),
                    row,
                    sensor.len(),
                ));
            }
            items.push((Arc::clone(name), sensor.value(row)?));
        }
        Ok(Value::Map(items))
    }
}

/// A sensor's index column (an int64 array, as the sync policies give
/// it, or a sequence of ints), if every index is a position (not
/// negative).
fn rows_of(rows: &Bound<'_, PyAny>) -> Option<Vec<usize>> {
    if let Ok(array) = rows.cast::<PyArray1<i64>>() {
        let array = array.readonly();
        return array
            .as_array()
            .iter()
            .map(|&i| usize::try_from(i).ok())
            .collect();
    }
    rows.extract::<Vec<usize>>().ok()
}

/// The dataset of a loader with an `adl.Pipeline`.
pub(crate) enum Source {
    /// Traces of adl's own sensors, one after another: read in Rust,
    /// without the GIL.
    Native {
        traces: Vec<NativeTrace>,
        /// Each trace's end as a global index.
        ends: Vec<usize>,
    },
    /// Any other dataset: `dataset[i]` with the GIL (counted in `gil`),
    /// the sample copied into a [`Value`].
    Python {
        object: Py<PyAny>,
        len: usize,
        gil: Arc<GilTime>,
    },
}

impl Source {
    /// `dataset` as a source: native when it is an `adl.Dataset` of
    /// `adl.Trace`s, or an `adl.Trace`, of adl's sensors.
    pub(crate) fn new(dataset: &Bound<'_, PyAny>, gil: Arc<GilTime>) -> PyResult<Source> {
        if let Some(traces) = native_traces(dataset)? {
            let mut ends = Vec::with_capacity(traces.len());
            let mut total = 0usize;
            for trace in &traces {
                total += trace.len;
                ends.push(total);
            }
            return Ok(Source::Native { traces, ends });
        }
        Ok(Source::Python {
            object: dataset.clone().unbind(),
            len: dataset.len()?,
            gil,
        })
    }

    /// Whether the samples are read without Python.
    pub(crate) fn is_native(&self) -> bool {
        matches!(self, Source::Native { .. })
    }
}

/// Whether `dataset` is read in Rust without calling Python: an
/// `adl.Dataset` of `adl.Trace`s, or an `adl.Trace`, of adl's sensors.
pub(crate) fn is_adl_dataset(dataset: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(native_traces(dataset)?.is_some())
}

/// The native traces of `dataset`, if it is one of adl's datasets of
/// adl's traces of adl's sensors (or one such trace).
fn native_traces(dataset: &Bound<'_, PyAny>) -> PyResult<Option<Vec<NativeTrace>>> {
    if let Some(trace) = NativeTrace::of(dataset)? {
        return Ok(Some(vec![trace]));
    }
    let Ok(dataset) = dataset.cast_exact::<PyDatasetClass>() else {
        return Ok(None);
    };
    let traces = dataset.borrow().traces(dataset.py());
    let mut native = Vec::new();
    for trace in traces.try_iter()? {
        match NativeTrace::of(&trace?)? {
            Some(trace) => native.push(trace),
            None => return Ok(None),
        }
    }
    Ok(Some(native))
}

impl Dataset for Source {
    type Sample = Value;

    fn len(&self) -> usize {
        match self {
            Source::Native { ends, .. } => ends.last().copied().unwrap_or(0),
            Source::Python { len, .. } => *len,
        }
    }

    fn get(&self, index: usize) -> Result<Value> {
        match self {
            Source::Native { traces, ends, .. } => {
                let total = ends.last().copied().unwrap_or(0);
                if index >= total {
                    return Err(Error::out_of_range("the dataset", index, total));
                }
                let trace = ends.partition_point(|&end| end <= index);
                let start = if trace > 0 { ends[trace - 1] } else { 0 };
                traces[trace].value(index - start)
            }
            Source::Python { object, gil, .. } => gil.attach(|py| {
                let failed = |e| Error::read("the dataset", index, PythonError::new(py, e));
                let sample = object.bind(py).get_item(index).map_err(failed)?;
                super::value::from_python(&sample, &Path::root()).map_err(failed)
            }),
        }
    }
}

//! [`Source`]: the dataset of a loader with an `adl.Pipeline`, its
//! samples as [`Value`]s. An `adl.Dataset` or `adl.Trace` of adl's own
//! sensors (`adl.files`, `adl.px4`) is read in Rust without the GIL, as
//! adl-value's [`ValueTraces`] (its synchronized indices read once); any
//! other dataset is called with the GIL and its samples copied. What is
//! here is conversion: which Python objects hold which of adl's sensors,
//! and their index columns as positions.

use std::sync::Arc;

use adl_core::storage::{Fetched, Storage};
use adl_core::{Dataset, Error, Origin, Result, SensorOrigin};
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
use adl_value::{Path, TraceSensor, Value, ValueSensor, ValueTrace, ValueTraces};

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
}

/// `$body` with `$sensor` bound to the sensor's Python object, whichever
/// of adl's sensors it is.
macro_rules! each_sensor {
    ($value:expr, $sensor:ident => $body:expr) => {
        match $value {
            Sensor::Images($sensor) => $body,
            Sensor::Encoded($sensor) => $body,
            Sensor::Npy($sensor) => $body,
            Sensor::Table($sensor) => $body,
            Sensor::Topic($sensor) => $body,
            Sensor::Rover($sensor) => $body,
            Sensor::Video($sensor) => $body,
        }
    };
}

impl ValueSensor for Sensor {
    fn len(&self) -> usize {
        each_sensor!(self, s => s.get().samples())
    }

    fn value(&self, index: usize) -> Result<Value> {
        self.value_fetched(index, Fetched::Nothing)
    }

    fn value_fetched(&self, index: usize, fetched: Fetched) -> Result<Value> {
        each_sensor!(self, s => s.get().value_fetched(index, fetched))
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        each_sensor!(self, s => s.get().storage())
    }
}

/// `object` as a trace of adl's sensors, if it is an `adl.Trace` (not a
/// subclass, which may read otherwise) of adl's sensors, with indices of
/// positions (or none) as long as the trace (the reference reads a
/// shorter one's missing rows as an IndexError: Python's then).
fn native_trace(object: &Bound<'_, PyAny>) -> PyResult<Option<ValueTrace>> {
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
        native.push(TraceSensor {
            name: Arc::from(key),
            sensor: Box::new(sensor),
            rows,
        });
    }
    Ok(ValueTrace::new(name, native).ok())
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
    Native(ValueTraces),
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
            return Ok(Source::Native(ValueTraces::new(traces)));
        }
        Ok(Source::Python {
            object: dataset.clone().unbind(),
            len: dataset.len()?,
            gil,
        })
    }

    /// Whether the samples are read without Python.
    pub(crate) fn is_native(&self) -> bool {
        matches!(self, Source::Native(_))
    }
}

/// Whether `dataset` is read in Rust without calling Python: an
/// `adl.Dataset` of `adl.Trace`s, or an `adl.Trace`, of adl's sensors.
pub(crate) fn is_adl_dataset(dataset: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(native_traces(dataset)?.is_some())
}

/// `dataset` read in Rust, where it is an `adl.Dataset` of `adl.Trace`s,
/// or an `adl.Trace`, of adl's sensors: what a loader without an
/// `adl.Pipeline` reads ahead through (its samples then made from the
/// reads as `dataset[i]` makes them).
pub(crate) fn native_dataset(dataset: &Bound<'_, PyAny>) -> PyResult<Option<ValueTraces>> {
    Ok(native_traces(dataset)?.map(ValueTraces::new))
}

/// The native traces of `dataset`, if it is one of adl's datasets of
/// adl's traces of adl's sensors (or one such trace).
fn native_traces(dataset: &Bound<'_, PyAny>) -> PyResult<Option<Vec<ValueTrace>>> {
    if let Some(trace) = native_trace(dataset)? {
        return Ok(Some(vec![trace]));
    }
    let Ok(dataset) = dataset.cast_exact::<PyDatasetClass>() else {
        return Ok(None);
    };
    let traces = dataset.borrow().traces(dataset.py());
    let mut native = Vec::new();
    for trace in traces.try_iter()? {
        match native_trace(&trace?)? {
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
            Source::Native(traces) => traces.len(),
            Source::Python { len, .. } => *len,
        }
    }

    fn get(&self, index: usize) -> Result<Value> {
        match self {
            Source::Native(traces) => traces.get(index),
            Source::Python { object, gil, .. } => gil.attach(|py| {
                let failed = |e| Error::read("the dataset", index, PythonError::new(py, e));
                let sample = object.bind(py).get_item(index).map_err(failed)?;
                super::value::from_python(&sample, &Path::root()).map_err(failed)
            }),
        }
    }

    /// Sample `index` with what the loader's read stage read ahead for
    /// it (adl's own sensors only: a Python dataset reads for itself).
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Value> {
        match self {
            Source::Native(traces) => traces.get_fetched(index, fetched),
            Source::Python { .. } => self.get(index),
        }
    }

    /// The traces' storage (so that a loader reads files and objects
    /// ahead, each sensor's at once): adl's own sensors only.
    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        match self {
            Source::Native(traces) => traces.storage(),
            Source::Python { .. } => None,
        }
    }
}

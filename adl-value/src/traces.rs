//! [`ValueTraces`]: traces of sensors whose samples are [`Value`]s, one
//! after another, as one dataset: what a loader with an `adl.Pipeline`
//! reads, in Rust, when its dataset is adl's own (an `adl.Dataset` of
//! `adl.Trace`s of adl's sensors).

use std::sync::Arc;

use adl_core::storage::{Ahead, Fetched, Route, Routes, Storage};
use adl_core::{Dataset, Error, Origin, Result, SensorOrigin};

use crate::Value;

/// A sensor whose samples are [`Value`]s (one of adl's file-backed
/// sensors, as the bindings hold it).
pub trait ValueSensor: Send + Sync {
    /// How many samples it has.
    fn len(&self) -> usize;

    /// Whether it has none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sample `index` (below [`len`](Self::len)).
    fn value(&self, index: usize) -> Result<Value>;

    /// Sample `index`, with what its [`storage`](Self::storage) read ahead
    /// for it (see `Sensor::get_fetched`); the default reads it again.
    fn value_fetched(&self, index: usize, fetched: Fetched) -> Result<Value> {
        let _ = fetched;
        self.value(index)
    }

    /// Where its samples are stored, and what it reads ahead of a `value`
    /// (see [`Storage`]); the default: nothing known.
    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        None
    }
}

/// One sensor of a [`ValueTrace`]: its name, the sensor, and its index
/// for every sample of the trace (`None`: sample `i` is the sensor's
/// sample `i`).
pub struct TraceSensor {
    /// The sensor's name: its key in each sample.
    pub name: Arc<str>,
    /// The sensor.
    pub sensor: Box<dyn ValueSensor>,
    /// The sensor's index for each sample of the trace, where the trace
    /// is synchronized.
    pub rows: Option<Vec<usize>>,
}

/// A trace of [`ValueSensor`]s: sample `i` is a [`Value::Map`] of each
/// sensor's sample at its synchronized index (or at `i`, where the trace
/// has no indices), by the sensors' names in order.
pub struct ValueTrace {
    name: String,
    sensors: Vec<TraceSensor>,
    len: usize,
}

impl ValueTrace {
    /// Trace `name` of `sensors`: as long as its index columns (or its
    /// first sensor, without them); an error where it has no sensors or
    /// its index columns differ in length.
    pub fn new(name: impl Into<String>, sensors: Vec<TraceSensor>) -> Result<Self> {
        let name = name.into();
        let Some(first) = sensors.first() else {
            return Err(Error::invalid(
                format_args!("trace `{name}`"),
                "it has no sensors",
            ));
        };
        let len = match &first.rows {
            Some(rows) => rows.len(),
            None => first.sensor.len(),
        };
        if let Some(other) =
            (sensors.iter()).find(|s| s.rows.as_ref().is_some_and(|rows| rows.len() != len))
        {
            return Err(Error::invalid(
                format_args!("trace `{name}`"),
                format_args!(
                    "sensor `{}` has {} indices, sensor `{}` {len}: every sensor has one for each sample",
                    other.name,
                    other.rows.as_ref().map_or(0, Vec::len),
                    first.name
                ),
            ));
        }
        Ok(ValueTrace { name, sensors, len })
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many samples it has.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sample `index` (below [`len`](Self::len)): an error naming the
    /// sensor and the trace where an index lies outside its sensor.
    pub fn value(&self, index: usize) -> Result<Value> {
        self.value_fetched(index, Fetched::Nothing)
    }

    /// Sample `index`, each sensor's sample with its part of `fetched`
    /// (what [`Storage::fetch`] read for it: a part per sensor), the
    /// sensors read in order. A sensor that fails ends it: the reads of
    /// those after it are [discarded](Fetched::discard).
    pub fn value_fetched(&self, index: usize, fetched: Fetched) -> Result<Value> {
        let mut parts = fetched.split(self.sensors.len());
        let mut items = Vec::with_capacity(self.sensors.len());
        for (k, TraceSensor { name, sensor, .. }) in self.sensors.iter().enumerate() {
            let part = parts.next().unwrap_or_default();
            let value = self
                .row(k, index)
                .and_then(|row| sensor.value_fetched(row, part));
            match value {
                Ok(value) => items.push((Arc::clone(name), value)),
                Err(e) => {
                    parts.for_each(Fetched::discard);
                    return Err(e);
                }
            }
        }
        Ok(Value::Map(items))
    }

    /// Sensor `k`'s index for sample `index`: an error naming the trace
    /// where `index` is out of range, or the sensor and the trace where
    /// its index lies outside the sensor.
    fn row(&self, k: usize, index: usize) -> Result<usize> {
        let out_of_range =
            || Error::out_of_range(format_args!("trace `{}`", self.name), index, self.len);
        let TraceSensor { name, sensor, rows } = self.sensors.get(k).ok_or_else(out_of_range)?;
        let row = match rows {
            Some(rows) => *rows.get(index).ok_or_else(out_of_range)?,
            None => index,
        };
        if row >= sensor.len() {
            return Err(Error::out_of_range(
                format_args!("sensor `{name}` of trace `{}`", self.name),
                row,
                sensor.len(),
            ));
        }
        Ok(row)
    }
}

/// A trace is stored where its sensors' samples at their synchronized
/// rows are, one part per sensor, so that a read stage reads them at once
/// (as a `Recording` is).
impl Storage for ValueTrace {
    type Origin = Origin;

    /// The trace's name, `index`, and each sensor's sample by its name in
    /// the trace (with its file and row, where the sensor reads files).
    fn origin(&self, index: usize) -> Option<Origin> {
        let rows = (0..self.sensors.len())
            .map(|k| self.row(k, index))
            .collect::<Result<Vec<_>>>()
            .ok()?;
        let sensors = (self.sensors.iter().zip(rows))
            .map(|(TraceSensor { name, sensor, .. }, row)| {
                let mut origin = (sensor.storage().and_then(|s| s.origin(row)))
                    .unwrap_or_else(|| SensorOrigin::new(&**name, row));
                origin.sensor = name.to_string();
                origin
            })
            .collect();
        Some(Origin::in_trace(self.name.as_str(), index, sensors))
    }

    /// The most any sensor does ahead.
    fn ahead(&self) -> Ahead {
        (self.sensors.iter())
            .map(|s| Ahead::of(s.sensor.storage()))
            .max()
            .unwrap_or_default()
    }

    /// Each sensor's sample, at its row.
    fn prefetch(&self, index: usize) {
        for (k, s) in self.sensors.iter().enumerate() {
            if let (Ok(row), Some(storage)) = (self.row(k, index), s.sensor.storage()) {
                storage.prefetch(row);
            }
        }
    }

    /// Each sensor's sample, at its row, one after another: a part per
    /// sensor.
    fn fetch(&self, index: usize) -> Result<Fetched> {
        (0..self.sensors.len())
            .map(|part| self.fetch_part(index, part))
            .collect::<Result<Vec<_>>>()
            .map(Fetched::parts)
    }

    /// A read per sensor.
    fn parts(&self, _index: usize) -> usize {
        self.sensors.len().max(1)
    }

    /// Sensor `part`'s sample, at its row; nothing where that is out of
    /// range (the sample's own read then says so).
    fn fetch_part(&self, index: usize, part: usize) -> Result<Fetched> {
        match (self.sensors.get(part), self.row(part, index)) {
            (Some(s), Ok(row)) => match s.sensor.storage() {
                Some(storage) => storage.fetch(row),
                None => Ok(Fetched::Nothing),
            },
            _ => Ok(Fetched::Nothing),
        }
    }
}

/// [`ValueTrace`]s one after another, as one [`Dataset`] of [`Value`]s.
///
/// ```
/// use std::sync::Arc;
/// use adl_core::{Dataset, Result};
/// use adl_value::{TraceSensor, Value, ValueSensor, ValueTrace, ValueTraces, AnyArray};
///
/// struct Counter(usize);
/// impl ValueSensor for Counter {
///     fn len(&self) -> usize { self.0 }
///     fn value(&self, i: usize) -> Result<Value> {
///         Ok(Value::Array(AnyArray::I64(ndarray::arr0(i as i64).into_dyn())))
///     }
/// }
/// let trace = |name: &str, len| ValueTrace::new(name, vec![TraceSensor {
///     name: Arc::from("count"), sensor: Box::new(Counter(len)), rows: None,
/// }]);
/// let dataset = ValueTraces::new(vec![trace("a", 2)?, trace("b", 3)?]);
/// assert_eq!(dataset.len(), 5);
/// assert!(dataset.get(5).is_err());
/// # Ok::<(), adl_core::Error>(())
/// ```
pub struct ValueTraces {
    traces: Vec<ValueTrace>,
    /// Each trace's end as a global index.
    ends: Vec<usize>,
}

impl ValueTraces {
    /// `traces`, one after another.
    pub fn new(traces: Vec<ValueTrace>) -> Self {
        let ends = (traces.iter())
            .scan(0usize, |total, t| {
                *total += t.len();
                Some(*total)
            })
            .collect();
        ValueTraces { traces, ends }
    }

    /// The traces.
    pub fn traces(&self) -> &[ValueTrace] {
        &self.traces
    }

    /// The trace holding sample `index`, and the sample's index there.
    fn locate(&self, index: usize) -> Result<(usize, usize)> {
        let total = self.len();
        if index >= total {
            return Err(Error::out_of_range("the dataset", index, total));
        }
        let trace = self.ends.partition_point(|&end| end <= index);
        let start = if trace > 0 { self.ends[trace - 1] } else { 0 };
        Ok((trace, index - start))
    }
}

impl Dataset for ValueTraces {
    type Sample = Value;

    fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    fn get(&self, index: usize) -> Result<Value> {
        self.get_fetched(index, Fetched::Nothing)
    }

    /// Sample `index`, with what its trace's storage read ahead for it.
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Value> {
        let (trace, local) = self.locate(index)?;
        self.traces[trace].value_fetched(local, fetched)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// Sample `i`'s reads: its trace's, at its index there.
impl Route for ValueTraces {
    type Origin = Origin;

    fn route(&self, index: usize) -> Routes<'_, Origin> {
        match self.locate(index) {
            Ok((trace, local)) => Routes::One(&self.traces[trace], local),
            Err(_) => Routes::None,
        }
    }

    fn ahead(&self) -> Ahead {
        (self.traces.iter())
            .map(Storage::ahead)
            .max()
            .unwrap_or_default()
    }
}

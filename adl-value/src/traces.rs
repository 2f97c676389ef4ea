//! [`ValueTraces`]: traces of sensors whose samples are [`Value`]s, one
//! after another, as one dataset: what a loader with an `adl.Pipeline`
//! reads, in Rust, when its dataset is adl's own (an `adl.Dataset` of
//! `adl.Trace`s of adl's sensors).

use std::sync::Arc;

use adl_core::{Dataset, Error, Result};

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
        let mut items = Vec::with_capacity(self.sensors.len());
        for TraceSensor { name, sensor, rows } in &self.sensors {
            let row = match rows {
                Some(rows) => *rows.get(index).ok_or_else(|| {
                    Error::out_of_range(format_args!("trace `{}`", self.name), index, self.len)
                })?,
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
}

impl Dataset for ValueTraces {
    type Sample = Value;

    fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    fn get(&self, index: usize) -> Result<Value> {
        let total = self.len();
        if index >= total {
            return Err(Error::out_of_range("the dataset", index, total));
        }
        let trace = self.ends.partition_point(|&end| end <= index);
        let start = if trace > 0 { self.ends[trace - 1] } else { 0 };
        self.traces[trace].value(index - start)
    }
}

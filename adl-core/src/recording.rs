//! [`Recording`]: the ready-made [`Trace`].

use std::sync::Arc;

use crate::{Dataset, Error, Indices, Metadata, Record, Result, Sensor, Synchronization, Trace};

/// A trace: named sensors of one recording session, synchronized once when
/// the recording is built.
///
/// Global sample `i` is the [`Record`] of every sensor's synchronized sample,
/// `{s: sensor_s[indices[s][i]]}`, in the order the sensors were given.
/// Three ways to build one, as in the reference's `abstract.Trace`:
/// - [`Recording::new`] with a [`Synchronization`] policy, evaluated once;
/// - [`Recording::with_indices`] with index arrays computed elsewhere;
/// - [`Recording::aligned`] for sensors that are already aligned sample by
///   sample (no synchronization).
///
/// Sensors of different types go in one recording as boxed trait objects
/// (`Box<dyn Sensor<Sample = T, Metadata = M>>`) or as an enum.
///
/// ```
/// use adl_core::{Dataset, Recording, Series, Timestamps, Trace, sync::Next};
///
/// let s = |n: &str, t: Vec<f64>| Series::new(n, Timestamps::new(n, t).unwrap(), |i| Ok(i));
/// let trace = Recording::new(
///     "run-7",
///     vec![s("lidar", vec![0.0, 0.1, 0.2, 0.3]), s("radar", vec![0.05, 0.15, 0.25])],
///     &Next::new("radar"),
/// )?;
/// assert_eq!(trace.len(), 3); // the window [0.05, 0.25] is inclusive
/// assert_eq!(trace.get(0)?.values(), &[1, 0]);
/// assert_eq!(trace.sensor("radar")?.name(), "radar");
/// # use adl_core::Sensor;
/// # Ok::<(), adl_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Recording<S> {
    name: String,
    names: Arc<[String]>,
    sensors: Vec<S>,
    indices: Option<Indices>,
}

impl<S: Sensor> Recording<S> {
    /// Synchronize `sensors` with `sync` and keep the result.
    ///
    /// Fails if two sensors share a name or if the policy fails (bad
    /// timestamps, a missing reference sensor, ...).
    pub fn new(
        name: impl Into<String>,
        sensors: Vec<S>,
        sync: &impl Synchronization,
    ) -> Result<Self> {
        let names = unique_names(&sensors)?;
        let timestamps: Vec<(&str, &[f64])> = sensors
            .iter()
            .map(|s| (s.name(), s.metadata().timestamps()))
            .collect();
        let indices = sync.synchronize(&timestamps)?;
        Self::checked(name.into(), names, sensors, Some(indices))
    }

    /// Use index arrays computed elsewhere: one per sensor, in the sensors'
    /// order, every index in range.
    pub fn with_indices(
        name: impl Into<String>,
        sensors: Vec<S>,
        indices: Indices,
    ) -> Result<Self> {
        let names = unique_names(&sensors)?;
        Self::checked(name.into(), names, sensors, Some(indices))
    }

    /// Sensors already aligned sample by sample: global sample `i` reads
    /// sample `i` of every sensor. All sensors must have the same length.
    pub fn aligned(name: impl Into<String>, sensors: Vec<S>) -> Result<Self> {
        let names = unique_names(&sensors)?;
        if let Some(first) = sensors.first()
            && let Some(other) = sensors.iter().find(|s| s.len() != first.len())
        {
            return Err(Error::BadIndices {
                reason: format!(
                    "aligned sensors must have equal lengths, but `{}` has {} samples and `{}` has {}",
                    first.name(),
                    first.len(),
                    other.name(),
                    other.len()
                ),
            });
        }
        Ok(Recording {
            name: name.into(),
            names,
            sensors,
            indices: None,
        })
    }

    fn checked(
        name: String,
        names: Arc<[String]>,
        sensors: Vec<S>,
        indices: Option<Indices>,
    ) -> Result<Self> {
        if let Some(indices) = &indices {
            let lens: Vec<(&str, usize)> = sensors.iter().map(|s| (s.name(), s.len())).collect();
            indices.check_fits(&lens)?;
        }
        Ok(Recording {
            name,
            names,
            sensors,
            indices,
        })
    }

    /// The recording's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The synchronized index arrays; `None` for an [aligned](Recording::aligned)
    /// recording.
    pub fn indices(&self) -> Option<&Indices> {
        self.indices.as_ref()
    }

    /// The sensors, in order.
    pub fn sensors(&self) -> &[S] {
        &self.sensors
    }

    /// The index that global sample `index` reads from every sensor, in
    /// sensor order.
    pub fn sensor_indices(&self, index: usize) -> Result<Vec<usize>> {
        let len = self.len();
        if index >= len {
            return Err(Error::out_of_range(
                format!("trace `{}`", self.name),
                index,
                len,
            ));
        }
        Ok(match &self.indices {
            Some(indices) => indices
                .columns()
                .iter()
                .map(|c| c[index] as usize)
                .collect(),
            None => vec![index; self.sensors.len()],
        })
    }
}

fn unique_names<S: Sensor>(sensors: &[S]) -> Result<Arc<[String]>> {
    let mut names: Vec<String> = Vec::with_capacity(sensors.len());
    for s in sensors {
        if names.iter().any(|n| n == s.name()) {
            return Err(Error::DuplicateSensor {
                name: s.name().to_owned(),
            });
        }
        names.push(s.name().to_owned());
    }
    Ok(names.into())
}

impl<S: Sensor> Dataset for Recording<S> {
    type Sample = Record<S::Sample>;

    fn len(&self) -> usize {
        match &self.indices {
            Some(indices) => indices.len(),
            None => self.sensors.first().map_or(0, Sensor::len),
        }
    }

    fn get(&self, index: usize) -> Result<Self::Sample> {
        let rows = self.sensor_indices(index)?;
        let values = self
            .sensors
            .iter()
            .zip(rows)
            .map(|(sensor, row)| sensor.get(row))
            .collect::<Result<Vec<_>>>()?;
        Ok(Record::from_parts(self.names.clone(), values))
    }
}

impl<S: Sensor> Trace for Recording<S> {
    type Sensor = S;

    fn sensor(&self, name: &str) -> Result<&S> {
        self.sensors
            .iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| Error::UnknownSensor {
                role: "requested",
                name: name.to_owned(),
                available: self.names.to_vec(),
            })
    }

    fn sensor_names(&self) -> Vec<&str> {
        self.names.iter().map(String::as_str).collect()
    }
}

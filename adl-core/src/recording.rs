//! [`Recording`]: the ready-made [`Trace`].

use std::sync::Arc;

use crate::storage::{Ahead, Fetched, Storage};
use crate::{
    AsAnySensor, Dataset, Error, Indices, Origin, Result, SensorOrigin, SensorSet, Synchronization,
    Trace,
};

/// A trace: named sensors of one recording session, synchronized once when
/// the recording is built.
///
/// The sensors are a [`SensorSet`]: a `Vec` of sensors of one type (a
/// sample is the [`Record`](crate::Record) of every sensor's synchronized
/// sample, `{s: sensor_s[indices[s][i]]}`, in the order given), a tuple of
/// sensors of any types (a sample is the tuple of their samples), or a
/// struct with `#[derive(SensorSet)]` (a sample is a generated struct with
/// one field per sensor).
/// Three ways to build one, as in the reference's `abstract.Trace`:
/// - [`Recording::new`] with a [`Synchronization`] policy, evaluated once;
/// - [`Recording::with_indices`] with index arrays computed elsewhere;
/// - [`Recording::aligned`] for sensors that are already aligned sample by
///   sample (no synchronization).
///
/// Sensors of different types need no boxing: put them in a tuple or a
/// derived struct. (Where sensors are chosen at run time, a `Vec` of
/// [`BoxedSensor`](crate::BoxedSensor)s from
/// [`Sensor::boxed`](crate::Sensor::boxed) holds any of one sample type.)
///
/// ```
/// use adl::{Dataset, Recording, Sensor, Series, Timestamps, Trace, sync::Next};
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
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct Recording<S> {
    name: String,
    names: Arc<[String]>,
    sensors: S,
    indices: Option<Indices>,
    /// The number of synchronized samples, computed once.
    len: usize,
    /// How the sensors were synchronized: the policy's type name, or how
    /// the indices were given (for [`Origin::sync`]).
    sync: String,
}

impl<S: SensorSet> Recording<S> {
    /// Synchronize `sensors` with `sync` and keep the result.
    ///
    /// Fails if two sensors share a name or if the policy fails (bad
    /// timestamps, a missing reference sensor, ...).
    pub fn new(name: impl Into<String>, sensors: S, sync: &impl Synchronization) -> Result<Self> {
        let names = unique_names(&sensors)?;
        let indices = sync.synchronize(&sensors.timestamps())?;
        Self::checked(name.into(), names, sensors, indices, policy_name(sync))
    }

    /// Use index arrays computed elsewhere: one per sensor, in the sensors'
    /// order, every index in range.
    pub fn with_indices(name: impl Into<String>, sensors: S, indices: Indices) -> Result<Self> {
        let names = unique_names(&sensors)?;
        Self::checked(
            name.into(),
            names,
            sensors,
            indices,
            "given indices".to_owned(),
        )
    }

    /// Sensors already aligned sample by sample: global sample `i` reads
    /// sample `i` of every sensor. All sensors must have the same length.
    pub fn aligned(name: impl Into<String>, sensors: S) -> Result<Self> {
        let names = unique_names(&sensors)?;
        let lens = sensors.lens();
        if let Some(&first) = lens.first()
            && let Some(other) = lens.iter().position(|&len| len != first)
        {
            return Err(Error::BadIndices {
                reason: format!(
                    "aligned sensors must have equal lengths, but `{}` has {} samples and `{}` has {}",
                    names[0], first, names[other], lens[other]
                ),
            });
        }
        Ok(Recording {
            name: name.into(),
            names,
            sensors,
            indices: None,
            len: lens.first().copied().unwrap_or(0),
            sync: "aligned".to_owned(),
        })
    }

    fn checked(
        name: String,
        names: Arc<[String]>,
        sensors: S,
        indices: Indices,
        sync: String,
    ) -> Result<Self> {
        let lens: Vec<(&str, usize)> = names
            .iter()
            .map(String::as_str)
            .zip(sensors.lens())
            .collect();
        indices.check_fits(&lens)?;
        Ok(Recording {
            name,
            names,
            sensors,
            len: indices.len(),
            indices: Some(indices),
            sync,
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

    /// The sensors, as given: typed access to each (`trace.sensors().radar`
    /// for a derived set, `.0` for a tuple, `[k]` for a `Vec`).
    pub fn sensors(&self) -> &S {
        &self.sensors
    }

    /// Give the sensors back.
    pub fn into_sensors(self) -> S {
        self.sensors
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
            None => vec![index; self.names.len()],
        })
    }
}

fn unique_names<S: SensorSet>(sensors: &S) -> Result<Arc<[String]>> {
    let mut names: Vec<String> = Vec::new();
    for name in sensors.names() {
        if names.iter().any(|n| n == name) {
            return Err(Error::DuplicateSensor {
                name: name.to_owned(),
            });
        }
        names.push(name.to_owned());
    }
    Ok(names.into())
}

impl<S: SensorSet> Dataset for Recording<S> {
    type Sample = S::Sample;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Result<Self::Sample> {
        let rows = self.sensor_indices(index)?;
        self.sensors.read(&rows, &self.names, Vec::new())
    }

    /// Each sensor's sample at its row, with its part of `fetched`.
    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Self::Sample> {
        let rows = self.sensor_indices(index)?;
        let parts = match fetched {
            // Nothing read ahead: no part for any sensor.
            Fetched::Nothing => Vec::new(),
            read => read.split(self.names.len()).collect(),
        };
        self.sensors.read(&rows, &self.names, parts)
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
        Some(self)
    }
}

/// A recording is stored where its sensors' samples at their synchronized
/// rows are, one part per sensor, so that a read stage reads them at once.
impl<S: SensorSet> Storage for Recording<S> {
    type Origin = Origin;

    /// The recording's name, `index`, and each sensor's sample (with its
    /// file and row, for a file-backed sensor).
    fn origin(&self, index: usize) -> Option<Origin> {
        let rows = self.sensor_indices(index).ok()?;
        let sensors = self
            .names
            .iter()
            .zip(rows)
            .map(|(name, row)| match self.sensors.sensor(name) {
                Some(sensor) => sensor.as_any_sensor().origin(row),
                None => SensorOrigin::new(name.as_str(), row),
            })
            .collect();
        Some(
            Origin::in_trace(self.name.as_str(), index, sensors)
                .synchronized_by(self.sync.as_str()),
        )
    }

    /// The most any sensor does ahead.
    fn ahead(&self) -> Ahead {
        (self.names.iter())
            .map(|name| Ahead::of(self.sensor_storage(name)))
            .max()
            .unwrap_or_default()
    }

    /// Each sensor's sample, at its row.
    fn prefetch(&self, index: usize) {
        if let Ok(rows) = self.sensor_indices(index) {
            for (name, row) in self.names.iter().zip(rows) {
                if let Some(storage) = self.sensor_storage(name) {
                    storage.prefetch(row);
                }
            }
        }
    }
    /// Each sensor's sample, at its row, one after another: a part per
    /// sensor.
    fn fetch(&self, index: usize) -> Result<Fetched> {
        (0..self.names.len())
            .map(|part| self.fetch_part(index, part))
            .collect::<Result<Vec<_>>>()
            .map(Fetched::parts)
    }

    /// A read per sensor.
    fn parts(&self, _index: usize) -> usize {
        self.names.len().max(1)
    }

    /// Sensor `part`'s sample, at its row.
    fn fetch_part(&self, index: usize, part: usize) -> Result<Fetched> {
        let rows = self.sensor_indices(index)?;
        match (self.names.get(part), rows.get(part)) {
            (Some(name), Some(&row)) => match self.sensor_storage(name) {
                Some(reader) => reader.fetch(row),
                None => Ok(Fetched::Nothing),
            },
            _ => Ok(Fetched::Nothing),
        }
    }
}

impl<S: SensorSet> Recording<S> {
    /// Its synchronization, to draw ([`SyncPicture`](crate::sync::SyncPicture)):
    /// each sensor's timestamps on one time axis, `reference`'s first,
    /// each sample's match from its reference stamp to every other
    /// sensor's, those further apart than `tolerance` (the policy's, for
    /// [`Nearest`](crate::sync::Nearest)) marked, the reference stamps no
    /// sample reads crossed out. An aligned recording (no indices) reads
    /// row `k` of every sensor as sample `k`.
    ///
    /// ```
    /// use adl::sync::Nearest;
    /// use adl::{Recording, Series, Timestamps};
    ///
    /// let s = |n: &str, t: Vec<f64>| Series::new(n, Timestamps::new(n, t).unwrap(), |i| Ok(i));
    /// let camera = s("camera", vec![0.0, 0.1, 0.2]);
    /// let imu = s("imu", vec![0.0, 0.05, 0.1, 0.15, 0.2]);
    /// let sync = Nearest::new("camera", 0.01)?;
    /// let trace = Recording::new("drive", vec![camera, imu], &sync)?;
    /// let svg = trace.sync_picture("camera", Some(sync.tolerance()))?.to_svg();
    /// assert_eq!(svg.matches("class=\"match\"").count(), 3);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn sync_picture(
        &self,
        reference: &str,
        tolerance: Option<f64>,
    ) -> Result<crate::sync::SyncPicture> {
        let timestamps: Vec<(String, Vec<f64>)> = self
            .sensors
            .timestamps()
            .into_iter()
            .map(|(name, stamps)| (name.to_owned(), stamps.to_vec()))
            .collect();
        let indices = match &self.indices {
            Some(indices) => indices.clone(),
            None => Indices::new(
                timestamps
                    .iter()
                    .map(|(name, _)| (name.clone(), (0..self.len as u32).collect()))
                    .collect(),
            )?,
        };
        crate::sync::SyncPicture::new(&self.name, timestamps, &indices, reference, tolerance)
    }

    /// The storage of sensor `name`, where it has one.
    fn sensor_storage(&self, name: &str) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        self.sensors.sensor(name)?.as_any_sensor().storage()
    }
}

impl<S: SensorSet> Trace for Recording<S> {
    type Sensor<'a>
        = S::Sensor<'a>
    where
        S: 'a;

    fn sensor(&self, name: &str) -> Result<&S::Sensor<'_>> {
        self.sensors
            .sensor(name)
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

/// A synchronization policy's name: its type's, without its path or
/// parameters (`Nearest`).
fn policy_name<Y: Synchronization + ?Sized>(_: &Y) -> String {
    crate::description::type_name::short_type_name(std::any::type_name::<Y>())
}

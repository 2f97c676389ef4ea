//! `adl.Trace`: abstract-dataloader 0.4.7's `abstract.Trace`, a trace of
//! simultaneously recording sensors (Python sensors or adl's), its samples
//! synchronized by a policy, by indices given, or not at all.

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString};

use crate::errors::add_note;

/// The first value of `mapping` (the reference's `list(m.values())[0]`).
fn first<'py>(mapping: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let values = mapping.cast::<PyMapping>()?.values()?;
    if values.is_empty() {
        return Err(PyIndexError::new_err("list index out of range"));
    }
    values.get_item(0)
}

/// A trace: `sensors` (a mapping of names to sensors, each with
/// `metadata.timestamps`, `__getitem__` and `__len__`), and how a global
/// index maps to each sensor's: `sync` a policy (called once, with every
/// sensor's timestamps), a mapping of index arrays used as they are, or
/// `None` (the sensors are already synchronous: sample `i` of each).
///
/// `trace[i]` is `{name: sensor[indices[name][i]]}` in the sensors' order;
/// `trace["name"]` is the sensor.
#[pyclass(module = "adl", subclass)]
pub(crate) struct Trace {
    /// The sensors, as given.
    #[pyo3(get)]
    sensors: Py<PyAny>,
    /// The trace's name, for messages and inspection.
    #[pyo3(get)]
    name: String,
    /// `None`, the mapping given, or the policy's result.
    #[pyo3(get)]
    indices: Py<PyAny>,
    /// The policy that made `indices`, where one did (for
    /// [`draw_sync`](Trace::draw_sync)'s reference and tolerance).
    sync: Py<PyAny>,
}

impl Trace {
    /// The sensors, as given.
    pub(crate) fn sensors<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.sensors.bind(py).clone()
    }

    /// `None`, the index mapping given, or the policy's result.
    pub(crate) fn indices<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.indices.bind(py).clone()
    }

    /// The trace's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// A note on `error`, raised by sensor `sensor` reading the trace's
    /// sample `index` (its own sample `row` where synchronized): the
    /// trace and the sensor, which the sensor's own message cannot know.
    fn note_sensor_error(
        &self,
        py: Python<'_>,
        error: &PyErr,
        sensor: &Bound<'_, PyAny>,
        index: &Bound<'_, PyAny>,
        row: Option<&Bound<'_, PyAny>>,
    ) {
        let sensor = sensor.str().map_or_else(|_| "?".into(), |s| s.to_string());
        let index = index.str().map_or_else(|_| "?".into(), |s| s.to_string());
        let own = row
            .and_then(|row| row.str().ok())
            .map(|row| format!(" (the sensor's sample {row})"))
            .unwrap_or_default();
        let note = format!(
            "adl: reading sensor {sensor:?} of trace {:?}, the trace's sample {index}{own}",
            self.name
        );
        add_note(py, error, &note);
    }
}

#[pymethods]
impl Trace {
    #[new]
    // The default as Python writes it: PyO3 shows a Rust expression's as `...`.
    #[pyo3(
        signature = (sensors, sync = None, name = "trace".to_string()),
        text_signature = "(sensors, sync=None, name=\"trace\")"
    )]
    fn new(
        py: Python<'_>,
        sensors: Bound<'_, PyAny>,
        sync: Option<Bound<'_, PyAny>>,
        name: String,
    ) -> PyResult<Self> {
        let mut policy_given = py.None();
        let indices = match sync {
            None => py.None(),
            Some(given) if given.cast::<PyMapping>().is_ok() => given.unbind(),
            Some(policy) => {
                policy_given = policy.clone().unbind();
                let timestamps = PyDict::new(py);
                for item in sensors.cast::<PyMapping>()?.items()?.iter() {
                    let (name, sensor): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
                    timestamps
                        .set_item(name, sensor.getattr("metadata")?.getattr("timestamps")?)?;
                }
                policy
                    .call1((timestamps,))
                    .inspect_err(|e| {
                        add_note(
                            py,
                            e,
                            &format!("adl: synchronizing the sensors of trace {name:?}"),
                        );
                    })?
                    .unbind()
            }
        };
        Ok(Trace {
            sensors: sensors.unbind(),
            name,
            indices,
            sync: policy_given,
        })
    }

    /// Pickled by what it is made of (see `adl._pickle`): its class
    /// called with its sensors, its indices (as a mapping, used as they
    /// are: the policy is not run again) and its name. A subclass whose
    /// constructor takes other arguments defines its own `__reduce__`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let sync = this.indices.clone_ref(py);
        let made = crate::made_from::MadeFrom::method(
            slf.get_type().into_any(),
            None,
            (this.sensors.clone_ref(py), sync, this.name.clone()),
            pyo3::types::PyDict::new(py),
        )?;
        made.reduce(py)
    }

    /// Sample `index` (an int or a numpy integer): each sensor's sample at
    /// its synchronized index; or the sensor named `index` (a str).
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let sensors = self.sensors.bind(py);
        if index.is_instance_of::<PyString>() {
            return sensors.get_item(index);
        }
        let sample = PyDict::new(py);
        let indices = self.indices.bind(py);
        for item in sensors.cast::<PyMapping>()?.items()?.iter() {
            let (name, sensor): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let value = if indices.is_none() {
                sensor.get_item(index).inspect_err(|e| {
                    self.note_sensor_error(py, e, &name, index, None);
                })?
            } else {
                let row = indices
                    .get_item(&name)?
                    .get_item(index)?
                    .call_method0("item")?;
                sensor.get_item(&row).inspect_err(|e| {
                    self.note_sensor_error(py, e, &name, index, Some(&row));
                })?
            };
            sample.set_item(name, value)?;
        }
        Ok(sample.into_any())
    }

    /// The number of synchronized samples: the first sensor's length when
    /// the sensors are synchronous already.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let indices = self.indices.bind(py);
        if indices.is_none() {
            first(self.sensors.bind(py))?.len()
        } else {
            first(indices)?.getattr("shape")?.get_item(0)?.extract()
        }
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        let this = slf.borrow();
        let names: Vec<String> = this
            .sensors
            .bind(py)
            .cast::<PyMapping>()?
            .keys()?
            .iter()
            .map(|k| k.str().map(|s| s.to_string()))
            .collect::<PyResult<_>>()?;
        let class = slf.get_type().name()?.to_string();
        Ok(format!(
            "{class}({}, {}x[{}])",
            this.name,
            slf.len()?,
            names.join(", ")
        ))
    }

    /// The synchronization drawn as SVG (returned, and written to `path`
    /// where given): each sensor's timestamps on one time axis, the
    /// reference's first; each sample's match from its reference stamp to
    /// every other sensor's, green, or red beyond `tolerance`; the
    /// reference stamps no sample reads crossed out. An `adl.Interpolated`
    /// sensor shows the stamps it interpolates: each sample's time a line
    /// to the stamp it is at, two dashed ones to those it is interpolated
    /// between, or, masked, an orange diamond. `reference` and
    /// `tolerance` default to the policy's (`generic.Nearest`'s
    /// `reference` and `tol`), else the first sensor and none.
    #[pyo3(signature = (path = None, *, reference = None, tolerance = None))]
    fn draw_sync(
        &self,
        py: Python<'_>,
        path: Option<std::path::PathBuf>,
        reference: Option<String>,
        tolerance: Option<f64>,
    ) -> PyResult<String> {
        let sensors = self.sensors.bind(py).cast::<PyMapping>()?.clone();
        let numpy = py.import("numpy")?;
        let mut timestamps = Vec::new();
        let mut interpolated = Vec::new();
        for item in sensors.items()?.iter() {
            let (name, sensor): (String, Bound<'_, PyAny>) = item.extract()?;
            if let Ok(sensor) = sensor.cast::<crate::interpolated::Interpolated>() {
                interpolated.push((name.clone(), sensor.get().picture_parts()));
            }
            let stamps = sensor.getattr("metadata")?.getattr("timestamps")?;
            let stamps = crate::timestamps::Inputs::read_one(&name, &stamps)?;
            timestamps.push((name, stamps));
        }
        let policy = self.sync.bind(py);
        let reference = match reference {
            Some(given) => given,
            None if policy.hasattr("reference")? => policy.getattr("reference")?.extract()?,
            None => timestamps
                .first()
                .map(|(n, _)| n.clone())
                .unwrap_or_default(),
        };
        let tolerance = match tolerance {
            Some(given) => Some(given),
            None if policy.hasattr("tol")? => Some(policy.getattr("tol")?.extract()?),
            None => None,
        };
        let given = self.indices.bind(py);
        let columns: Vec<(String, Vec<u32>)> = if given.is_none() {
            let len = timestamps.first().map_or(0, |(_, s)| s.len());
            timestamps
                .iter()
                .map(|(name, _)| (name.clone(), (0..len as u32).collect()))
                .collect()
        } else {
            let mut columns = Vec::new();
            for (name, _) in &timestamps {
                let column: Vec<u32> = numpy
                    .call_method1("asarray", (given.get_item(name)?, "uint32"))?
                    .call_method0("tolist")?
                    .extract()?;
                columns.push((name.clone(), column));
            }
            columns
        };
        let picture = adl_core::Indices::new(columns)
            .and_then(|indices| {
                let mut picture = adl_core::sync::SyncPicture::new(
                    &self.name, timestamps, &indices, &reference, tolerance,
                )?;
                for (name, (stamps, made_from)) in interpolated {
                    if name != reference {
                        picture = picture.interpolated(&name, stamps, made_from)?;
                    }
                }
                Ok(picture)
            })
            .map_err(crate::errors::to_python)?;
        let svg = picture.to_svg();
        if let Some(path) = path {
            std::fs::write(&path, &svg).map_err(|e| {
                pyo3::exceptions::PyOSError::new_err(format!(
                    "cannot write the picture of trace {:?} to {}: {e}",
                    self.name,
                    path.display()
                ))
            })?;
        }
        Ok(svg)
    }

    /// The sensors (the trace's children in a tree of components).
    fn children<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.sensors.bind(py).cast::<PyMapping>()?.values()
    }
}

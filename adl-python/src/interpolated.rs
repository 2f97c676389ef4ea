//! `adl.Interpolated`: a Python sensor evaluated at other times (another
//! sensor's), by adl-core's [`adl_core::Interpolated`]: numbers and
//! numeric arrays linearly (as NumPy's `interp`), the quaternions named by
//! `slerp` by spherical linear interpolation (as SciPy's `Slerp`), never
//! extrapolated; a time it cannot interpolate at masked or refused.

use std::sync::{Arc, Mutex};

use adl_core::collate::Masked;
use adl_core::interpolate::{Interpolate, Quaternion};
use adl_core::{Error, Gaps, Sensor, Timestamps};
use ndarray::ArrayD;
use numpy::{PyArrayDescrMethods, PyArrayDyn, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyTuple};

use crate::errors::{add_note, to_python};
use crate::files::{Metadata, Stream, position};
use crate::timestamps::Inputs;

/// A reading of a Python sensor, as interpolation sees it.
#[derive(Clone)]
enum Reading {
    /// A Python or NumPy number (not a bool): interpolated as a float.
    Number(f64),
    /// A float64 or integer array: interpolated in float64.
    F64(ArrayD<f64>),
    /// A float32 array: interpolated in float64, kept float32.
    F32(ArrayD<f32>),
    /// A quaternion named by `slerp`, and whether it was a dict (ROS's
    /// `{x, y, z, w}`) or an array `[x, y, z, w]`.
    Quaternion(Quaternion, bool),
    /// A dict: each value by its key (shown as the key's `str`).
    Map(Vec<(String, Kept, Reading)>),
    /// A list (or a tuple, where the flag says): element by element.
    Sequence(Vec<Reading>, bool),
    /// Anything else (a str, a bool, None, an array of another dtype):
    /// the nearer sample's.
    Kept(Kept),
}

/// A Python object held by a reading, shared without the GIL.
#[derive(Clone)]
struct Kept(Arc<Py<PyAny>>);

impl Reading {
    /// The reading of `value`, at key path `path` of the sample (dotted),
    /// quaternions where `slerp` names the path.
    fn read(value: &Bound<'_, PyAny>, path: &str, slerp: &[String]) -> PyResult<Reading> {
        if slerp.iter().any(|s| s == path) {
            return quaternion(value, path);
        }
        if value.is_instance_of::<PyBool>() {
            return Ok(Reading::kept(value));
        }
        if value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyInt>() {
            return Ok(Reading::Number(value.extract()?));
        }
        if let Ok(array) = value.cast::<PyUntypedArray>() {
            let dtype = array.dtype();
            let kind = dtype.kind();
            return Ok(match (kind, dtype.itemsize()) {
                (b'f', 4) => Reading::F32(
                    value
                        .extract::<numpy::PyReadonlyArrayDyn<'_, f32>>()?
                        .as_array()
                        .to_owned(),
                ),
                (b'f', _) | (b'i', _) | (b'u', _) => {
                    let as_f64 = array.call_method1("astype", ("float64",))?;
                    Reading::F64(
                        as_f64
                            .extract::<numpy::PyReadonlyArrayDyn<'_, f64>>()?
                            .as_array()
                            .to_owned(),
                    )
                }
                _ => Reading::kept(value),
            });
        }
        // A NumPy scalar (`np.float32(1.5)`, `np.int64(3)`).
        if value.hasattr("dtype")? && value.hasattr("item")? {
            let item = value.call_method0("item")?;
            if !item.is_instance_of::<PyBool>()
                && (item.is_instance_of::<PyFloat>() || item.is_instance_of::<PyInt>())
            {
                return Ok(Reading::Number(item.extract()?));
            }
            return Ok(Reading::kept(value));
        }
        if let Ok(dict) = value.cast::<PyDict>() {
            let mut fields = Vec::with_capacity(dict.len());
            for (key, item) in dict.iter() {
                let name = key.str()?.to_string();
                let at = match path {
                    "" => name.clone(),
                    path => format!("{path}.{name}"),
                };
                fields.push((
                    name,
                    Kept(Arc::new(key.unbind())),
                    Reading::read(&item, &at, slerp)?,
                ));
            }
            return Ok(Reading::Map(fields));
        }
        let tuple = value.is_instance_of::<PyTuple>();
        if tuple || value.is_instance_of::<PyList>() {
            let mut items = Vec::new();
            for (k, item) in value.try_iter()?.enumerate() {
                let at = match path {
                    "" => k.to_string(),
                    path => format!("{path}.{k}"),
                };
                items.push(Reading::read(&item?, &at, slerp)?);
            }
            return Ok(Reading::Sequence(items, tuple));
        }
        Ok(Reading::kept(value))
    }

    fn kept(value: &Bound<'_, PyAny>) -> Reading {
        Reading::Kept(Kept(Arc::new(value.clone().unbind())))
    }

    /// The reading as Python data.
    fn to_python<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Reading::Number(x) => PyFloat::new(py, *x).into_any(),
            Reading::F64(a) => PyArrayDyn::from_owned_array(py, a.clone()).into_any(),
            Reading::F32(a) => PyArrayDyn::from_owned_array(py, a.clone()).into_any(),
            Reading::Quaternion(q, true) => {
                let dict = PyDict::new(py);
                for (name, part) in ["x", "y", "z", "w"].into_iter().zip(q.to_array()) {
                    dict.set_item(name, part)?;
                }
                dict.into_any()
            }
            Reading::Quaternion(q, false) => {
                numpy::PyArray1::from_slice(py, &q.to_array()).into_any()
            }
            Reading::Map(fields) => {
                let dict = PyDict::new(py);
                for (_, key, value) in fields {
                    dict.set_item(key.0.bind(py), value.to_python(py)?)?;
                }
                dict.into_any()
            }
            Reading::Sequence(items, tuple) => {
                let items = (items.iter())
                    .map(|r| r.to_python(py))
                    .collect::<PyResult<Vec<_>>>()?;
                match tuple {
                    true => PyTuple::new(py, items)?.into_any(),
                    false => PyList::new(py, items)?.into_any(),
                }
            }
            Reading::Kept(kept) => kept.0.bind(py).clone(),
        })
    }

    /// What the reading is, in words.
    fn kind(&self) -> &'static str {
        match self {
            Reading::Number(_) => "a number",
            Reading::F64(_) | Reading::F32(_) => "a numeric array",
            Reading::Quaternion(..) => "a quaternion",
            Reading::Map(_) => "a dict",
            Reading::Sequence(..) => "a list",
            Reading::Kept(_) => "a value kept as it is",
        }
    }
}

/// The quaternion `value` at `path`: a dict with `x`, `y`, `z` and `w`,
/// or four numbers `[x, y, z, w]` (SciPy's scalar-last order).
fn quaternion(value: &Bound<'_, PyAny>, path: &str) -> PyResult<Reading> {
    let refuse = |why: String| {
        PyValueError::new_err(format!(
            "`{path}`, named in slerp, must be a quaternion (a dict of x, y, z, w, or [x, y, z, w]): {why}"
        ))
    };
    let (parts, dict): ([f64; 4], bool) = match value.cast::<PyDict>() {
        Ok(dict) => {
            let mut parts = [0.0; 4];
            for (part, name) in parts.iter_mut().zip(["x", "y", "z", "w"]) {
                let item =
                    (dict.get_item(name)?).ok_or_else(|| refuse(format!("it has no `{name}`")))?;
                *part = item
                    .extract()
                    .map_err(|e| refuse(format!("its `{name}`: {e}")))?;
            }
            (parts, true)
        }
        Err(_) => {
            let parts: Vec<f64> = numpy::PyArrayLike1::<'_, f64, numpy::AllowTypeChange>::extract(
                value.as_borrowed(),
            )
            .map_err(|e| refuse(e.to_string()))?
            .as_array()
            .to_vec();
            let parts: [f64; 4] = parts
                .try_into()
                .map_err(|p: Vec<f64>| refuse(format!("it has {} values", p.len())))?;
            (parts, false)
        }
    };
    let [x, y, z, w] = parts;
    let q = Quaternion::new(x, y, z, w).map_err(to_python)?;
    Ok(Reading::Quaternion(q, dict))
}

impl Interpolate for Reading {
    /// Part by part: numbers and arrays linearly, quaternions by slerp,
    /// anything else the nearer sample's; readings of different kinds,
    /// keys or lengths are an error naming where.
    fn interpolate(a: &Reading, b: &Reading, w: f64) -> adl_core::Result<Reading> {
        let differ = |why: String| Error::invalid("interpolated readings", why);
        Ok(match (a, b) {
            (Reading::Number(a), Reading::Number(b)) => Reading::Number(f64::interpolate(a, b, w)?),
            (Reading::F64(a), Reading::F64(b)) => Reading::F64(ArrayD::interpolate(a, b, w)?),
            (Reading::F32(a), Reading::F32(b)) => Reading::F32(ArrayD::interpolate(a, b, w)?),
            (Reading::Quaternion(a, dict), Reading::Quaternion(b, _)) => {
                Reading::Quaternion(Quaternion::interpolate(a, b, w)?, *dict)
            }
            (Reading::Map(a), Reading::Map(b)) => {
                let names = |m: &[(String, Kept, Reading)]| {
                    m.iter().map(|f| f.0.clone()).collect::<Vec<_>>()
                };
                if names(a) != names(b) {
                    return Err(differ(format!(
                        "a dict of keys {:?}, then one of {:?}",
                        names(a),
                        names(b)
                    )));
                }
                let mut fields = Vec::with_capacity(a.len());
                for ((name, key, a), (_, _, b)) in a.iter().zip(b) {
                    let value = Reading::interpolate(a, b, w).map_err(|e| {
                        Error::invalid(format_args!("key `{name}`"), format!("{e:#}"))
                    })?;
                    fields.push((name.clone(), key.clone(), value));
                }
                Reading::Map(fields)
            }
            (Reading::Sequence(a, tuple), Reading::Sequence(b, _)) => {
                if a.len() != b.len() {
                    return Err(differ(format!(
                        "a list of {}, then one of {}",
                        a.len(),
                        b.len()
                    )));
                }
                let items = a
                    .iter()
                    .zip(b)
                    .enumerate()
                    .map(|(k, (a, b))| {
                        Reading::interpolate(a, b, w)
                            .map_err(|e| Error::invalid(format_args!("item {k}"), format!("{e:#}")))
                    })
                    .collect::<adl_core::Result<Vec<_>>>()?;
                Reading::Sequence(items, *tuple)
            }
            (Reading::Kept(a), Reading::Kept(b)) => {
                Reading::Kept(if w <= 0.5 { a } else { b }.clone())
            }
            (a, b) => {
                return Err(differ(format!(
                    "{}, then {}: cannot interpolate between them",
                    a.kind(),
                    b.kind()
                )));
            }
        })
    }
}

/// A Python sensor seen as adl-core's: its samples read with the GIL, as
/// [`Reading`]s; a Python exception it raises kept to be raised again.
struct PythonSensor {
    name: String,
    sensor: Py<PyAny>,
    timestamps: Timestamps,
    slerp: Vec<String>,
    raised: Mutex<Option<PyErr>>,
}

impl Sensor for PythonSensor {
    type Sample = Reading;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> adl_core::Result<Reading> {
        Python::attach(|py| {
            let read = self
                .sensor
                .bind(py)
                .get_item(index)
                .and_then(|value| Reading::read(&value, "", &self.slerp));
            read.map_err(|e| {
                let message = e.to_string();
                self.raised
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
                Error::read(format_args!("sensor `{}`", self.name), index, message)
            })
        })
    }
}

/// A sensor evaluated at other times, typically another sensor's (the
/// camera's): sample `i` is the sensor interpolated at `times[i]`, as
/// `{"value": ..., "valid": bool}`.
///
/// Numbers and numeric arrays are interpolated linearly (as NumPy's
/// `interp`: integers become floats, float32 arrays stay float32), the
/// quaternions at the key paths named by `slerp` (`"orientation"`, dotted
/// for nested keys; a dict of `x`, `y`, `z`, `w` as ROS messages hold
/// them, or an array `[x, y, z, w]`) by spherical linear interpolation
/// (as SciPy's `Slerp`); dicts, lists and tuples part by part; anything
/// else (strings, bools) is the nearer sample's. A time equal to a
/// sample's is that sample.
///
/// Never extrapolated: a time before the sensor's first sample or after
/// its last, or in a gap between samples longer than `max_gap` seconds,
/// is masked (`gaps="mask"`: `valid` is False and `value` the nearest
/// sample, so that a batch keeps its shape) or refused (`gaps="refuse"`:
/// indexing it raises a `ValueError` naming the sensor, the time and why).
///
/// `times` is an array of seconds or a sensor (its
/// `metadata.timestamps`). In a trace synchronized with
/// `Nearest(reference)` on the sensor whose times these are, its sample
/// `i` is the reference's sample `i`.
#[pyclass(module = "adl", frozen)]
pub(crate) struct Interpolated {
    inner: adl_core::Interpolated<PythonSensor>,
    metadata: Py<Metadata>,
    gaps: Gaps,
    /// What it pickles by.
    made: crate::made_from::MadeFrom,
}

impl Interpolated {
    /// For a trace's synchronization picture: the stamps of the sensor it
    /// interpolates, and what each of its times is made from.
    pub(crate) fn picture_parts(&self) -> (Vec<f64>, Vec<adl_core::InterpolatedFrom>) {
        (
            self.inner.inner().timestamps.as_slice().to_vec(),
            self.inner.made_from(),
        )
    }
}

#[pymethods]
impl Interpolated {
    #[new]
    #[pyo3(signature = (sensor, times, max_gap = f64::INFINITY, gaps = "mask", slerp = Vec::new(), name = None))]
    fn new(
        py: Python<'_>,
        sensor: &Bound<'_, PyAny>,
        times: &Bound<'_, PyAny>,
        max_gap: f64,
        gaps: &str,
        slerp: Vec<String>,
        name: Option<String>,
    ) -> PyResult<Self> {
        let made = crate::made_from::MadeFrom::class::<Interpolated>(
            py,
            (
                sensor.clone(),
                times.clone(),
                max_gap,
                gaps,
                slerp.clone(),
                name.clone(),
            ),
            pyo3::types::PyDict::new(py),
        )?;
        let gaps = match gaps {
            "mask" => Gaps::Mask,
            "refuse" => Gaps::Refuse,
            other => {
                return Err(PyValueError::new_err(format!(
                    "gaps must be \"mask\" or \"refuse\", not {other:?}"
                )));
            }
        };
        let name = match name {
            Some(name) => name,
            None => match sensor.getattr("name").and_then(|n| n.extract::<String>()) {
                Ok(name) => name,
                Err(_) => sensor.get_type().name()?.to_string(),
            },
        };
        let own = timestamps_of(sensor).map_err(|e| {
            PyTypeError::new_err(format!(
                "sensor `{name}` to interpolate must be a sensor (with metadata.timestamps): {e}"
            ))
        })?;
        let times = match timestamps_of(times) {
            Ok(times) => times,
            Err(_) => Inputs::read_one(&format!("{name} (the times to interpolate at)"), times)?,
        };
        let own = Timestamps::new(&name, own).map_err(to_python)?;
        let sensor = PythonSensor {
            name,
            sensor: sensor.clone().unbind(),
            timestamps: own,
            slerp,
            raised: Mutex::new(None),
        };
        let inner = adl_core::Interpolated::new(sensor, &times, max_gap)
            .map_err(to_python)?
            .gaps(gaps);
        let metadata = Metadata::of(py, inner.metadata())?;
        Ok(Interpolated {
            inner,
            metadata,
            gaps,
            made,
        })
    }

    /// Pickled by what it was made from: the sensor (which pickles by its
    /// own), the times and the options (see `adl._pickle`).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The times it is evaluated at (`timestamps`, seconds).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// The sensor interpolated.
    #[getter]
    fn sensor(&self, py: Python<'_>) -> Py<PyAny> {
        self.inner.inner().sensor.clone_ref(py)
    }

    /// The sensor's name, as errors give it.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// The longest gap interpolated across, in seconds.
    #[getter]
    fn max_gap(&self) -> f64 {
        self.inner.max_gap()
    }

    /// `"mask"` or `"refuse"`: what a time it cannot interpolate at gives.
    #[getter]
    fn gaps(&self) -> &'static str {
        match self.gaps {
            Gaps::Mask => "mask",
            Gaps::Refuse => "refuse",
        }
    }

    /// The key paths interpolated as quaternions.
    #[getter]
    fn slerp(&self) -> Vec<String> {
        self.inner.inner().slerp.clone()
    }

    /// How many of its times have a valid interpolation.
    #[getter]
    fn valid(&self) -> usize {
        self.inner.valid()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The sensor at time `index` (negative from the end): `{"value":
    /// ..., "valid": bool}`. An exception the sensor raises is raised as
    /// it is, with a note naming the interpolated time.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyDict>> {
        let at = position(index, self.inner.len(), self.inner.name())?;
        let read = self.inner.get(at);
        let raised = (self.inner.inner().raised.lock())
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let Masked { value, valid } = match (read, raised) {
            (Ok(masked), _) => masked,
            (Err(_), Some(error)) => {
                let time = self.inner.metadata().as_slice()[at];
                add_note(
                    py,
                    &error,
                    &format!(
                        "while interpolating sensor `{}` at {time} s (sample {at})",
                        self.inner.name()
                    ),
                );
                return Err(error);
            }
            // A time it cannot interpolate at, refused; or readings that
            // cannot be mixed (arrays of two shapes).
            (Err(error), None) => return Err(PyValueError::new_err(format!("{error:#}"))),
        };
        let sample = PyDict::new(py);
        sample.set_item("value", value.to_python(py)?)?;
        sample.set_item("valid", valid)?;
        Ok(sample)
    }

    /// Its samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        format!(
            "Interpolated({}, {} times, max_gap={}, gaps={:?})",
            self.inner.name(),
            self.inner.len(),
            self.inner.max_gap(),
            self.gaps()
        )
    }
}

/// The timestamps of `sensor` (its `metadata.timestamps`), as seconds.
fn timestamps_of(sensor: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let timestamps = sensor.getattr("metadata")?.getattr("timestamps")?;
    Inputs::read_one("sensor", &timestamps)
}

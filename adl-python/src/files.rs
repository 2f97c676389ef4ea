//! `adl.files`: adl's file-backed sensors as Python sensors (a name,
//! `metadata.timestamps`, `__getitem__`, `__len__`), each sample read and
//! decoded with the GIL released and handed to Python as a NumPy array
//! that owns adl's buffer (no copy). Any of them can go in an `adl.Trace`
//! or the reference's `abstract.Trace`; under `adl.Loader` their reads and
//! decodes run on the workers at once.

use adl_core::transform::ImageLayout;
use adl_core::{Sensor, Timestamps};
use adl_files::{
    EncodedImages as RustEncodedImages, Images as RustImages, Npy as RustNpy, Table as RustTable,
};
use ndarray::IxDyn;
use numpy::{PyArray1, PyArrayDyn, ToPyArray};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

use crate::made_from::{MadeFrom, kwargs, located};

use crate::errors::to_python;
use crate::native::{AnyArray, Encoded, Value};

/// A sensor's metadata: its timestamps (float64 seconds), as the
/// reference's `generic.Metadata`.
#[pyclass(module = "adl.files", frozen)]
pub(crate) struct Metadata {
    /// The time of every sample, in seconds.
    #[pyo3(get)]
    timestamps: Py<PyArray1<f64>>,
}

impl Metadata {
    pub(crate) fn of(py: Python<'_>, timestamps: &Timestamps) -> PyResult<Py<Metadata>> {
        Py::new(
            py,
            Metadata {
                timestamps: PyArray1::from_slice(py, timestamps.as_slice()).unbind(),
            },
        )
    }
}

/// `index` as a position in `len` samples: a negative index counts from
/// the end, as a Python sequence's.
pub(crate) fn position(index: isize, len: usize, what: &str) -> PyResult<usize> {
    let at = if index < 0 {
        index + len as isize
    } else {
        index
    };
    usize::try_from(at)
        .ok()
        .filter(|&at| at < len)
        .ok_or_else(|| {
            PyIndexError::new_err(format!(
                "index {index} is out of range for sensor `{what}` of {len} samples"
            ))
        })
}

/// A sensor's samples one after another (`sensor.stream()`), or lists of
/// `batch` of them (the last partial one left out), as the reference's
/// `abstract.Sensor.stream`.
#[pyclass(module = "adl.files")]
pub(crate) struct Stream {
    sensor: Py<PyAny>,
    next: usize,
    len: usize,
    batch: Option<usize>,
}

impl Stream {
    pub(crate) fn of(sensor: &Bound<'_, PyAny>, batch: Option<usize>) -> PyResult<Stream> {
        if batch == Some(0) {
            return Err(PyValueError::new_err("a stream's batch is at least 1"));
        }
        Ok(Stream {
            sensor: sensor.clone().unbind(),
            next: 0,
            len: sensor.len()?,
            batch,
        })
    }
}

#[pymethods]
impl Stream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let sensor = self.sensor.bind(py);
        match self.batch {
            None if self.next < self.len => {
                self.next += 1;
                Ok(Some(sensor.get_item(self.next - 1)?.unbind()))
            }
            Some(batch) if self.next + batch <= self.len => {
                let samples = (self.next..self.next + batch)
                    .map(|i| sensor.get_item(i))
                    .collect::<PyResult<Vec<_>>>()?;
                self.next += batch;
                Ok(Some(
                    pyo3::types::PyList::new(py, samples)?.into_any().unbind(),
                ))
            }
            _ => Ok(None),
        }
    }
}

/// Float64 timestamps of sensor `name` from a Python sequence or array.
fn timestamps(name: &str, values: &Bound<'_, PyAny>) -> PyResult<Timestamps> {
    let values: Vec<f64> = crate::timestamps::Inputs::read_one(name, values)?;
    Timestamps::new(name, values).map_err(to_python)
}

/// A camera: JPEG or PNG frames in a folder (or an object store's,
/// feature `store` of the Rust crate), decoded into `uint8` arrays `[H, W,
/// 3]` (`layout="hwc"`) or `[3, H, W]` (`"chw"`), shrunk by `downscale`
/// (1, 2, 4 or 8). Its timestamps are the folder's `ts.npy` or `ts.txt`.
#[pyclass(module = "adl.files", frozen)]
pub(crate) struct Images {
    sensor: RustImages,
    metadata: Py<Metadata>,
    made: MadeFrom,
}

impl Images {
    /// Frame `index` as an `adl.Pipeline`'s value, read without Python, with
    /// what the read stage read ahead for it, where it did.
    pub(crate) fn value_fetched(
        &self,
        index: usize,
        fetched: adl_core::storage::Fetched,
    ) -> adl_core::Result<Value> {
        let frame = self.sensor.get_fetched(index, fetched)?;
        Ok(Value::Array(AnyArray::U8(frame.into_dyn())))
    }

    /// Where its samples are stored, and what it reads ahead (the Rust
    /// sensor's).
    pub(crate) fn storage(
        &self,
    ) -> Option<&dyn adl_core::storage::Storage<Origin = adl_core::SensorOrigin>> {
        self.sensor.storage()
    }

    /// The number of frames.
    pub(crate) fn samples(&self) -> usize {
        self.sensor.len()
    }
}

#[pymethods]
impl Images {
    #[new]
    #[pyo3(signature = (folder, *, layout = "hwc", downscale = 1, strict = true))]
    fn new(
        py: Python<'_>,
        folder: String,
        layout: &str,
        downscale: usize,
        strict: bool,
    ) -> PyResult<Self> {
        let made = MadeFrom::class::<Images>(
            py,
            (located(&folder),),
            kwargs!(py; "layout" => layout, "downscale" => downscale, "strict" => strict),
        )?;
        let layout = match layout {
            "hwc" => ImageLayout::Hwc,
            "chw" => ImageLayout::Chw,
            other => {
                return Err(PyValueError::new_err(format!(
                    "layout is \"hwc\" ([H, W, 3]) or \"chw\" ([3, H, W]), not {other:?}"
                )));
            }
        };
        let sensor = py
            .detach(|| {
                RustImages::in_folder(folder.as_str())
                    .and_then(|s| s.downscale(downscale))
                    .map(|s| s.layout(layout).strict(strict))
            })
            .map_err(to_python)?;
        let metadata = Metadata::of(py, sensor.metadata())?;
        Ok(Images {
            sensor,
            metadata,
            made,
        })
    }

    /// The sensor's name (its folder's).
    #[getter]
    fn name(&self) -> &str {
        self.sensor.name()
    }

    /// The sensor's metadata (`metadata.timestamps`).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// The shape of a sample.
    #[getter]
    fn sample_shape(&self) -> [usize; 3] {
        self.sensor.sample_shape()
    }

    /// The frames' files (paths or URLs), a sample's in its place.
    #[getter]
    fn frames(&self) -> Vec<String> {
        self.sensor
            .frames()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn __len__(&self) -> usize {
        self.sensor.len()
    }

    /// Frame `index`, decoded without the GIL into an array that owns its
    /// buffer.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyAny>> {
        let at = position(index, self.sensor.len(), self.sensor.name())?;
        let frame = py.detach(|| self.sensor.get(at)).map_err(to_python)?;
        Ok(numpy::PyArray3::from_owned_array(py, frame).into_any())
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    /// The same camera, its samples the frames' files read but not
    /// decoded (`EncodedImages`): under an `adl.Pipeline`,
    /// `adl.transforms.RandomResizedCrop` then decodes only the crop, and
    /// `adl.transforms.Decode` the whole frame.
    fn encoded(slf: &Bound<'_, Self>) -> PyResult<EncodedImages> {
        let py = slf.py();
        let this = slf.get();
        Ok(EncodedImages {
            sensor: this.sensor.clone().encoded(),
            metadata: this.metadata.clone_ref(py),
            made: MadeFrom::method(slf.clone().into_any(), Some("encoded"), (), kwargs!(py))?,
        })
    }
    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "Images({}, {} frames of {:?})",
            self.sensor.name(),
            self.sensor.len(),
            self.sensor.sample_shape()
        )
    }
}

/// A camera whose samples are its frames' files, read but not decoded
/// (`Images(...).encoded()`): in Python each sample is the file's bytes;
/// under an `adl.Pipeline`, a frame that `adl.transforms.RandomResizedCrop`
/// decodes only the crop of (where the decoder allows) and
/// `adl.transforms.Decode` decodes whole, as the `Images` it came from
/// would, with its layout and downscale.
#[pyclass(module = "adl.files", frozen)]
pub(crate) struct EncodedImages {
    sensor: RustEncodedImages,
    metadata: Py<Metadata>,
    made: MadeFrom,
}

impl EncodedImages {
    /// Frame `index` as an `adl.Pipeline`'s value, read without Python, with
    /// what the read stage read ahead for it, where it did.
    pub(crate) fn value_fetched(
        &self,
        index: usize,
        fetched: adl_core::storage::Fetched,
    ) -> adl_core::Result<Value> {
        Ok(Value::Encoded(Encoded(
            self.sensor.get_fetched(index, fetched)?,
        )))
    }

    /// Where its samples are stored, and what it reads ahead (the Rust
    /// sensor's).
    pub(crate) fn storage(
        &self,
    ) -> Option<&dyn adl_core::storage::Storage<Origin = adl_core::SensorOrigin>> {
        self.sensor.storage()
    }

    /// The number of frames.
    pub(crate) fn samples(&self) -> usize {
        self.sensor.len()
    }
}

#[pymethods]
impl EncodedImages {
    /// The sensor's name (its folder's).
    #[getter]
    fn name(&self) -> &str {
        self.sensor.images().name()
    }

    /// The sensor's metadata (`metadata.timestamps`).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// The frames' files (paths or URLs), a sample's in its place.
    #[getter]
    fn frames(&self) -> Vec<String> {
        (self.sensor.images().frames().iter())
            .map(ToString::to_string)
            .collect()
    }

    fn __len__(&self) -> usize {
        self.sensor.len()
    }

    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// Frame `index`'s file, its bytes (read without the GIL).
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyAny>> {
        let at = position(index, self.sensor.len(), self.name())?;
        let frame = py.detach(|| self.sensor.get(at)).map_err(to_python)?;
        Ok(pyo3::types::PyBytes::new(py, frame.bytes()).into_any())
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        format!(
            "EncodedImages({}, {} frames)",
            self.name(),
            self.sensor.len()
        )
    }
}

/// An `.npy` array of one element type, its samples the rows of its first
/// axis.
enum AnyNpy {
    F32(RustNpy<f32, IxDyn>),
    F64(RustNpy<f64, IxDyn>),
    U8(RustNpy<u8, IxDyn>),
    I16(RustNpy<i16, IxDyn>),
    U16(RustNpy<u16, IxDyn>),
    I32(RustNpy<i32, IxDyn>),
    I64(RustNpy<i64, IxDyn>),
}

/// `$body` with `$npy` bound to the `Npy` of whatever element type.
macro_rules! each_npy {
    ($value:expr, $npy:ident => $body:expr) => {
        match $value {
            AnyNpy::F32($npy) => $body,
            AnyNpy::F64($npy) => $body,
            AnyNpy::U8($npy) => $body,
            AnyNpy::I16($npy) => $body,
            AnyNpy::U16($npy) => $body,
            AnyNpy::I32($npy) => $body,
            AnyNpy::I64($npy) => $body,
        }
    };
}

impl AnyNpy {
    /// The `.npy` opened by `open` as elements of `dtype` (numpy's name).
    fn open(
        dtype: &str,
        open: impl Fn(Kind) -> adl_core::Result<AnyNpy>,
    ) -> PyResult<adl_core::Result<AnyNpy>> {
        let kind = match dtype {
            "float32" => Kind::F32,
            "float64" => Kind::F64,
            "uint8" => Kind::U8,
            "int16" => Kind::I16,
            "uint16" => Kind::U16,
            "int32" => Kind::I32,
            "int64" => Kind::I64,
            other => {
                return Err(PyValueError::new_err(format!(
                    "dtype is one of float32, float64, uint8, int16, uint16, int32, int64; not {other:?}"
                )));
            }
        };
        Ok(open(kind))
    }
}

/// The element types an `Npy` reads.
#[derive(Clone, Copy)]
enum Kind {
    F32,
    F64,
    U8,
    I16,
    U16,
    I32,
    I64,
}

/// `RustNpy::$open($args)` as the `AnyNpy` of `kind`.
macro_rules! open_as {
    ($kind:expr, |$t:ident| $open:expr) => {
        match $kind {
            Kind::F32 => {
                type $t = f32;
                $open.map(AnyNpy::F32)
            }
            Kind::F64 => {
                type $t = f64;
                $open.map(AnyNpy::F64)
            }
            Kind::U8 => {
                type $t = u8;
                $open.map(AnyNpy::U8)
            }
            Kind::I16 => {
                type $t = i16;
                $open.map(AnyNpy::I16)
            }
            Kind::U16 => {
                type $t = u16;
                $open.map(AnyNpy::U16)
            }
            Kind::I32 => {
                type $t = i32;
                $open.map(AnyNpy::I32)
            }
            Kind::I64 => {
                type $t = i64;
                $open.map(AnyNpy::I64)
            }
        }
    };
}

/// A NumPy array on disk (or in an object store): sample `i` is
/// `array[i]`, read from the memory-mapped file (or with a ranged
/// request) without the GIL. `dtype` is the file's element type (another
/// is refused, naming both).
#[pyclass(module = "adl.files", frozen)]
pub(crate) struct Npy {
    sensor: AnyNpy,
    metadata: Py<Metadata>,
    made: MadeFrom,
}

#[pymethods]
impl Npy {
    /// The array `path`, a sample per row, at `timestamps`; `name` by
    /// default the file's stem.
    #[new]
    #[pyo3(signature = (path, timestamps, *, name = None, dtype = "float32"))]
    fn new(
        py: Python<'_>,
        path: String,
        timestamps: &Bound<'_, PyAny>,
        name: Option<String>,
        dtype: &str,
    ) -> PyResult<Self> {
        let made = MadeFrom::class::<Npy>(
            py,
            (located(&path), timestamps.clone()),
            kwargs!(py; "name" => name.clone(), "dtype" => dtype),
        )?;
        let name = name.unwrap_or_else(|| {
            std::path::Path::new(&path)
                .file_stem()
                .map_or_else(|| path.clone(), |s| s.to_string_lossy().into_owned())
        });
        let times = self::timestamps(&name, timestamps)?;
        let sensor = AnyNpy::open(dtype, |kind| {
            py.detach(|| {
                open_as!(kind, |T| RustNpy::<T, IxDyn>::open(
                    &name,
                    path.as_str(),
                    times.clone()
                ))
            })
        })?
        .map_err(to_python)?;
        Npy::made(py, sensor, made)
    }

    /// The sensor folder `folder`: `data.npy` beside `ts.npy` or `ts.txt`,
    /// named after the folder.
    #[staticmethod]
    #[pyo3(signature = (folder, *, dtype = "float32"))]
    fn in_folder(py: Python<'_>, folder: String, dtype: &str) -> PyResult<Self> {
        let made = MadeFrom::method(
            py.get_type::<Npy>().into_any(),
            Some("in_folder"),
            (located(&folder),),
            kwargs!(py; "dtype" => dtype),
        )?;
        let sensor = AnyNpy::open(dtype, |kind| {
            py.detach(|| open_as!(kind, |T| RustNpy::<T, IxDyn>::in_folder(folder.as_str())))
        })?
        .map_err(to_python)?;
        Npy::made(py, sensor, made)
    }

    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The sensor's name.
    #[getter]
    fn name(&self) -> String {
        each_npy!(&self.sensor, npy => npy.name().to_string())
    }

    /// The sensor's metadata (`metadata.timestamps`).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// The shape of a sample (the file's shape without its first axis).
    #[getter]
    fn sample_shape(&self) -> Vec<usize> {
        each_npy!(&self.sensor, npy => npy.sample_shape().to_vec())
    }

    fn __len__(&self) -> usize {
        each_npy!(&self.sensor, npy => npy.len())
    }

    /// Row `index`, read without the GIL into an array that owns its
    /// buffer.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyAny>> {
        each_npy!(&self.sensor, npy => {
            let at = position(index, npy.len(), npy.name())?;
            let row = py.detach(|| npy.get(at)).map_err(to_python)?;
            Ok(PyArrayDyn::from_owned_array(py, row).into_any())
        })
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        each_npy!(&self.sensor, npy => format!(
            "Npy({}, {} samples of {:?})",
            npy.name(),
            npy.len(),
            npy.sample_shape()
        ))
    }
}

impl Npy {
    /// Row `index` as an `adl.Pipeline`'s value, read without Python, with what
    /// the read stage read ahead for it, where it did.
    pub(crate) fn value_fetched(
        &self,
        index: usize,
        fetched: adl_core::storage::Fetched,
    ) -> adl_core::Result<Value> {
        let f = fetched;
        Ok(Value::Array(match &self.sensor {
            AnyNpy::F32(npy) => AnyArray::F32(npy.get_fetched(index, f)?),
            AnyNpy::F64(npy) => AnyArray::F64(npy.get_fetched(index, f)?),
            AnyNpy::U8(npy) => AnyArray::U8(npy.get_fetched(index, f)?),
            AnyNpy::I16(npy) => AnyArray::I16(npy.get_fetched(index, f)?),
            AnyNpy::U16(npy) => AnyArray::U16(npy.get_fetched(index, f)?),
            AnyNpy::I32(npy) => AnyArray::I32(npy.get_fetched(index, f)?),
            AnyNpy::I64(npy) => AnyArray::I64(npy.get_fetched(index, f)?),
        }))
    }

    /// Where its samples are stored, and what it reads ahead (the Rust
    /// sensor's).
    pub(crate) fn storage(
        &self,
    ) -> Option<&dyn adl_core::storage::Storage<Origin = adl_core::SensorOrigin>> {
        each_npy!(&self.sensor, npy => npy.storage())
    }

    /// The number of rows.
    pub(crate) fn samples(&self) -> usize {
        each_npy!(&self.sensor, npy => npy.len())
    }

    fn made(py: Python<'_>, sensor: AnyNpy, made: MadeFrom) -> PyResult<Npy> {
        let metadata = each_npy!(&sensor, npy => Metadata::of(py, npy.metadata()))?;
        Ok(Npy {
            sensor,
            metadata,
            made,
        })
    }
}

/// A CSV table with a header (an IMU, a GPS): a sample per row, its
/// columns but the time as a float64 array; the time column gives the
/// timestamps.
#[pyclass(module = "adl.files", frozen)]
pub(crate) struct Table {
    sensor: RustTable,
    metadata: Py<Metadata>,
    made: MadeFrom,
}

impl Table {
    /// Row `index` as an `adl.Pipeline`'s value, with what the read stage read
    /// ahead for it, where it did.
    pub(crate) fn value_fetched(
        &self,
        index: usize,
        fetched: adl_core::storage::Fetched,
    ) -> adl_core::Result<Value> {
        let row = self.sensor.get_fetched(index, fetched)?;
        Ok(Value::Array(AnyArray::F64(row.into_dyn())))
    }

    /// Where its samples are stored, and what it reads ahead (the Rust
    /// sensor's).
    pub(crate) fn storage(
        &self,
    ) -> Option<&dyn adl_core::storage::Storage<Origin = adl_core::SensorOrigin>> {
        self.sensor.storage()
    }

    /// The number of rows.
    pub(crate) fn samples(&self) -> usize {
        self.sensor.len()
    }
}

#[pymethods]
impl Table {
    #[new]
    #[pyo3(signature = (path, time_column, *, name = None))]
    fn new(
        py: Python<'_>,
        path: String,
        time_column: &str,
        name: Option<String>,
    ) -> PyResult<Self> {
        let made = MadeFrom::class::<Table>(
            py,
            (located(&path), time_column),
            kwargs!(py; "name" => name.clone()),
        )?;
        let name = name.unwrap_or_else(|| {
            std::path::Path::new(&path)
                .file_stem()
                .map_or_else(|| path.clone(), |s| s.to_string_lossy().into_owned())
        });
        let sensor = py
            .detach(|| RustTable::open(&name, path.as_str(), time_column))
            .map_err(to_python)?;
        let metadata = Metadata::of(py, sensor.metadata())?;
        Ok(Table {
            sensor,
            metadata,
            made,
        })
    }

    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The sensor's name.
    #[getter]
    fn name(&self) -> &str {
        self.sensor.name()
    }

    /// The sensor's metadata (`metadata.timestamps`).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// The columns of a sample, in order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.sensor.columns().to_vec()
    }

    fn __len__(&self) -> usize {
        self.sensor.len()
    }

    /// Row `index`'s values (float64).
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyAny>> {
        let at = position(index, self.sensor.len(), self.sensor.name())?;
        let row = self.sensor.get(at).map_err(to_python)?;
        Ok(row.to_pyarray(py).into_any())
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        format!(
            "Table({}, {} rows of {})",
            self.sensor.name(),
            self.sensor.len(),
            self.sensor.columns().join(", ")
        )
    }
}

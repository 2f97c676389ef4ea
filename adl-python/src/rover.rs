//! `adl.files.RoverSensor`: a roverd sensor folder (the red-rover
//! recordings' format, I/Q-1M's) read by adl-files' native reader, each
//! sample read and decoded with the GIL released into NumPy arrays that
//! own adl's buffers, as roverd's `DynamicSensor` gives it: a dict of
//! channel name to frames.

use adl_core::Sensor;
use adl_files::rover::{
    ChannelArray, Element, RoverOptions, RoverSample, RoverSensor as RustRoverSensor,
};
use numpy::PyArrayDyn;
use pyo3::prelude::*;

use crate::made_from::{MadeFrom, kwargs, located};
use pyo3::types::{PyDict, PyTuple};

use crate::errors::to_python;
use crate::files::{Metadata, Stream, position};
use crate::native::{AnyArray, Value};

/// A roverd sensor: a folder with `meta.json` and its channels (`raw`,
/// `lzma`, `lzmaf`, `mjpg`, `jpg`, `npz`) and timestamps (`ts`). Sample
/// `i` is a dict of each chosen channel's frames `i - past ..= i + future`
/// (`[window, *shape]`, the channel's dtype), as roverd's
/// `DynamicSensor(path, subset=channels, past=past, future=future)[i]`;
/// image channels (`mjpg`, `jpg`) RGB `uint8` `[H, W, 3]` shrunk by
/// `downscale` (1, 2, 4 or 8).
#[pyclass(module = "adl.files", frozen)]
pub(crate) struct RoverSensor {
    sensor: RustRoverSensor,
    metadata: Py<Metadata>,
    /// Whether every channel's dtype is one an `adl.Pipeline` takes (the
    /// loader's native path); else the loader reads it through Python.
    native: bool,
    made: MadeFrom,
}

impl RoverSensor {
    /// Where its samples are stored, and what it reads ahead (the Rust
    /// sensor's).
    pub(crate) fn storage(
        &self,
    ) -> Option<&dyn adl_core::storage::Storage<Origin = adl_core::SensorOrigin>> {
        self.sensor.storage()
    }

    /// Sample `index` as an `adl.Pipeline`'s value, read without Python: a map
    /// of channel name to frames, with what the read stage read ahead for it,
    /// where it did.
    pub(crate) fn value_fetched(
        &self,
        index: usize,
        fetched: adl_core::storage::Fetched,
    ) -> adl_core::Result<Value> {
        let sample = self.sensor.get_fetched(index, fetched)?;
        let mut items = Vec::new();
        for (name, frames) in sample.into_channels() {
            let array = any_array(frames).map_err(|element| {
                adl_core::Error::internal(
                    "RoverSensor::value",
                    format!("channel `{name}` is {element}, which an adl.Pipeline does not take"),
                )
            })?;
            items.push((name, Value::Array(array)));
        }
        Ok(Value::Map(items))
    }

    /// The number of samples.
    pub(crate) fn samples(&self) -> usize {
        self.sensor.len()
    }

    /// Whether its samples can be an `adl.Pipeline`'s values (every
    /// channel of a dtype the pipeline takes).
    pub(crate) fn is_native(&self) -> bool {
        self.native
    }
}

/// Whether an `adl.Pipeline` takes arrays of `element`s (the types
/// [`any_array`] converts).
fn pipeline_takes(element: Element) -> bool {
    matches!(
        element,
        Element::U8
            | Element::I16
            | Element::U16
            | Element::I32
            | Element::I64
            | Element::F32
            | Element::F64
    )
}

/// `frames` as an array of the types an `adl.Pipeline` takes, or the
/// element type it is not.
fn any_array(frames: ChannelArray) -> Result<AnyArray, Element> {
    Ok(match frames {
        ChannelArray::U8(a) => AnyArray::U8(a),
        ChannelArray::I16(a) => AnyArray::I16(a),
        ChannelArray::U16(a) => AnyArray::U16(a),
        ChannelArray::I32(a) => AnyArray::I32(a),
        ChannelArray::I64(a) => AnyArray::I64(a),
        ChannelArray::F32(a) => AnyArray::F32(a),
        ChannelArray::F64(a) => AnyArray::F64(a),
        other => return Err(other.element()),
    })
}

/// `frames` as a NumPy array that owns its buffer.
fn to_numpy<'py>(py: Python<'py>, frames: ChannelArray) -> Bound<'py, PyAny> {
    match frames {
        ChannelArray::U8(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::I8(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::U16(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::I16(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::U32(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::I32(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::U64(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::I64(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::F32(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::F64(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::C64(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
        ChannelArray::C128(a) => PyArrayDyn::from_owned_array(py, a).into_any(),
    }
}

/// A sample as roverd's `DynamicSensor` gives it: a dict of channel name
/// to frames.
fn to_dict<'py>(py: Python<'py>, sample: RoverSample) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, frames) in sample.into_channels() {
        dict.set_item(&*name, to_numpy(py, frames))?;
    }
    Ok(dict)
}

#[pymethods]
impl RoverSensor {
    /// The roverd sensor folder `path` (a local path; an object store's
    /// URL where adl is built with the feature `store`), its channels
    /// `channels` (all of `meta.json`'s, `ts` among them, by default),
    /// image channels shrunk by `downscale`, each sample the frames
    /// `past` before to `future` after it.
    #[new]
    #[pyo3(signature = (path, *, channels = None, downscale = 1, past = 0, future = 0))]
    fn new(
        py: Python<'_>,
        path: String,
        channels: Option<Vec<String>>,
        downscale: usize,
        past: usize,
        future: usize,
    ) -> PyResult<Self> {
        let made = MadeFrom::class::<RoverSensor>(
            py,
            (located(&path),),
            kwargs!(py; "channels" => channels.clone(), "downscale" => downscale, "past" => past, "future" => future),
        )?;
        let mut options = RoverOptions::default()
            .downscale(downscale)
            .window(past, future);
        if let Some(channels) = channels {
            options = options.channels(channels);
        }
        let sensor = py
            .detach(|| RustRoverSensor::open(path.trim_end_matches('/'), &options))
            .map_err(to_python)?;
        let metadata = Metadata::of(py, sensor.metadata())?;
        let native = sensor
            .channels()
            .iter()
            .all(|c| pipeline_takes(c.meta().element));
        Ok(RoverSensor {
            sensor,
            metadata,
            native,
            made,
        })
    }

    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The sensor's name (its folder's).
    #[getter]
    fn name(&self) -> &str {
        self.sensor.name()
    }

    /// The sensor's folder.
    #[getter]
    fn path(&self) -> String {
        self.sensor.folder().to_string()
    }

    /// The sensor's metadata (`metadata.timestamps`, from `ts`).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// The channels read, in a sample's order.
    #[getter]
    fn channels(&self) -> Vec<String> {
        self.sensor
            .channels()
            .iter()
            .map(|c| c.name().to_string())
            .collect()
    }

    /// Each channel's frame shape (an image channel's after its
    /// downscale), by name.
    #[getter]
    fn shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for channel in self.sensor.channels() {
            dict.set_item(channel.name(), PyTuple::new(py, channel.frame_shape())?)?;
        }
        Ok(dict)
    }

    /// Each channel's NumPy dtype name, by name.
    #[getter]
    fn dtypes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for channel in self.sensor.channels() {
            dict.set_item(channel.name(), channel.meta().element.numpy_name())?;
        }
        Ok(dict)
    }

    /// Each channel's format in `meta.json` (`raw`, `lzmaf`, ...), by
    /// name.
    #[getter]
    fn formats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for channel in self.sensor.channels() {
            dict.set_item(channel.name(), channel.meta().format.name())?;
        }
        Ok(dict)
    }

    fn __len__(&self) -> usize {
        self.sensor.len()
    }

    /// Sample `index`: a dict of channel name to frames, read and decoded
    /// without the GIL into arrays that own their buffers.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyDict>> {
        let at = position(index, self.sensor.len(), self.sensor.name())?;
        let sample = py.detach(|| self.sensor.get(at)).map_err(to_python)?;
        to_dict(py, sample)
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        let channels: Vec<String> = self
            .sensor
            .channels()
            .iter()
            .map(|c| {
                format!(
                    "{}: {} {} {:?}",
                    c.name(),
                    c.meta().format.name(),
                    c.meta().element,
                    c.frame_shape()
                )
            })
            .collect();
        format!(
            "RoverSensor({}, {} samples, [{}])",
            self.sensor.name(),
            self.sensor.len(),
            channels.join(", ")
        )
    }
}

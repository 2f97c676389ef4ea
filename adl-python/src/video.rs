//! `adl.files.Video`: a camera recorded as an MP4 video, as a Python
//! sensor, its frames decoded by FFmpeg with the GIL released into NumPy
//! arrays that own their buffers.

use adl_core::Sensor;
use adl_core::transform::ImageLayout;
use adl_files::Video as RustVideo;
use numpy::{PyArray3, PyArray4};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::made_from::{MadeFrom, kwargs, located};

use crate::errors::to_python;
use crate::files::{Metadata, Stream, position};
use crate::native::{AnyArray, Value};

/// `"hwc"` or `"chw"` as a layout.
pub(crate) fn layout_of(layout: &str) -> PyResult<ImageLayout> {
    match layout {
        "hwc" => Ok(ImageLayout::Hwc),
        "chw" => Ok(ImageLayout::Chw),
        other => Err(PyValueError::new_err(format!(
            "layout is \"hwc\" ([H, W, 3]) or \"chw\" ([3, H, W]), not {other:?}"
        ))),
    }
}

/// A camera recorded as an MP4 video (H.264, HEVC, AV1, VP9): its frames
/// in presentation order, each at its time in the file, decoded into
/// `uint8` arrays `[H, W, 3]` (`layout="hwc"`) or `[3, H, W]` (`"chw"`),
/// scaled to `size=(height, width)` where given.
#[pyclass(module = "adl.files", frozen)]
pub(crate) struct Video {
    sensor: RustVideo,
    metadata: Py<Metadata>,
    made: MadeFrom,
}

impl Video {
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
impl Video {
    #[new]
    #[pyo3(signature = (path, *, name = None, layout = "hwc", size = None))]
    fn new(
        py: Python<'_>,
        path: String,
        name: Option<String>,
        layout: &str,
        size: Option<(usize, usize)>,
    ) -> PyResult<Self> {
        let made = MadeFrom::class::<Video>(
            py,
            (located(&path),),
            kwargs!(py; "name" => name.clone(), "layout" => layout, "size" => size),
        )?;
        let layout = layout_of(layout)?;
        let sensor = py
            .detach(|| {
                let video = match &name {
                    Some(name) => RustVideo::named(name, path.as_str()),
                    None => RustVideo::open(path.as_str()),
                }?
                .layout(layout);
                match size {
                    Some((height, width)) => video.resize(height, width),
                    None => Ok(video),
                }
            })
            .map_err(to_python)?;
        let metadata = Metadata::of(py, sensor.metadata())?;
        Ok(Video {
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

    /// The sensor's name (the file's, without its extension, unless given).
    #[getter]
    fn name(&self) -> &str {
        self.sensor.name()
    }

    /// The sensor's metadata (`metadata.timestamps`: each frame's time in
    /// seconds).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// The coding format: "H.264", "HEVC", "AV1" or "VP9".
    #[getter]
    fn codec(&self) -> &'static str {
        self.sensor.codec()
    }

    /// The size of the file's pictures, `(height, width)`.
    #[getter]
    fn frame_size(&self) -> (usize, usize) {
        self.sensor.frame_size()
    }

    /// The shape of a sample.
    #[getter]
    fn sample_shape(&self) -> [usize; 3] {
        self.sensor.sample_shape()
    }

    /// The file (a path or a URL).
    #[getter]
    fn path(&self) -> String {
        self.sensor.location().to_string()
    }

    fn __len__(&self) -> usize {
        self.sensor.len()
    }

    /// Frame `index`, decoded without the GIL into an array that owns its
    /// buffer.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyAny>> {
        let at = position(index, self.sensor.len(), self.sensor.name())?;
        let frame = py.detach(|| self.sensor.get(at)).map_err(to_python)?;
        Ok(PyArray3::from_owned_array(py, frame).into_any())
    }

    /// Frames `indices` (any order, repeats allowed) as one array `[N,
    /// ...]`, each group of pictures decoded once for all the frames
    /// wanted from it, without the GIL.
    fn frames<'py>(&self, py: Python<'py>, indices: Vec<isize>) -> PyResult<Bound<'py, PyAny>> {
        let indices = indices
            .into_iter()
            .map(|i| position(i, self.sensor.len(), self.sensor.name()))
            .collect::<PyResult<Vec<_>>>()?;
        let frames = py
            .detach(|| self.sensor.read(&indices))
            .map_err(to_python)?;
        Ok(PyArray4::from_owned_array(py, frames).into_any())
    }

    /// The index of the frame nearest `time` seconds, within `tolerance`
    /// seconds (a `ValueError` naming the nearest where none is).
    #[pyo3(signature = (time, tolerance = 1e-4))]
    fn frame_at(&self, time: f64, tolerance: f64) -> PyResult<usize> {
        self.sensor
            .frame_at(time, tolerance)
            .map_err(|e| PyValueError::new_err(format!("{e:#}")))
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        format!(
            "Video({}, {} frames of {:?}, {})",
            self.sensor.name(),
            self.sensor.len(),
            self.sensor.sample_shape(),
            self.sensor.codec()
        )
    }
}

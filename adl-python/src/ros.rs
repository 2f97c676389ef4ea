//! `adl.ros`: robot logs (a rosbag2 folder, an `.mcap` file or a ROS 1
//! `.bag`) read by adl-files' reader with the GIL released, each topic a
//! Python sensor (a name, `metadata.timestamps`, `__getitem__`,
//! `__len__`, `stream`) whose sample is its message as plain data: a dict
//! keyed by field name, numbers as Python scalars, numeric arrays (fixed
//! or variable in length) as 1-D NumPy arrays of the field's type, strings
//! as `str`, nested messages as dicts and arrays of messages (or of
//! strings) as lists.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use adl_core::Sensor;
use adl_core::interpolate::Quaternion;
use adl_files::ros::views::{Fix, Imu, Pose, Scan, point_columns};
use adl_files::ros::{Bag as RustBag, Message, Numbers, Topic as RustTopic, Value, Viewed};
use ndarray::{Array2, Array3};
use numpy::{PyArray1, PyArray2, PyArray3};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyFileNotFoundError, PyKeyError, PyValueError};
use pyo3::prelude::*;

use crate::made_from::{MadeFrom, kwargs, located};
use pyo3::types::{PyDict, PyList, PyString};

use crate::errors::{add_note, to_python};
use crate::files::{Metadata, Stream, position};

/// A robot log: `Bag(path)` reads a rosbag2 folder's, an `.mcap` file's
/// or a ROS 1 `.bag`'s indexes (the GIL released), not its messages;
/// `topics` is `{topic: message type}` and `bag[topic]` one topic as a
/// sensor. A bag damaged part way keeps the messages before the damage
/// (`damage` says where).
#[pyclass(module = "adl.ros", frozen)]
pub(crate) struct Bag {
    bag: RustBag,
    path: String,
    made: MadeFrom,
    /// The topics opened so far, each opened once.
    opened: Mutex<BTreeMap<String, Py<RosTopic>>>,
}

impl Bag {
    /// The topics' names, in order.
    fn names(&self) -> Vec<String> {
        self.bag
            .topics()
            .keys()
            .map(|&name| name.to_owned())
            .collect()
    }
}

#[pymethods]
impl Bag {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let made = MadeFrom::class::<Bag>(py, (located(&path.to_string_lossy()),), kwargs!(py))?;
        let shown = path.to_string_lossy().into_owned();
        // As a string: the URL of an object (`s3://...`) is read from its
        // store, anything else from the file system.
        let bag = py
            .detach(|| RustBag::open(shown.as_str()))
            .map_err(|error| {
                if shown.contains("://") || path.exists() {
                    to_python(error)
                } else {
                    PyFileNotFoundError::new_err(format!("{error:#}"))
                }
            })?;
        Ok(Bag {
            bag,
            path: shown,
            made,
            opened: Mutex::new(BTreeMap::new()),
        })
    }

    /// The bag's path, as it was opened.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Every topic and its message type, as the bag names it
    /// (`{"/imu": "sensor_msgs/msg/Imu"}`; a ROS 1 bag's
    /// `sensor_msgs/Imu`).
    #[getter]
    fn topics(&self) -> BTreeMap<String, String> {
        (self.bag.topics().into_iter())
            .map(|(topic, kind)| (topic.to_owned(), kind.to_owned()))
            .collect()
    }

    /// Where the bag is damaged (each damaged file, the byte and what is
    /// kept); empty for a whole bag.
    #[getter]
    fn damage(&self) -> Vec<String> {
        self.bag.damage().to_vec()
    }

    /// How many messages topic `topic` has (0 for a topic the bag lacks).
    fn message_count(&self, topic: &str) -> usize {
        self.bag.message_count(topic)
    }

    /// The number of topics.
    fn __len__(&self) -> usize {
        self.bag.topics().len()
    }

    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    fn __contains__(&self, topic: &str) -> bool {
        self.bag.topics().contains_key(topic)
    }

    /// The topics' names, in order (as a dict's keys).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyList::new(py, self.names())?.try_iter()?.into_any())
    }

    /// Topic `topic` as a sensor, timed by its messages' log times (the
    /// same object each time). A `KeyError` naming the bag's topics where
    /// it has no such topic; an `OSError` where its type has no
    /// definition (in the bag or built in).
    fn __getitem__(&self, py: Python<'_>, topic: &str) -> PyResult<Py<RosTopic>> {
        if let Some(opened) = self
            .opened
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(topic)
        {
            return Ok(opened.clone_ref(py));
        }
        if !self.bag.topics().contains_key(topic) {
            return Err(PyKeyError::new_err(format!(
                "topic `{topic}` is not in bag `{}`; its topics are [{}]",
                self.path,
                self.names().join(", ")
            )));
        }
        // The lock is not held while the GIL is released.
        let sensor = py.detach(|| self.bag.topic(topic)).map_err(to_python)?;
        let from = self.made.then(py, "__getitem__", (topic,), kwargs!(py))?;
        let made = RosTopic::made(py, sensor, from)?;
        let mut opened = self.opened.lock().unwrap_or_else(|p| p.into_inner());
        Ok(opened.entry(topic.to_owned()).or_insert(made).clone_ref(py))
    }

    fn __repr__(&self) -> String {
        format!(
            "ros.Bag({:?}, {} topics{})",
            self.path,
            self.bag.topics().len(),
            if self.bag.damage().is_empty() {
                ""
            } else {
                ", damaged"
            }
        )
    }
}

/// One topic of a [`Bag`] as a sensor: sample `i` is its `i`-th message
/// by log time, decoded with the GIL released, as a dict of its fields.
#[pyclass(name = "RosTopic", module = "adl.ros", frozen)]
pub(crate) struct RosTopic {
    sensor: RustTopic,
    metadata: Py<Metadata>,
    made: MadeFrom,
}

impl RosTopic {
    fn made(py: Python<'_>, sensor: RustTopic, made: MadeFrom) -> PyResult<Py<RosTopic>> {
        let metadata = Metadata::of(py, sensor.metadata())?;
        Py::new(
            py,
            RosTopic {
                sensor,
                metadata,
                made,
            },
        )
    }
}

#[pymethods]
impl RosTopic {
    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The topic's name (`/imu`).
    #[getter]
    fn name(&self) -> &str {
        self.sensor.name()
    }

    /// The message type, as the bag names it (`sensor_msgs/msg/Imu`,
    /// `sensor_msgs/Imu`).
    #[getter]
    fn message_type(&self) -> &str {
        self.sensor.message_type()
    }

    /// The sensor's metadata (`metadata.timestamps`, seconds).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    /// Each message's log time, in nanoseconds (uint64).
    #[getter]
    fn log_times_ns<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.sensor.log_times_ns().collect())
    }

    /// The same topic timed by each message's `header.stamp` (seconds)
    /// instead of its log time: every message is decoded once, now, with
    /// the GIL released. A message without a header, or stamps that go
    /// backwards, is an error naming the topic.
    fn stamped_by_header(&self, py: Python<'_>) -> PyResult<Py<RosTopic>> {
        let sensor = self.sensor.clone();
        let stamped = py
            .detach(|| sensor.stamped_by_header())
            .map_err(to_python)?;
        let made = self.made.then(py, "stamped_by_header", (), kwargs!(py))?;
        RosTopic::made(py, stamped, made)
    }

    fn __len__(&self) -> usize {
        self.sensor.len()
    }

    /// Message `index` (negative from the end), read and decoded without
    /// the GIL: a dict of its fields.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyDict>> {
        let at = position(index, self.sensor.len(), self.sensor.name())?;
        let message = py.detach(|| self.sensor.get(at)).map_err(to_python)?;
        message_to_python(py, message)
    }

    /// The same topic as a sensor of typed views of its messages (see
    /// [`RosView`]): `kind` is one of [`KINDS`]. An unknown kind is a
    /// `ValueError` listing the kinds; a kind that does not read the
    /// topic's message type a `ValueError` naming the topic, its type and
    /// the types the kind reads. Nothing is read until a sample is.
    fn view(&self, py: Python<'_>, kind: &str) -> PyResult<Py<RosView>> {
        let topic = self.sensor.clone();
        let views = match kind {
            "image" => Views::Image(topic.view().map_err(to_python)?),
            "image16" => Views::Image16(topic.view().map_err(to_python)?),
            "depth" => Views::Depth(topic.view().map_err(to_python)?),
            "points" => Views::Points(topic.view().map_err(to_python)?),
            "imu" => Views::Imu(topic.view().map_err(to_python)?),
            "fix" => Views::Fix(topic.view().map_err(to_python)?),
            "scan" => Views::Scan(topic.view().map_err(to_python)?),
            "pose" => Views::Pose(topic.view().map_err(to_python)?),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "no view `{kind}` of topic `{}`: the kinds are {}",
                    self.sensor.name(),
                    KINDS.join(", ")
                )));
            }
        };
        Py::new(
            py,
            RosView {
                views,
                metadata: self.metadata.clone_ref(py),
                made: self.made.then(py, "view", (kind,), kwargs!(py))?,
            },
        )
    }

    /// The names of a `sensor_msgs/PointCloud2` topic's columns in its
    /// `view("points")` (each field, `name[k]` for a field of several
    /// values), from its first message (read without the GIL). A topic
    /// of another type is a `ValueError`, one without messages an
    /// `IndexError`.
    #[getter]
    fn point_columns(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let points: Viewed<Array2<f32>> = self.sensor.clone().view().map_err(to_python)?;
        let sensor = points.topic();
        py.detach(|| point_columns(&sensor.get(0)?))
            .map_err(to_python)
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        format!(
            "ros.Topic({:?}, {}, {} messages)",
            self.sensor.name(),
            self.sensor.message_type(),
            self.sensor.len()
        )
    }
}

/// The kinds of `topic.view(kind)`, in the order an error lists them.
const KINDS: [&str; 8] = [
    "image", "image16", "depth", "points", "imu", "fix", "scan", "pose",
];

/// A topic through one of adl-files' views, the kind chosen in Python.
enum Views {
    Image(Viewed<Array3<u8>>),
    Image16(Viewed<Array3<u16>>),
    Depth(Viewed<Array3<f32>>),
    Points(Viewed<Array2<f32>>),
    Imu(Viewed<Imu>),
    Fix(Viewed<Fix>),
    Scan(Viewed<Scan>),
    Pose(Viewed<Pose>),
}

/// A sample of one of the [`Views`], decoded without the GIL and made
/// Python's with it.
enum Viewing {
    Image(Array3<u8>),
    Image16(Array3<u16>),
    Depth(Array3<f32>),
    Points(Array2<f32>),
    Imu(Imu),
    Fix(Fix),
    Scan(Scan),
    Pose(Pose),
}

/// `$body` with `$viewed` bound to the view's sensor, whatever its kind.
macro_rules! each_view {
    ($views:expr, $viewed:ident => $body:expr) => {
        match $views {
            Views::Image($viewed) => $body,
            Views::Image16($viewed) => $body,
            Views::Depth($viewed) => $body,
            Views::Points($viewed) => $body,
            Views::Imu($viewed) => $body,
            Views::Fix($viewed) => $body,
            Views::Scan($viewed) => $body,
            Views::Pose($viewed) => $body,
        }
    };
}

impl Views {
    /// Its kind, as `view` names it.
    fn kind(&self) -> &'static str {
        match self {
            Views::Image(_) => "image",
            Views::Image16(_) => "image16",
            Views::Depth(_) => "depth",
            Views::Points(_) => "points",
            Views::Imu(_) => "imu",
            Views::Fix(_) => "fix",
            Views::Scan(_) => "scan",
            Views::Pose(_) => "pose",
        }
    }

    /// The topic viewed.
    fn topic(&self) -> &RustTopic {
        each_view!(self, viewed => viewed.topic())
    }

    /// Message `index`, read and viewed.
    fn get(&self, index: usize) -> adl_core::Result<Viewing> {
        Ok(match self {
            Views::Image(v) => Viewing::Image(v.get(index)?),
            Views::Image16(v) => Viewing::Image16(v.get(index)?),
            Views::Depth(v) => Viewing::Depth(v.get(index)?),
            Views::Points(v) => Viewing::Points(v.get(index)?),
            Views::Imu(v) => Viewing::Imu(v.get(index)?),
            Views::Fix(v) => Viewing::Fix(v.get(index)?),
            Views::Scan(v) => Viewing::Scan(v.get(index)?),
            Views::Pose(v) => Viewing::Pose(v.get(index)?),
        })
    }
}

/// `[x, y, z, w]` as a float64 array.
fn quaternion_to_python(py: Python<'_>, q: Quaternion) -> Bound<'_, PyAny> {
    PyArray1::from_vec(py, q.to_array().to_vec()).into_any()
}

impl Viewing {
    /// As Python: arrays over the view's own buffers, records as dicts.
    fn into_python(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        let record: Vec<(&str, Bound<'_, PyAny>)> = match self {
            Viewing::Image(a) => return Ok(PyArray3::from_owned_array(py, a).into_any()),
            Viewing::Image16(a) => return Ok(PyArray3::from_owned_array(py, a).into_any()),
            Viewing::Depth(a) => return Ok(PyArray3::from_owned_array(py, a).into_any()),
            Viewing::Points(a) => return Ok(PyArray2::from_owned_array(py, a).into_any()),
            Viewing::Imu(imu) => vec![
                ("orientation", quaternion_to_python(py, imu.orientation)),
                (
                    "angular_velocity",
                    PyArray1::from_owned_array(py, imu.angular_velocity).into_any(),
                ),
                (
                    "linear_acceleration",
                    PyArray1::from_owned_array(py, imu.linear_acceleration).into_any(),
                ),
            ],
            Viewing::Fix(fix) => vec![
                ("latitude", fix.latitude.into_bound_py_any(py)?),
                ("longitude", fix.longitude.into_bound_py_any(py)?),
                ("altitude", fix.altitude.into_bound_py_any(py)?),
                ("status", fix.status.into_bound_py_any(py)?),
            ],
            Viewing::Scan(scan) => vec![
                (
                    "ranges",
                    PyArray1::from_owned_array(py, scan.ranges).into_any(),
                ),
                (
                    "intensities",
                    PyArray1::from_owned_array(py, scan.intensities).into_any(),
                ),
                (
                    "angle_min",
                    f64::from(scan.angle_min).into_bound_py_any(py)?,
                ),
                (
                    "angle_increment",
                    f64::from(scan.angle_increment).into_bound_py_any(py)?,
                ),
            ],
            Viewing::Pose(pose) => vec![
                (
                    "position",
                    PyArray1::from_owned_array(py, pose.position).into_any(),
                ),
                ("orientation", quaternion_to_python(py, pose.orientation)),
            ],
        };
        let dict = PyDict::new(py);
        for (key, value) in record {
            dict.set_item(PyString::intern(py, key), value)?;
        }
        Ok(dict.into_any())
    }
}

/// A topic as a sensor of typed views of its messages
/// (`topic.view(kind)`, `adl.ros.View`), each read and decoded with the
/// GIL released: `"image"` an 8-bit `Image` (BGR reordered to RGB) or a
/// JPEG or PNG `CompressedImage` as a uint8 `[H, W, C]` array,
/// `"image16"` a 16-bit `Image` as uint16, `"depth"` a 32FC `Image` as
/// float32, `"points"` a `PointCloud2` as float32 `[N, C]` (a column per
/// field value, `topic.point_columns`), `"imu"`, `"fix"`, `"scan"` and
/// `"pose"` dicts of float64 (float32 for a scan's) arrays and floats.
/// Timed as its topic is.
#[pyclass(name = "RosView", module = "adl.ros", frozen)]
pub(crate) struct RosView {
    views: Views,
    metadata: Py<Metadata>,
    made: MadeFrom,
}

#[pymethods]
impl RosView {
    /// Pickled by what it was made from (see `adl._pickle`): made again,
    /// the same, where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The topic's name (`/camera/image`).
    #[getter]
    fn name(&self) -> &str {
        self.views.topic().name()
    }

    /// The view's kind (`"image"`, `"imu"`...).
    #[getter]
    fn kind(&self) -> &'static str {
        self.views.kind()
    }

    /// The topic's message type, as the bag names it.
    #[getter]
    fn message_type(&self) -> &str {
        self.views.topic().message_type()
    }

    /// The sensor's metadata: its topic's (`metadata.timestamps`,
    /// seconds).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> Py<Metadata> {
        self.metadata.clone_ref(py)
    }

    fn __len__(&self) -> usize {
        self.views.topic().len()
    }

    /// Message `index` (negative from the end) as the view's sample, read
    /// and decoded without the GIL. A message the view cannot read (an
    /// image encoding of another kind, a damaged JPEG) is an `OSError`
    /// naming the topic and the message.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyAny>> {
        let topic = self.views.topic();
        let at = position(index, topic.len(), topic.name())?;
        let viewed = py.detach(|| self.views.get(at)).map_err(|error| {
            let error = to_python(error);
            if matches!(
                self.views,
                Views::Image(_) | Views::Image16(_) | Views::Depth(_)
            ) {
                add_note(
                    py,
                    &error,
                    "view(\"image\") reads 8-bit images (rgb8, bgr8, rgba8, bgra8, mono8, 8UCn) \
                     and JPEG or PNG CompressedImages, view(\"image16\") 16-bit ones (mono16, \
                     16UCn), view(\"depth\") 32FCn",
                );
            }
            error
        })?;
        viewed.into_python(py)
    }

    /// The samples one after another, or lists of `batch` of them.
    #[pyo3(signature = (batch = None))]
    fn stream(slf: &Bound<'_, Self>, batch: Option<usize>) -> PyResult<Stream> {
        Stream::of(slf.as_any(), batch)
    }

    fn __repr__(&self) -> String {
        let topic = self.views.topic();
        format!(
            "ros.View({:?}, {:?}, {}, {} messages)",
            topic.name(),
            self.views.kind(),
            topic.message_type(),
            topic.len()
        )
    }
}

/// A message as a dict of its fields, in the definition's order; its
/// arrays handed over without a copy.
fn message_to_python(py: Python<'_>, message: Message) -> PyResult<Bound<'_, PyDict>> {
    let dict = PyDict::new(py);
    let names: Vec<Bound<'_, PyString>> = message
        .fields()
        .map(|(name, _)| PyString::intern(py, name))
        .collect();
    for (name, value) in names.into_iter().zip(message.into_values()) {
        dict.set_item(name, value_to_python(py, value)?)?;
    }
    Ok(dict)
}

/// A field's value as plain Python data.
fn value_to_python(py: Python<'_>, value: Value) -> PyResult<Bound<'_, PyAny>> {
    match value {
        Value::Bool(x) => x.into_bound_py_any(py),
        Value::I8(x) => x.into_bound_py_any(py),
        Value::U8(x) => x.into_bound_py_any(py),
        Value::I16(x) => x.into_bound_py_any(py),
        Value::U16(x) => x.into_bound_py_any(py),
        Value::I32(x) => x.into_bound_py_any(py),
        Value::U32(x) => x.into_bound_py_any(py),
        Value::I64(x) => x.into_bound_py_any(py),
        Value::U64(x) => x.into_bound_py_any(py),
        Value::F32(x) => f64::from(x).into_bound_py_any(py),
        Value::F64(x) => x.into_bound_py_any(py),
        Value::String(x) => x.into_bound_py_any(py),
        Value::Array(numbers) => Ok(numbers_to_python(py, numbers)),
        Value::List(values) => {
            let items = values
                .into_iter()
                .map(|v| value_to_python(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any())
        }
        Value::Message(message) => Ok(message_to_python(py, message)?.into_any()),
    }
}

/// A numeric array as a 1-D NumPy array of its type, over its own buffer.
fn numbers_to_python(py: Python<'_>, numbers: Numbers) -> Bound<'_, PyAny> {
    match numbers {
        Numbers::Bool(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::I8(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::U8(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::I16(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::U16(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::I32(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::U32(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::I64(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::U64(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::F32(v) => PyArray1::from_vec(py, v).into_any(),
        Numbers::F64(v) => PyArray1::from_vec(py, v).into_any(),
    }
}

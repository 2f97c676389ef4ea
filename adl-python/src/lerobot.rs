//! `adl.lerobot`'s native half: a LeRobot dataset read by adl-files
//! ([`adl_files::lerobot::LeRobot`]), its items and batches in the types
//! lerobot's `LeRobotDataset` gives (every float `float32`, every integer
//! `int64`, cameras `float32` in [0, 1], or `uint8` where asked), as
//! PyTorch tensors where PyTorch is installed and NumPy arrays otherwise;
//! and the loader of one (`adl.Loader` over a `LeRobotDataset`), which
//! reads, decodes (a batch's frames grouped by video file and group of
//! pictures) and collates in Rust without the GIL.

use std::sync::Arc;

use adl_core::collate::DefaultCollate;
use adl_core::pipeline::Stages;
use adl_core::{Dataset, Record, Result, Transform};
use adl_exec::{Buffers, Context, Recycle, Recycler};
use adl_files::lerobot::{Field, FieldBatch, LeRobot as RustLeRobot, LeRobotOptions};
use ndarray::ArrayD;
use numpy::PyArrayDyn;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::errors::to_python;
use crate::files::position;
use crate::video::layout_of;
use crate::{Owner, ToPython};

/// A value in lerobot's types.
pub(crate) enum Typed {
    F32(ArrayD<f32>),
    I64(ArrayD<i64>),
    Bool(ArrayD<bool>),
    U8(ArrayD<u8>),
    /// An item's text.
    Text(String),
    /// A batch's texts.
    Texts(Vec<String>),
}

/// How a dataset's values are typed: which keys are cameras, and whether
/// their frames stay `uint8`.
#[derive(Clone)]
pub(crate) struct Typing {
    cameras: Arc<[String]>,
    uint8: bool,
}

impl Typing {
    /// `value` (of key `key`) as lerobot types it, new arrays' memory from
    /// `buffers` and the memory of those converted from given back there.
    fn typed(&self, key: &str, value: FieldBatch, buffers: Buffers<'_>) -> Result<Typed> {
        Ok(match value {
            FieldBatch::F32(a) => Typed::F32(a),
            FieldBatch::F64(a) => Typed::F32(converted(a, buffers, |x| x as f32)?),
            FieldBatch::I64(a) => Typed::I64(a),
            FieldBatch::I32(a) => Typed::I64(converted(a, buffers, i64::from)?),
            FieldBatch::I16(a) => Typed::I64(converted(a, buffers, i64::from)?),
            FieldBatch::I8(a) => Typed::I64(converted(a, buffers, i64::from)?),
            FieldBatch::U8(a) if self.cameras.iter().any(|c| c == key) => match self.uint8 {
                true => Typed::U8(a),
                // As lerobot's decoders: `frames / 255` in float32 (a
                // division, not a product by 1/255, which rounds some
                // values otherwise).
                false => Typed::F32(converted(a, buffers, |x| f32::from(x) / 255.0)?),
            },
            FieldBatch::U8(a) => Typed::I64(converted(a, buffers, i64::from)?),
            FieldBatch::Bool(a) => Typed::Bool(a),
            FieldBatch::Text(t) => Typed::Texts(t),
        })
    }

    /// An item's `field`, its frames decoded, as lerobot types it.
    fn item_value(&self, key: &str, field: Field) -> Result<Typed> {
        let batch = match field {
            Field::F32(a) => FieldBatch::F32(a),
            Field::F64(a) => FieldBatch::F64(a),
            Field::I64(a) => FieldBatch::I64(a),
            Field::I32(a) => FieldBatch::I32(a),
            Field::I16(a) => FieldBatch::I16(a),
            Field::I8(a) => FieldBatch::I8(a),
            Field::U8(a) => FieldBatch::U8(a),
            Field::Bool(a) => FieldBatch::Bool(a),
            Field::Frames(frames) => FieldBatch::U8(frames.decode()?),
            Field::Text(text) => return Ok(Typed::Text(text)),
        };
        self.typed(key, batch, Buffers::none())
    }
}

/// `array` with `convert` applied to each value, in one pass over its
/// values in memory order (a loop the compiler vectorizes), into memory
/// from `buffers`; `array`'s memory goes back to them.
fn converted<A: Copy, B>(
    array: ArrayD<A>,
    buffers: Buffers<'_>,
    convert: impl Fn(A) -> B,
) -> Result<ArrayD<B>> {
    let shape = array.shape().to_vec();
    let standard = array.as_standard_layout();
    let values = standard
        .as_slice()
        .ok_or_else(|| adl_core::Error::internal("lerobot::converted", "an array not in order"))?;
    let mut out: Vec<B> = buffers.take(values.len());
    out.extend(values.iter().map(|&x| convert(x)));
    drop(standard);
    buffers.release(array);
    ArrayD::from_shape_vec(shape, out)
        .map_err(|e| adl_core::Error::internal("lerobot::converted", e))
}

/// An array as PyTorch takes it: through `torch.from_numpy` (no copy)
/// where `torch` is given.
fn tensor<'py>(
    array: Bound<'py, PyAny>,
    torch: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    match torch {
        Some(torch) => torch.call_method1("from_numpy", (array,)),
        None => Ok(array),
    }
}

/// `torch`, where it is installed (and not turned off).
fn torch_module<'py>(py: Python<'py>, tensors: bool) -> Option<Bound<'py, PyAny>> {
    if !tensors {
        return None;
    }
    py.import("torch").ok().map(|m| m.into_any())
}

/// A batch of a LeRobot dataset, in lerobot's types: a dict of arrays (a
/// list for the tasks).
pub(crate) struct LeRobotBatch {
    names: Arc<[String]>,
    values: Vec<Typed>,
    tensors: bool,
}

impl ToPython for LeRobotBatch {
    fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
        let py = owner.py();
        let torch = torch_module(py, self.tensors);
        let out = PyDict::new(py);
        for (name, value) in self.names.iter().zip(&self.values) {
            let value = match value {
                Typed::F32(a) => tensor(a.to_python(owner)?, torch.as_ref())?,
                Typed::I64(a) => tensor(a.to_python(owner)?, torch.as_ref())?,
                Typed::Bool(a) => tensor(a.to_python(owner)?, torch.as_ref())?,
                Typed::U8(a) => tensor(a.to_python(owner)?, torch.as_ref())?,
                Typed::Text(t) => PyString::new(py, t).into_any(),
                Typed::Texts(t) => PyList::new(py, t)?.into_any(),
            };
            out.set_item(name, value)?;
        }
        Ok(out.into_any())
    }
}

impl Recycle for LeRobotBatch {
    fn recycle(self, recycler: &mut Recycler) {
        for value in self.values {
            match value {
                Typed::F32(a) => a.recycle(recycler),
                Typed::I64(a) => a.recycle(recycler),
                Typed::Bool(a) => a.recycle(recycler),
                Typed::U8(a) => a.recycle(recycler),
                Typed::Text(_) | Typed::Texts(_) => {}
            }
        }
    }
}

/// The batch stage of a LeRobot dataset's loader: the collated batch in
/// lerobot's types (the cameras' frames to `float32` here, on the
/// loader's workers, not under the GIL).
pub(crate) struct LerobotTypes {
    typing: Typing,
    tensors: bool,
}

impl LerobotTypes {
    /// `batch` typed, new arrays' memory from `buffers`.
    fn typed(&self, batch: Record<FieldBatch>, buffers: Buffers<'_>) -> Result<LeRobotBatch> {
        let names = batch.shared_names();
        let values = names
            .iter()
            .zip(batch.into_values())
            .map(|(name, value)| self.typing.typed(name, value, buffers))
            .collect::<Result<_>>()?;
        Ok(LeRobotBatch {
            names,
            values,
            tensors: self.tensors,
        })
    }
}

impl Transform<Record<FieldBatch>> for LerobotTypes {
    type Output = LeRobotBatch;

    fn apply(&self, batch: Record<FieldBatch>) -> Result<LeRobotBatch> {
        self.typed(batch, Buffers::none())
    }

    /// In a loader: the float frames in the pool's memory, and the frames'
    /// `uint8` memory given back to it.
    fn apply_in(&self, cx: &dyn Context, batch: Record<FieldBatch>) -> Result<LeRobotBatch> {
        self.typed(batch, cx.buffers())
    }
}

/// A LeRobot dataset read natively (`adl.lerobot.LeRobotDataset` holds
/// one): its items in lerobot's types, read and decoded without the GIL.
#[pyclass(module = "adl.lerobot", name = "NativeLeRobot", frozen)]
pub(crate) struct LeRobot {
    dataset: RustLeRobot,
    typing: Typing,
}

impl LeRobot {
    /// The loader of this dataset, its settings applied by `apply`: its
    /// items collated (a batch's frames decoded grouped by file and group
    /// of pictures) and typed as lerobot types them, all in Rust; tensors
    /// where `tensors` and PyTorch is installed.
    pub(crate) fn loader(
        &self,
        apply: impl FnOnce(LeRobotBuilder) -> PyResult<LeRobotBuilder>,
        tensors: bool,
    ) -> PyResult<crate::RustLoader> {
        let pipeline = Stages::new()
            .with_collate(DefaultCollate)
            .with_batch(LerobotTypes {
                typing: self.typing.clone(),
                tensors,
            });
        let builder = apply(adl_graph::loader::Loader::new(
            self.dataset.clone(),
            pipeline,
        ))?;
        let loader = builder.build().map_err(to_python)?;
        Ok(crate::RustLoader::new(loader))
    }
}

/// The pipeline of a LeRobot dataset's loader.
pub(crate) type LeRobotPipeline =
    Stages<adl_core::transform::Identity, DefaultCollate, LerobotTypes>;

/// The builder of a LeRobot dataset's loader.
pub(crate) type LeRobotBuilder = adl_graph::loader::LoaderBuilder<RustLeRobot, LeRobotPipeline>;

/// The native dataset of `dataset` (an `adl.lerobot.LeRobotDataset`,
/// holding one as `_native`), where a loader can read it without Python:
/// none where it has `image_transforms` (Python code, run on each item).
pub(crate) fn native_of(dataset: &Bound<'_, PyAny>) -> Option<Py<LeRobot>> {
    let native = dataset.getattr("_native").ok()?;
    let native = native.cast::<LeRobot>().ok()?.clone().unbind();
    let transforms = dataset.getattr("image_transforms").ok()?;
    transforms.is_none().then_some(native)
}

#[pymethods]
impl LeRobot {
    #[new]
    #[pyo3(signature = (root, *, episodes = None, delta_timestamps = None, tolerance_s = 1e-4, uint8 = false, layout = "chw"))]
    fn new(
        py: Python<'_>,
        root: String,
        episodes: Option<Vec<i64>>,
        delta_timestamps: Option<Vec<(String, Vec<f64>)>>,
        tolerance_s: f64,
        uint8: bool,
        layout: &str,
    ) -> PyResult<Self> {
        if !(tolerance_s >= 0.0 && tolerance_s.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "tolerance_s is {tolerance_s}; it is a number of seconds, 0 or more"
            )));
        }
        let mut options = LeRobotOptions::default()
            .tolerance_s(tolerance_s)
            .layout(layout_of(layout)?);
        if let Some(episodes) = episodes {
            options = options.episodes(episodes);
        }
        if let Some(deltas) = delta_timestamps {
            options = options.delta_timestamps(deltas);
        }
        let dataset = py
            .detach(|| options.open(root.as_str()))
            .map_err(to_python)?;
        let typing = Typing {
            cameras: dataset.camera_keys().to_vec().into(),
            uint8,
        };
        Ok(LeRobot { dataset, typing })
    }

    fn __len__(&self) -> usize {
        self.dataset.len()
    }

    /// Item `index` (negative from the end) as a dict in lerobot's order
    /// and types: read and decoded without the GIL; tensors where
    /// `tensors` and PyTorch is installed, else NumPy arrays.
    #[pyo3(signature = (index, tensors = true))]
    fn item<'py>(
        &self,
        py: Python<'py>,
        index: isize,
        tensors: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let at = position(index, self.dataset.len(), "LeRobotDataset")?;
        let values: Vec<(String, Typed)> = py
            .detach(|| {
                let record = self.dataset.get(at)?;
                let names = record.names().to_vec();
                names
                    .into_iter()
                    .zip(record.into_values())
                    .map(|(name, field)| {
                        let value = self.typing.item_value(&name, field)?;
                        Ok((name, value))
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .map_err(to_python)?;
        let torch = torch_module(py, tensors);
        let out = PyDict::new(py);
        for (name, value) in values {
            let value = match value {
                Typed::F32(a) => tensor(
                    PyArrayDyn::from_owned_array(py, a).into_any(),
                    torch.as_ref(),
                )?,
                Typed::I64(a) => tensor(
                    PyArrayDyn::from_owned_array(py, a).into_any(),
                    torch.as_ref(),
                )?,
                Typed::Bool(a) => tensor(
                    PyArrayDyn::from_owned_array(py, a).into_any(),
                    torch.as_ref(),
                )?,
                Typed::U8(a) => tensor(
                    PyArrayDyn::from_owned_array(py, a).into_any(),
                    torch.as_ref(),
                )?,
                Typed::Text(t) => PyString::new(py, &t).into_any(),
                Typed::Texts(t) => PyList::new(py, t)?.into_any(),
            };
            out.set_item(name, value)?;
        }
        Ok(out)
    }

    /// Frames per second.
    #[getter]
    fn fps(&self) -> f64 {
        self.dataset.fps()
    }

    /// The `episode_index` of each episode read, in order.
    #[getter]
    fn episode_indices(&self) -> Vec<i64> {
        self.dataset.episode_indices()
    }

    /// The episodes read, in order: each one's `episode_index`, `tasks`,
    /// `length`, and for v3.0 `dataset_from_index` and `dataset_to_index`.
    #[getter]
    fn episodes<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.dataset
            .episode_metas()
            .map(|meta| {
                let out = PyDict::new(py);
                out.set_item("episode_index", meta.index)?;
                out.set_item("tasks", meta.tasks.clone())?;
                out.set_item("length", meta.length)?;
                if let Some(from) = meta.from_index {
                    out.set_item("dataset_from_index", from)?;
                    out.set_item("dataset_to_index", from + meta.length as i64)?;
                }
                Ok(out)
            })
            .collect()
    }

    /// The keys of every item, in order.
    #[getter]
    fn keys(&self) -> Vec<String> {
        self.dataset.keys().to_vec()
    }

    /// The cameras (features stored as videos).
    #[getter]
    fn camera_keys(&self) -> Vec<String> {
        self.dataset.camera_keys().to_vec()
    }

    /// The tasks, by `task_index`.
    #[getter]
    fn tasks(&self) -> Vec<String> {
        self.dataset.tasks().to_vec()
    }

    /// The format's version ("v3.0" or "v2.1").
    #[getter]
    fn version(&self) -> &'static str {
        self.dataset.version().name()
    }

    /// The episodes left out, each `(episode_index, reason)`.
    #[getter]
    fn skipped(&self) -> Vec<(i64, String)> {
        self.dataset.skipped().to_vec()
    }

    /// Whether cameras stay `uint8`.
    #[getter]
    fn uint8(&self) -> bool {
        self.typing.uint8
    }

    fn __repr__(&self) -> String {
        format!(
            "NativeLeRobot({}, {} episodes, {} frames)",
            self.dataset.root(),
            self.dataset.num_episodes(),
            self.dataset.len()
        )
    }
}

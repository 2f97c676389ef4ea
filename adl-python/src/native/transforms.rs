//! `adl.transforms`: adl's own transforms and batch kernels as Python
//! objects, to compose into an `adl.Pipeline` whose nodes run in Rust
//! without the GIL: a random resized crop (of an array, or of a frame
//! still in its file, decoding only the crop), a whole decode and a
//! random flip for samples;
//! a uint8-to-float conversion, a per-channel normalisation, an affine map
//! and a clamp for batches. Each applies to the arrays of the sample's or
//! batch's keys it is listed under, and says which array it could not take.

use adl_core::description::Stage;
use adl_core::transform::ImageLayout;
use adl_files::CropDecoder;
use adl_ops::image::RandomResizedCrop as RustCrop;
use adl_ops::kernel::{
    Affine as RustAffine, Clamp as RustClamp, Normalize as RustNormalize, U8ToF32,
};
use adl_value::Step;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::made_from::{MadeFrom, kwargs};

/// An image layout from its name.
fn layout(name: &str) -> PyResult<ImageLayout> {
    match name {
        "hwc" => Ok(ImageLayout::Hwc),
        "chw" => Ok(ImageLayout::Chw),
        other => Err(PyValueError::new_err(format!(
            "an image layout is \"hwc\" ([height, width, channels]) or \"chw\", not {other:?}"
        ))),
    }
}

/// A transform of adl's, to list in an `adl.Pipeline` under the keys of
/// the values it transforms. It runs in Rust, without the GIL.
#[pyclass(module = "adl.transforms", subclass, frozen)]
pub(crate) struct Transform {
    step: Step,
    made: MadeFrom,
}

impl Transform {
    /// The step the transform is.
    pub(crate) fn step(&self) -> &Step {
        &self.step
    }

    fn of(step: Step, made: MadeFrom) -> PyClassInitializer<Transform> {
        PyClassInitializer::from(Transform { step, made })
    }
}

#[pymethods]
impl Transform {
    /// Pickled by what it was made from (its class and arguments, see
    /// `adl._pickle`).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.made.reduce(py)
    }

    /// The node's name, as statistics and plans show it.
    #[getter]
    fn name(&self) -> String {
        self.step.info().name.to_string()
    }

    /// `"sample"` or `"batch"`: the stage the transform belongs in.
    #[getter]
    fn stage(&self) -> &'static str {
        match self.step.info().stage {
            Stage::Batch => "batch",
            _ => "sample",
        }
    }

    fn __repr__(&self) -> String {
        format!("<adl.transforms {}: {}>", self.name(), self.step.info().doc)
    }
}

/// torchvision's `RandomResizedCrop(size, scale, ratio)` on uint8 images
/// (`[H, W, C]`, or `[C, H, W]` with `layout="chw"`): a random region,
/// resized to `size` (an int, or `(height, width)`) with antialiasing. Its
/// draws depend on (the loader's seed, the epoch, the sample, the node)
/// only. A sample transform.
///
/// On a frame still in its file (`files.Images(...).encoded()`) it decodes
/// only the crop, where the decoder allows (a JPEG, in a build with
/// libjpeg-turbo): the same region, the rows above it skipped, the rows
/// below and the columns beside it not decoded; and, where the region is
/// at least twice `size` on both sides, at 1/2, 1/4 or 1/8 scale (a few
/// values off the whole decode's crop; `scaled_decode=False` keeps the
/// pixels equal to it).
#[pyclass(module = "adl.transforms", extends = Transform, frozen)]
pub(crate) struct RandomResizedCrop;

#[pymethods]
impl RandomResizedCrop {
    #[new]
    // The defaults as Python writes them: PyO3 shows a Rust expression's
    // as `...`, and Python's signature parser takes literals only (4/3 as
    // the float it is).
    #[pyo3(
        signature = (size, *, scale = (0.08, 1.0), ratio = (0.75, 4.0 / 3.0), layout = "hwc", scaled_decode = true),
        text_signature = "(size, *, scale=(0.08, 1.0), ratio=(0.75, 1.3333333333333333), layout=\"hwc\", scaled_decode=True)"
    )]
    fn new(
        py: Python<'_>,
        size: &Bound<'_, PyAny>,
        scale: (f64, f64),
        ratio: (f64, f64),
        layout: &str,
        scaled_decode: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        let made = MadeFrom::class::<RandomResizedCrop>(
            py,
            (size.clone(),),
            kwargs!(py; "scale" => scale, "ratio" => ratio, "layout" => layout, "scaled_decode" => scaled_decode),
        )?;
        let (height, width) = match size.extract::<usize>() {
            Ok(side) => (side, side),
            Err(_) => size.extract::<(usize, usize)>().map_err(|_| {
                PyValueError::new_err(format!(
                    "a crop's size is an int or (height, width), not {}",
                    size.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                ))
            })?,
        };
        if height == 0 || width == 0 {
            return Err(PyValueError::new_err(format!(
                "a crop's size is at least 1 x 1, not {height} x {width}"
            )));
        }
        for (what, (low, high)) in [("scale", scale), ("ratio", ratio)] {
            if !(low.is_finite() && high.is_finite() && low > 0.0 && low <= high) {
                return Err(PyValueError::new_err(format!(
                    "a crop's {what} is a range of positive numbers, its minimum first, not ({low}, {high})"
                )));
            }
        }
        let crop = RustCrop::with_size(height, width)
            .scale(scale.0, scale.1)
            .ratio(ratio.0, ratio.1)
            .layout(self::layout(layout)?);
        let decoder = match scaled_decode {
            true => CropDecoder::new(crop),
            false => CropDecoder::new(crop).exact(),
        };
        Ok(Transform::of(Step::Crop(decoder), made).add_subclass(RandomResizedCrop))
    }
}

/// A camera frame still in its file (`files.Images(...).encoded()`)
/// decoded whole, as its sensor decodes it (its layout and downscale). A
/// sample transform.
#[pyclass(module = "adl.transforms", extends = Transform, frozen)]
pub(crate) struct Decode;

#[pymethods]
impl Decode {
    #[new]
    fn new(py: Python<'_>) -> PyResult<PyClassInitializer<Self>> {
        let made = MadeFrom::class::<Decode>(py, (), kwargs!(py))?;
        Ok(Transform::of(Step::Decode, made).add_subclass(Decode))
    }
}

/// A horizontal mirror image with probability `p` (torchvision's
/// `RandomHorizontalFlip(p)`), on images of any dtype (`[H, W, C]`, or
/// `[C, H, W]` with `layout="chw"`). A sample transform.
#[pyclass(module = "adl.transforms", extends = Transform, frozen)]
pub(crate) struct RandomFlip;

#[pymethods]
impl RandomFlip {
    #[new]
    #[pyo3(signature = (p = 0.5, *, layout = "hwc"))]
    fn new(py: Python<'_>, p: f64, layout: &str) -> PyResult<PyClassInitializer<Self>> {
        let made = MadeFrom::class::<RandomFlip>(py, (p,), kwargs!(py; "layout" => layout))?;
        if !(0.0..=1.0).contains(&p) {
            return Err(PyValueError::new_err(format!(
                "a flip's probability is in [0, 1], not {p}"
            )));
        }
        let layout = self::layout(layout)?;
        Ok(Transform::of(Step::Flip { p, layout }, made).add_subclass(RandomFlip))
    }
}

/// uint8 to float32, divided by `divide` (255 by default: values in [0,
/// 1]). A batch kernel.
#[pyclass(module = "adl.transforms", extends = Transform, frozen)]
pub(crate) struct ToFloat;

#[pymethods]
impl ToFloat {
    #[new]
    #[pyo3(signature = (divide = 255.0))]
    fn new(py: Python<'_>, divide: f32) -> PyResult<PyClassInitializer<Self>> {
        let made = MadeFrom::class::<ToFloat>(py, (divide,), kwargs!(py))?;
        if !(divide.is_finite() && divide != 0.0) {
            return Err(PyValueError::new_err(format!(
                "ToFloat divides by a finite number other than 0, not {divide}"
            )));
        }
        Ok(Transform::of(Step::ToFloat(U8ToF32::divide(divide)), made).add_subclass(ToFloat))
    }
}

/// `(v - mean[c]) / std[c]` on float32 batches, `c` the index along axis 1
/// (`[batch, channel, ...]`: images with `layout="chw"`); one mean and std
/// for every channel as one value each. A batch kernel.
#[pyclass(module = "adl.transforms", extends = Transform, frozen)]
pub(crate) struct Normalize;

#[pymethods]
impl Normalize {
    #[new]
    fn new(
        py: Python<'_>,
        mean: &Bound<'_, PyAny>,
        std: &Bound<'_, PyAny>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let made = MadeFrom::class::<Normalize>(py, (mean.clone(), std.clone()), kwargs!(py))?;
        let values = |what: &str, given: &Bound<'_, PyAny>| -> PyResult<Vec<f32>> {
            let values = match given.extract::<f32>() {
                Ok(one) => vec![one],
                Err(_) => given.extract::<Vec<f32>>().map_err(|_| {
                    PyValueError::new_err(format!(
                        "Normalize's {what} is a number or a sequence of numbers, one per channel"
                    ))
                })?,
            };
            if values.is_empty() {
                return Err(PyValueError::new_err(format!(
                    "Normalize's {what} is empty"
                )));
            }
            Ok(values)
        };
        let (mean, std) = (values("mean", mean)?, values("std", std)?);
        if mean.len() != std.len() {
            return Err(PyValueError::new_err(format!(
                "Normalize has {} means and {} stds; give one of each per channel",
                mean.len(),
                std.len()
            )));
        }
        if let Some(zero) = std.iter().find(|s| !(s.is_finite() && **s != 0.0)) {
            return Err(PyValueError::new_err(format!(
                "Normalize divides by each std; {zero} is not a finite number other than 0"
            )));
        }
        Ok(
            Transform::of(Step::Normalize(RustNormalize::per_channel(mean, std)), made)
                .add_subclass(Normalize),
        )
    }
}

/// `v * scale + offset` on float32 batches. A batch kernel.
#[pyclass(module = "adl.transforms", extends = Transform, frozen)]
pub(crate) struct Affine;

#[pymethods]
impl Affine {
    #[new]
    fn new(py: Python<'_>, scale: f32, offset: f32) -> PyResult<PyClassInitializer<Self>> {
        let made = MadeFrom::class::<Affine>(py, (scale, offset), kwargs!(py))?;
        Ok(Transform::of(Step::Affine(RustAffine::new(scale, offset)), made).add_subclass(Affine))
    }
}

/// float32 values clamped into `[low, high]`. A batch kernel.
#[pyclass(module = "adl.transforms", extends = Transform, frozen)]
pub(crate) struct Clamp;

#[pymethods]
impl Clamp {
    #[new]
    fn new(py: Python<'_>, low: f32, high: f32) -> PyResult<PyClassInitializer<Self>> {
        let made = MadeFrom::class::<Clamp>(py, (low, high), kwargs!(py))?;
        // NaN bounds compare as neither: refused with the rest.
        if low.partial_cmp(&high).is_none_or(|order| order.is_gt()) {
            return Err(PyValueError::new_err(format!(
                "Clamp's low is at most its high, not {low} and {high}"
            )));
        }
        Ok(Transform::of(Step::Clamp(RustClamp::new(low, high)), made).add_subclass(Clamp))
    }
}

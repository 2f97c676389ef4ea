//! [`Step`]: one of adl's transforms as a pipeline composed at run time
//! runs it, on the [`Value`] at a path of the sample or batch.

use std::fmt;

use adl_core::Transform as _;
use adl_core::description::{Node, NodeInfo, Stage};
use adl_core::transform::ImageLayout;
use adl_core::{Error, Result};
use adl_exec::Context;
use adl_files::CropDecoder;
use adl_ops::image::RandomFlip as RustFlip;
use adl_ops::kernel::{
    Affine as RustAffine, Clamp as RustClamp, Normalize as RustNormalize, U8ToF32,
};
use ndarray::{Array3, ArrayD, Ix3, IxDyn};

use crate::array::{AnyArray, Dtype};
use crate::value::{Encoded, Path, Value};

/// One of adl's transforms, as an `adl.Pipeline` runs it.
#[derive(Debug, Clone)]
pub enum Step {
    /// A random region of an image, resized; of a frame still in its
    /// file, decoded only there.
    Crop(CropDecoder),
    /// A frame still in its file, decoded whole.
    Decode,
    /// A mirror image with probability `p`.
    Flip {
        /// The chance of a flip.
        p: f64,
        /// Where an image's width is.
        layout: ImageLayout,
    },
    /// uint8 to float32, divided.
    ToFloat(U8ToF32<IxDyn>),
    /// Per-channel normalisation of float32 batches.
    Normalize(RustNormalize<IxDyn>),
    /// `v * scale + offset` on float32.
    Affine(RustAffine<IxDyn>),
    /// float32 values into `[low, high]`.
    Clamp(RustClamp<IxDyn>),
}

impl Step {
    /// The node's description: its name, stage, types and doc, as the
    /// Rust node's own.
    pub fn info(&self) -> NodeInfo {
        match self {
            Step::Crop(decoder) => decoder.crop().info(),
            Step::Decode => NodeInfo::new("decode", Stage::Sample).with_doc(
                "Decode a frame still in its file, whole, as its sensor decodes it (built-in).",
            ),
            Step::Flip { p, layout } => RustFlip::<u8>::horizontal()
                .probability(*p)
                .layout(*layout)
                .info(),
            Step::ToFloat(node) => node.info(),
            Step::Normalize(node) => node.info(),
            Step::Affine(node) => node.info(),
            Step::Clamp(node) => node.info(),
        }
    }

    /// `value` (at `path` of the sample or batch) transformed in `cx`.
    pub fn apply(&self, cx: &dyn Context, value: Value, path: &Path) -> Result<Value> {
        let name = || self.info().name.to_string();
        let array = match (self, value) {
            (Step::Crop(decoder), Value::Encoded(Encoded(frame))) => {
                return Ok(Value::Array(AnyArray::U8(
                    decoder.apply_in(cx, frame)?.into_dyn(),
                )));
            }
            (Step::Decode, Value::Encoded(Encoded(frame))) => {
                return Ok(Value::Array(AnyArray::U8(frame.decode()?.into_dyn())));
            }
            (_, Value::Array(array)) => array,
            (_, other) => return Err(refused(&name(), self.takes(), path, &other.kind())),
        };
        let refuse = |array: &AnyArray| {
            refused(
                &name(),
                self.takes(),
                path,
                &format!("{} array of shape {:?}", array.dtype(), array.shape()),
            )
        };
        let out = match (self, array) {
            (Step::Crop(decoder), AnyArray::U8(image)) if image.ndim() == 3 => {
                let image = into_3d(image)?;
                AnyArray::U8(decoder.crop().apply_in(cx, image)?.into_dyn())
            }
            (Step::Flip { p, layout }, array) if array.shape().len() == 3 => {
                crate::each_array!(array, a => flip(cx, *p, *layout, a)?)
            }
            (Step::ToFloat(node), AnyArray::U8(a)) => AnyArray::F32(node.apply_in(cx, a)?),
            (Step::Normalize(node), AnyArray::F32(a)) => AnyArray::F32(node.apply_in(cx, a)?),
            (Step::Affine(node), AnyArray::F32(a)) => AnyArray::F32(node.apply_in(cx, a)?),
            (Step::Clamp(node), AnyArray::F32(a)) => AnyArray::F32(node.apply_in(cx, a)?),
            (_, array) => return Err(refuse(&array)),
        };
        Ok(Value::Array(out))
    }

    /// What the step takes, for messages.
    fn takes(&self) -> &'static str {
        match self {
            Step::Crop(_) => "a uint8 image of 3 axes, or an encoded frame",
            Step::Decode => "an encoded frame (files.Images(...).encoded())",
            Step::Flip { .. } => "an image of 3 axes",
            Step::ToFloat(_) => "a uint8 array",
            Step::Normalize(_) | Step::Affine(_) | Step::Clamp(_) => "a float32 array",
        }
    }
}

/// A step given what it does not take.
fn refused(node: &str, takes: &str, path: &Path, got: &str) -> Error {
    Error::invalid(
        format_args!("{node} on {path}"),
        format!("it takes {takes}, and {path} is a {got}"),
    )
}

/// A dynamic array of 3 axes as an `Array3`.
fn into_3d<T>(array: ArrayD<T>) -> Result<Array3<T>> {
    array
        .into_dimensionality::<Ix3>()
        .map_err(|e| Error::internal("adl.transforms", e))
}

/// [`RustFlip`] on an image of any element type.
fn flip<T: Dtype>(
    cx: &dyn Context,
    p: f64,
    layout: ImageLayout,
    image: ArrayD<T>,
) -> Result<AnyArray> {
    let flip = RustFlip::<T>::horizontal().probability(p).layout(layout);
    Ok(T::wrap(flip.apply_in(cx, into_3d(image)?)?.into_dyn()))
}

/// What the step does, in words (its node's doc).
impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.info().doc)
    }
}

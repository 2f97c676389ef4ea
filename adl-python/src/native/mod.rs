//! A pipeline composed in Python of adl's own transforms (`adl.Pipeline`,
//! `adl.transforms`) over samples of any shape ([`Value`]): with adl's
//! sensors under `adl.Loader`, a batch is read, transformed, collated and
//! transformed again in Rust without the GIL.

mod pipeline;
mod source;
mod transforms;
mod value;
pub(crate) use value::into_python;

pub(crate) use adl_value::{AnyArray, Encoded, Value};
pub(crate) use pipeline::Pipeline;
pub(crate) use source::{Source, is_adl_dataset, native_dataset};
pub(crate) use transforms::{
    Affine, Clamp, Decode, Normalize, RandomFlip, RandomResizedCrop, ToFloat, Transform,
};

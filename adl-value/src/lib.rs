//! A sample of any shape and a pipeline composed at run time: what a
//! program that does not know its samples' types when it is compiled (a
//! Python program, through adl's bindings) runs, in Rust, without Python.
//!
//! - [`Value`]: a sample or a batch as named values in order, arrays of
//!   adl's element types ([`AnyArray`]), and camera frames still in their
//!   files; [`Path`], where a value is in a sample.
//! - [`Step`]: one of adl's transforms (a random resized crop that decodes
//!   only the crop, a decode, a flip, the batch kernels) on the value at a
//!   path.
//! - [`stack`]: samples of one shape stacked into a batch, dict by dict.
//! - [`ValueTraces`]: traces of [`ValueSensor`]s (adl's sensors as the
//!   bindings hold them) one after another, synchronized by each sensor's
//!   index for every sample: the dataset such a pipeline reads in Rust.
//! - [`ValuePipeline`]: steps (or any transform of values) under the keys
//!   of the sample, a stack between them: an `adl_core::Pipeline` of
//!   [`Value`]s that the loader runs as it runs any other.
//!
//! The bindings only convert: a Python dict of NumPy arrays to a
//! [`Value`] and back, a Python callable to a transform of values.

mod array;
mod pipeline;
mod stack;
mod step;
mod traces;
mod value;

pub use array::{AnyArray, DTYPES, Dtype};
pub use pipeline::{Keyed, Node, Other, ValuePipeline};
pub use stack::stack;
pub use step::Step;
pub use traces::{TraceSensor, ValueSensor, ValueTrace, ValueTraces};
pub use value::{Encoded, Path, Value};

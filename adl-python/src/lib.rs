//! `adl._native`: the Rust half of the Python package `adl` (its Python
//! half is `python/adl`). Built by maturin (`pip install ./adl-python`)
//! as one extension on Python's stable ABI (abi3, from 3.9; the package
//! asks for Python 3.10 or later).
//!
//! As a Rust library (feature `module` off), it lets a crate hand a
//! loader of its own to Python: [`RustLoader::new`] over a loader whose
//! batches are [`ToPython`] (see `examples/python_px4`).
//!
//! What it holds, each a module here and a name in the package:
//!
//! - the synchronization policies of abstract-dataloader 0.4.7's
//!   `generic` module (`Empty`, `Next`, `Nearest`), computed by adl-core
//!   with the GIL released (`sync`, with `margin` and `timestamps` for
//!   their arguments and results; `adl.generic` offers them under the
//!   reference's names, beside its `Decimate`);
//! - its `abstract.Trace` and `abstract.Dataset` as `adl.Trace` and
//!   `adl.Dataset`, over Python sensors and adl's own (`trace`,
//!   `dataset`);
//! - adl's file-backed sensors as `adl.files` (`files`: `Images`, `Npy`,
//!   `Table`; `video`: `Video`, MP4 videos; `rover`: `RoverSensor`,
//!   roverd's sensor folders), LeRobot datasets as `adl.lerobot`
//!   (`lerobot`, read, decoded and collated in Rust), and PX4
//!   flight logs as `adl.px4` (`px4`), read and decoded with the GIL
//!   released into NumPy arrays over adl's buffers, and robot logs
//!   (rosbag2, MCAP, ROS 1 bags) as `adl.ros` (`ros`), each message a
//!   dict of its fields;
//! - `adl.default_collate`, PyTorch's with NumPy arrays out (`collate`);
//! - `adl.Loader` and `adl.LoaderError`, adl's loader over a Python
//!   dataset and pipeline (`loader`, calling Python through
//!   `python_data` and counting what the calls cost in `gil`; `states`
//!   for its `state_dict`);
//! - `adl.Pipeline` and `adl.transforms`, adl's own transforms and batch
//!   kernels composed in Python and run in Rust without the GIL
//!   (`native`);
//! - [`RustLoader`] and [`ToPython`], a loader written in Rust handed to
//!   Python, its batches NumPy arrays over the loader's pooled buffers
//!   (`rust_loader`, `to_python`);
//! - Python exceptions for adl's errors (`errors`), and no call into
//!   Python from adl's threads once the interpreter exits (`exit`).

#[cfg(feature = "module")]
use pyo3::prelude::*;

mod collate;
mod dataset;
mod errors;
mod exit;
mod files;
mod gil;
mod interpolated;
mod lerobot;
mod loader;
mod made_from;
mod margin;
mod native;
mod processes;
mod px4;
mod python_data;
mod ros;
mod rover;
mod rust_loader;
mod shared_blocks;
mod states;
mod sync;
mod timestamps;
mod to_python;
mod trace;
mod video;

pub use errors::LoaderError;
pub use errors::to_python as python_error;
pub use rust_loader::{BatchMemory, RustLoader, RustLoaderEpoch};
pub use to_python::{Owner, ToPython};

/// How adl was compiled, `"release"` or `"debug"` (`adl.BUILD`).
pub use adl_core::BUILD;

/// The module `adl._native`.
#[cfg(feature = "module")]
// No state of the module's relies on the GIL to be safe (its locks are
// Rust's, its counters atomic, its classes frozen or borrow-checked): on a
// free-threaded CPython it runs without one.
#[pymodule(gil_used = false)]
#[pyo3(name = "_native")]
fn native_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<sync::Empty>()?;
    module.add_class::<sync::Next>()?;
    module.add_class::<sync::Nearest>()?;
    module.add_class::<trace::Trace>()?;
    module.add_class::<interpolated::Interpolated>()?;
    module.add_class::<dataset::Dataset>()?;
    module.add_class::<loader::Loader>()?;
    module.add_class::<loader::Epoch>()?;
    module.add_class::<files::Metadata>()?;
    module.add_class::<files::Images>()?;
    module.add_class::<files::EncodedImages>()?;
    module.add_class::<files::Npy>()?;
    module.add_class::<files::Table>()?;
    module.add_class::<files::Stream>()?;
    module.add_class::<video::Video>()?;
    module.add_class::<lerobot::LeRobot>()?;
    module.add_class::<rover::RoverSensor>()?;
    module.add_class::<px4::Log>()?;
    module.add_class::<px4::Topic>()?;
    module.add_class::<ros::Bag>()?;
    module.add_class::<ros::RosTopic>()?;
    module.add_class::<ros::RosView>()?;
    module.add_function(wrap_pyfunction!(collate::default_collate, module)?)?;
    module.add_class::<RustLoader>()?;
    module.add_class::<RustLoaderEpoch>()?;
    module.add_class::<BatchMemory>()?;
    module.add_class::<native::Pipeline>()?;
    module.add_class::<native::Transform>()?;
    module.add_class::<native::RandomResizedCrop>()?;
    module.add_class::<native::Decode>()?;
    module.add_class::<native::RandomFlip>()?;
    module.add_class::<native::ToFloat>()?;
    module.add_class::<native::Normalize>()?;
    module.add_class::<native::Affine>()?;
    module.add_class::<native::Clamp>()?;
    module.add("LoaderError", module.py().get_type::<errors::LoaderError>())?;
    module.add("BUILD", BUILD)?;
    exit::register(module)?;
    Ok(())
}

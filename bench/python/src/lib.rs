//! The module `adl_bench`: adl-bench's W2 loader (`adl_bench::w2_loader`,
//! the loader `adl-bench --workload w2` times) handed to Python, so that
//! `bench_w2.py` times the same loader through Python, its batches NumPy
//! arrays (`float32 [64, 3, 64, 64]`, no copy).

use adl_python::{RustLoader, python_error};
use pyo3::prelude::*;

/// W2's loader over its first `samples` samples, on `workers` threads.
#[pyfunction]
#[pyo3(signature = (samples = 20_000, workers = 2))]
fn w2(samples: usize, workers: usize) -> PyResult<RustLoader> {
    let loader = adl_bench::w2_loader(samples, workers).map_err(python_error)?;
    Ok(RustLoader::new(loader))
}

/// The module `adl_bench`.
#[pymodule]
#[pyo3(name = "adl_bench")]
fn bench_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    // How this module was compiled (`adl.BUILD`'s value for it).
    module.add("BUILD", adl_python::BUILD)?;
    module.add_function(wrap_pyfunction!(w2, module)?)
}

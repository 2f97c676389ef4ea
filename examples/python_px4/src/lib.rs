//! A loader written in Rust, handed to Python: a PX4 flight log
//! synchronized into a trace and batched by the `px4_trace` example's
//! `pipeline!` (`examples/shared/px4_pipeline.rs`), its batches NumPy
//! arrays in Python, made without the GIL.
//!
//! ```sh
//! pip install ./examples/python_px4
//! python -c "import px4_loader; print(next(iter(px4_loader.open('tests/data/px4/pixhawk4-sample-small.ulg').epoch(0))))"
//! ```
//!
//! What it takes, beside the loader itself: a [`ToPython`] for the batch
//! type (a few lines), a `#[pyfunction]` that returns
//! [`RustLoader::new`] of the loader, and the module.

use adl::files::px4::{Px4Log, TopicSensor};
use adl::graph::loader::Loader;
use adl::sync::Nearest;
use adl::{Error, Recording, Sensor};
use adl_python::{Owner, RustLoader, ToPython, python_error};
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[path = "../../shared/px4_pipeline.rs"]
#[allow(unreachable_pub, dead_code)]
mod px4_pipeline;

use px4_pipeline::{FlightBatch, flight_pipeline};

/// A batch as Python gets it: `{"imu": {"gyro", "accel"}, "pose":
/// {"attitude", "position", "altitude"}}`, arrays `[batch, ...]` viewing
/// the batch's buffers (back to the loader's pool when Python frees them).
impl ToPython for FlightBatch {
    fn to_python<'b, 'py>(&'b self, owner: &Owner<'b, 'py>) -> PyResult<Bound<'py, PyAny>> {
        let py = owner.py();
        let imu = PyDict::new(py);
        imu.set_item("gyro", self.imu.gyro.to_python(owner)?)?;
        imu.set_item("accel", self.imu.accel.to_python(owner)?)?;
        let pose = PyDict::new(py);
        pose.set_item("attitude", self.pose.attitude.to_python(owner)?)?;
        pose.set_item("position", self.pose.position.to_python(owner)?)?;
        pose.set_item("altitude", self.pose.altitude.to_python(owner)?)?;
        let batch = PyDict::new(py);
        batch.set_item("imu", imu)?;
        batch.set_item("pose", pose)?;
        Ok(batch.into_any())
    }
}

/// The topics the pipeline reads, by role (the GPS optional).
const ROLES: [&[&str]; 4] = [
    &["sensor_combined"],
    &["vehicle_attitude"],
    &["vehicle_local_position"],
    &["vehicle_gps_position", "sensor_gps"],
];

/// A loader over the PX4 log `log`: Nearest to the GPS (else the local
/// position) within half the slowest other sensor's period, then the
/// example's pipeline, in batches of `batch_size` on `workers` threads,
/// shuffled by `shuffle` (a seed) or in order.
#[pyfunction]
#[pyo3(signature = (log, batch_size = 32, workers = 2, shuffle = None))]
fn open(
    log: &str,
    batch_size: usize,
    workers: usize,
    shuffle: Option<u64>,
) -> PyResult<RustLoader> {
    let loader = || -> adl::Result<RustLoader> {
        let log = Px4Log::open(log)?;
        let sensors: Vec<TopicSensor> = ROLES
            .iter()
            .filter_map(|topics| topics.iter().find_map(|t| log.sensor(t).ok()))
            .cloned()
            .collect();
        let reference = [
            "vehicle_gps_position",
            "sensor_gps",
            "vehicle_local_position",
        ]
        .into_iter()
        .find(|name| sensors.iter().any(|s| s.name() == *name))
        .ok_or_else(|| Error::invalid("log", "it has neither a GPS nor a local position"))?;
        let tolerance = sensors
            .iter()
            .filter(|s| s.name() != reference)
            .filter_map(Sensor::framerate)
            .map(|hz| 0.5 / hz)
            .fold(0.0, f64::max);
        let trace = Recording::new("px4", sensors, &Nearest::new(reference, tolerance)?)?;
        let mut builder = Loader::new(trace, flight_pipeline())
            .batch_size(batch_size)
            .workers(workers);
        if let Some(seed) = shuffle {
            builder = builder.shuffle(seed);
        }
        Ok(RustLoader::new(builder.build()?))
    };
    loader().map_err(python_error)
}

/// The module `px4_loader`.
#[pymodule]
fn px4_loader(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(open, module)?)
}

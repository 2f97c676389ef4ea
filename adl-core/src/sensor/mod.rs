//! Ready-made sensors: [`Series`] (timestamps plus a loader) and [`Window`]
//! (a window of samples around each one), and [`SensorDataset`] (a sensor
//! read as a dataset).

// HELPER: mod dataset;
mod series;
// HELPER: mod window;

// HELPER: pub use dataset::SensorDataset;
pub use series::Series;
// HELPER: pub use window::Window;

//! Ready-made sensors: [`Series`] (timestamps plus a loader) and [`Window`]
//! (a window of samples around each one), and [`SensorDataset`] (a sensor
//! read as a dataset).

mod dataset;
mod series;
mod window;

pub use dataset::SensorDataset;
pub use series::Series;
pub use window::{Window, WindowMetadata};

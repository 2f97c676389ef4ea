//! Ready-made sensors: [`Series`] (timestamps plus a loader), [`Window`]
//! (a window of samples around each one), [`Mapped`] and [`TryMapped`]
//! (a function applied to every sample), [`BoxedSensor`] (a sensor with
//! its type erased), [`Interpolated`] (a sensor evaluated at another's
//! times), and [`SensorDataset`] (a sensor read as a dataset).

mod boxed;
mod dataset;
mod interpolated;
mod mapped;
mod series;
mod window;

pub use boxed::BoxedSensor;
pub use dataset::SensorDataset;
pub use interpolated::{Gaps, Interpolated, InterpolatedFrom};
pub use mapped::{Mapped, TryMapped};
pub use series::Series;
pub use window::{Window, WindowMetadata};

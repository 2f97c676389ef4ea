use crate::{Indices, Result, Synchronization, Timestamps};

/// No synchronized samples: an empty index array for every sensor.
///
/// For a trace that is only a container of sensors, read through
/// [`Trace::sensor`](crate::Trace::sensor). Timestamps are still checked,
/// and empty sensors are fine.
///
/// ```
/// use adl::{Synchronization, sync::Empty};
///
/// let idx = Empty.synchronize(&[("a", &[0.0, 1.0][..]), ("b", &[][..])])?;
/// assert_eq!((idx.len(), idx.names().len()), (0, 2));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Empty;

impl Synchronization for Empty {
    fn synchronize(&self, timestamps: &[(&str, &[f64])]) -> Result<Indices> {
        Timestamps::validate_all(timestamps)?;
        Ok(Indices::empty(timestamps.iter().map(|(n, _)| *n)))
    }
}

use crate::{Indices, Result};

/// A rule that turns asynchronous sensors into synchronized samples.
///
/// Given every sensor's timestamps, in the trace's order, it returns one
/// index array per sensor, all of the same length `M`: global sample `i` of
/// the trace is `{s: sensor_s[indices[s][i]]}`. A trace evaluates its
/// synchronization **once**, when it is built.
///
/// Implementations check their input: timestamps must be finite and sorted
/// (see [`Timestamps::validate`](crate::Timestamps::validate)), and every
/// index they return must be in range for its sensor.
///
/// The policies shipped are [`Empty`](crate::sync::Empty),
/// [`Next`](crate::sync::Next), [`Nearest`](crate::sync::Nearest) and
/// [`Decimate`](crate::sync::Decimate).
pub trait Synchronization {
    /// Synchronize `timestamps`: `(sensor name, timestamps)` pairs in trace
    /// order. The result lists the sensors in the same order.
    fn synchronize(&self, timestamps: &[(&str, &[f64])]) -> Result<Indices>;
}

impl<S: Synchronization + ?Sized> Synchronization for &S {
    fn synchronize(&self, timestamps: &[(&str, &[f64])]) -> Result<Indices> {
        (**self).synchronize(timestamps)
    }
}

impl<S: Synchronization + ?Sized> Synchronization for Box<S> {
    fn synchronize(&self, timestamps: &[(&str, &[f64])]) -> Result<Indices> {
        (**self).synchronize(timestamps)
    }
}

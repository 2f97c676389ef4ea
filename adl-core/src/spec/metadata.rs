/// A sensor's metadata: what is kept in memory about it.
///
/// The specification asks only for `timestamps`: the time of every sample,
/// in seconds, as `f64` (about 1 µs resolution at epoch scale). They must be
/// consistent within a trace, not across traces. Keep metadata small: all of
/// it stays in memory while training; anything large is data, loaded by the
/// sensor.
///
/// [`Timestamps`](crate::Timestamps) is the ready-made, validated
/// implementation.
pub trait Metadata {
    /// The time of every sample, in seconds, non-decreasing.
    fn timestamps(&self) -> &[f64];
}

impl<M: Metadata + ?Sized> Metadata for &M {
    fn timestamps(&self) -> &[f64] {
        (**self).timestamps()
    }
}

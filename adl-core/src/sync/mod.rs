//! Synchronization policies: which sample of every sensor forms global
//! sample `i` of a trace.
//!
//! | policy | rows | each sensor's index |
//! |---|---|---|
//! | [`Empty`] | none | — |
//! | [`Next`] | reference samples inside the sensors' common window | first sample at or after the reference time |
//! | [`Nearest`] | same, then only rows where every sensor is within the tolerance | nearest sample (an exact midpoint goes to the earlier one) |
//! | [`Decimate`] | every `factor`-th row of another policy | that policy's |
//!
//! [`Next`] and [`Nearest`] follow abstract-dataloader 0.4.7: each sensor may
//! be trimmed by a [`Margin`] (in samples or in seconds, for all sensors or
//! per sensor), the common window is `[latest start, earliest end]`
//! **inclusive**, and the reference sensor's samples inside it are the rows.
//! Every policy checks its input timestamps and every index it returns is in
//! range; the divergences from the reference are listed in
//! `docs/divergences.md`.
//!
//! A policy picks samples; to evaluate a sensor *between* its samples, at
//! the reference sensor's times (an IMU or a pose at each camera frame),
//! wrap it in an [`Interpolated`](crate::Interpolated) sensor, whose
//! timestamps are then the reference's own.

mod decimate;
mod empty;
mod margin;
mod nearest;
mod next;
pub(crate) mod picture;

pub use decimate::Decimate;
pub use empty::Empty;
pub use margin::{Bound, Margin, Margins};
pub use nearest::Nearest;
pub use next::Next;
pub use picture::SyncPicture;

/// The reference's unit-test fixture, shared by the policies' tests.
#[cfg(test)]
mod fixture {
    const S1: [f64; 6] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
    const S2: [f64; 5] = [0.5, 1.5, 2.5, 3.5, 4.5];
    const S3: [f64; 4] = [1.0, 2.0, 3.0, 4.0];

    /// sensor1 = 0..5 step 1, sensor2 = 0.5..4.5, sensor3 = 1..4.
    pub(super) fn fixture() -> [(&'static str, &'static [f64]); 3] {
        [("sensor1", &S1), ("sensor2", &S2), ("sensor3", &S3)]
    }
}

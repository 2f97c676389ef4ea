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

mod decimate;
mod empty;
mod margin;
mod nearest;
mod next;

pub use decimate::Decimate;
pub use empty::Empty;
pub use margin::{Bound, Margin, Margins};
pub use nearest::Nearest;
pub use next::Next;

use crate::{Error, Result};

/// One end of a [`Margin`]: a number of samples or a time in seconds.
///
/// The Python reference tells the two apart by the margin's Python type
/// (`int` vs `float`); here the variant says it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// Trim this many samples. Negative counts are an error.
    Samples(i64),
    /// Trim this many seconds. Negative values widen the window (a no-op
    /// once past the sensor's ends).
    Seconds(f64),
}

impl Default for Bound {
    fn default() -> Self {
        Bound::Samples(0)
    }
}

/// How much to trim at the start and at the end of a sensor before
/// synchronizing.
///
/// ```
/// use adl::sync::{Bound, Margin};
///
/// let m = Margin::new(Bound::Samples(2), Bound::Seconds(0.5));
/// assert_eq!(Margin::default(), Margin::samples(0, 0));
/// let _ = m;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Margin {
    /// Trimmed from the start.
    pub start: Bound,
    /// Trimmed from the end.
    pub end: Bound,
}

impl Margin {
    /// A margin from its two ends.
    pub fn new(start: Bound, end: Bound) -> Self {
        Margin { start, end }
    }

    /// A margin of `start` and `end` samples.
    pub fn samples(start: i64, end: i64) -> Self {
        Margin::new(Bound::Samples(start), Bound::Samples(end))
    }

    /// A margin of `start` and `end` seconds.
    pub fn seconds(start: f64, end: f64) -> Self {
        Margin::new(Bound::Seconds(start), Bound::Seconds(end))
    }
}

/// Margins for the sensors of a trace: one for all, or one per sensor (the
/// others get no margin).
#[derive(Debug, Clone, PartialEq)]
pub enum Margins {
    /// The same margin for every sensor.
    All(Margin),
    /// A margin per named sensor; sensors not named get none.
    PerSensor(Vec<(String, Margin)>),
}

impl Default for Margins {
    fn default() -> Self {
        Margins::All(Margin::default())
    }
}

impl From<Margin> for Margins {
    fn from(m: Margin) -> Self {
        Margins::All(m)
    }
}

impl From<Vec<(String, Margin)>> for Margins {
    fn from(m: Vec<(String, Margin)>) -> Self {
        Margins::PerSensor(m)
    }
}

impl Margins {
    /// The margin of sensor `name`.
    pub fn for_sensor(&self, name: &str) -> Margin {
        match self {
            Margins::All(m) => *m,
            Margins::PerSensor(list) => list
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, m)| *m)
                .unwrap_or_default(),
        }
    }

    /// Check that every per-sensor margin names one of `sensors`.
    pub(crate) fn check_names(&self, sensors: &[(&str, &[f64])]) -> Result<()> {
        if let Margins::PerSensor(list) = self {
            for (name, _) in list {
                if !sensors.iter().any(|(n, _)| n == name) {
                    return Err(Error::UnknownSensor {
                        role: "margin",
                        name: name.clone(),
                        available: sensors.iter().map(|(n, _)| (*n).to_owned()).collect(),
                    });
                }
            }
        }
        Ok(())
    }
}

/// The checks and the window shared by [`Next`](crate::sync::Next) and
/// [`Nearest`](crate::sync::Nearest) (abstract-dataloader 0.4.7's
/// `Synchronization.get_reference`), in this order:
///
/// 1. every sensor's timestamps pass [`Timestamps::validate`];
/// 2. `reference` is one of the sensors ([`Error::UnknownSensor`], role
///    "reference");
/// 3. every per-sensor margin names a sensor (role "margin");
/// 4. no sensor is empty ([`Error::EmptySensor`] with `needed_for`);
/// 5. each sensor's margin leaves its first kept index `start` and last kept
///    index `end` inside the sensor ([`Error::InvalidParameter`] naming the
///    sensor and the margin otherwise: a negative sample count, or a margin
///    that trims past the sensor's last sample);
///
/// then the common window is `[max_k T_k[start_k], min_k T_k[end_k]]`,
/// inclusive at both ends, and the rows are the reference samples inside it:
/// the returned sub-slice of the reference's timestamps (empty when the
/// window is).
pub(crate) fn reference_rows<'a>(
    reference: &str,
    margins: &Margins,
    timestamps: &[(&str, &'a [f64])],
    needed_for: &'static str,
) -> Result<&'a [f64]> {
    crate::Timestamps::validate_all(timestamps)?;
    let Some(&(_, reference_times)) = timestamps.iter().find(|(n, _)| *n == reference) else {
        return Err(Error::UnknownSensor {
            role: "reference",
            name: reference.to_owned(),
            available: timestamps.iter().map(|(n, _)| (*n).to_owned()).collect(),
        });
    };
    margins.check_names(timestamps)?;
    if let Some((name, _)) = timestamps.iter().find(|(_, t)| t.is_empty()) {
        return Err(Error::EmptySensor {
            sensor: (*name).to_owned(),
            needed_for,
        });
    }
    let mut window_start = f64::NEG_INFINITY;
    let mut window_end = f64::INFINITY;
    for (name, times) in timestamps {
        let margin = margins.for_sensor(name);
        let start = start_index(name, times, margin.start)?;
        let end = end_index(name, times, margin.end)?;
        window_start = window_start.max(times[start]);
        window_end = window_end.min(times[end]);
    }
    let first = reference_times.partition_point(|&t| t < window_start);
    let past_last = reference_times.partition_point(|&t| t <= window_end);
    Ok(reference_times.get(first..past_last).unwrap_or(&[]))
}

/// The first index of a (non-empty) sensor kept by a start margin: `n`
/// samples, or the first sample at or after `t[0] + s` seconds.
fn start_index(sensor: &str, times: &[f64], bound: Bound) -> Result<usize> {
    let len = times.len();
    let index = match bound {
        Bound::Samples(n) => {
            let n = non_negative(sensor, "start", n)?;
            if n >= len {
                return Err(trims_all(sensor, "start", &format!("{n} samples"), len));
            }
            n
        }
        Bound::Seconds(s) => {
            let s = not_nan(sensor, "start", s)?;
            let from = times[0] + s;
            let index = times.partition_point(|&t| t < from);
            if index >= len {
                return Err(trims_all(sensor, "start", &format!("{s} s"), len));
            }
            index
        }
    };
    Ok(index)
}

/// The last index of a (non-empty) sensor kept by an end margin: `n` samples
/// before the last, or the last sample at or before `t[last] - s` seconds.
fn end_index(sensor: &str, times: &[f64], bound: Bound) -> Result<usize> {
    let len = times.len();
    let past_end = match bound {
        Bound::Samples(n) => {
            let n = non_negative(sensor, "end", n)?;
            len.saturating_sub(n)
        }
        Bound::Seconds(s) => {
            let s = not_nan(sensor, "end", s)?;
            let until = times[len - 1] - s;
            times.partition_point(|&t| t <= until)
        }
    };
    match past_end.checked_sub(1) {
        Some(index) => Ok(index),
        None => {
            let what = match bound {
                Bound::Samples(n) => format!("{n} samples"),
                Bound::Seconds(s) => format!("{s} s"),
            };
            Err(trims_all(sensor, "end", &what, len))
        }
    }
}

fn non_negative(sensor: &str, end: &str, n: i64) -> Result<usize> {
    usize::try_from(n).map_err(|_| {
        Error::invalid(
            format!("margin for sensor `{sensor}`"),
            format!("{end} margin of {n} samples is negative; sample margins must be 0 or more"),
        )
    })
}

fn not_nan(sensor: &str, end: &str, s: f64) -> Result<f64> {
    if s.is_nan() {
        return Err(Error::invalid(
            format!("margin for sensor `{sensor}`"),
            format!("{end} margin is NaN seconds"),
        ));
    }
    Ok(s)
}

fn trims_all(sensor: &str, end: &str, what: &str, len: usize) -> Error {
    Error::invalid(
        format!("margin for sensor `{sensor}`"),
        format!("{end} margin of {what} trims all {len} samples of the sensor"),
    )
}

/// The first `i` in `0..len` for which `is_before(i)` is false, assuming it
/// is true then false along `0..len` (`len` if it never turns false): the
/// binary search of [`slice::partition_point`] over a virtual sorted array,
/// such as the midpoints between a sensor's samples.
pub(crate) fn partition_point_by(len: usize, mut is_before: impl FnMut(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if is_before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

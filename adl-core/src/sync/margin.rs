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
/// use adl_core::sync::{Bound, Margin};
///
/// let m = Margin::new(Bound::Samples(2), Bound::Seconds(0.5));
/// assert_eq!(Margin::default(), Margin::samples(0, 0));
/// # let _ = m;
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

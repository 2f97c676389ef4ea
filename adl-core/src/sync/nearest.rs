use super::margin::{partition_point_by, reference_rows};
use crate::indices::to_u32;
use crate::sync::Margins;
use crate::{Error, Indices, Result, Synchronization};

/// Nearest-sample synchronization: one row per reference sample inside the
/// sensors' common window, each sensor contributing its nearest sample,
/// keeping only the rows where **every** sensor's sample is strictly closer
/// than the tolerance to the reference time.
///
/// The window is the same as [`Next`](crate::sync::Next)'s (abstract-dataloader
/// 0.4.7): `[latest start, earliest end]`, inclusive, after each sensor's
/// [`Margin`](crate::sync::Margin). "Nearest" is decided by the midpoints
/// `(t[j] + t[j+1]) / 2` between consecutive samples: a reference time
/// exactly on a midpoint goes to the **earlier** sample, as in the
/// reference. A tolerance of 0 keeps nothing (the test is strict); an
/// infinite one keeps every row.
///
/// Errors: as [`Next`](crate::sync::Next).
///
/// ```
/// use adl::{Synchronization, sync::Nearest};
///
/// let camera = [0.00, 0.10, 0.20, 0.30];
/// let gps = [0.02, 0.19, 0.24];
/// let idx = Nearest::new("gps", 0.03)?.synchronize(&[("camera", &camera[..]), ("gps", &gps[..])])?;
/// // 0.24 is 0.04 from the nearest camera frame: that row is dropped.
/// assert_eq!(idx.column("camera"), Some(&[0, 2][..]));
/// assert_eq!(idx.column("gps"), Some(&[0, 1][..]));
///
/// assert!(Nearest::new("gps", -0.1).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Nearest {
    reference: String,
    tolerance: f64,
    margins: Margins,
}

impl Nearest {
    /// Synchronize to the samples of sensor `reference`, keeping rows where
    /// every sensor is within `tolerance` seconds (strictly), with no
    /// margins.
    ///
    /// A negative or NaN tolerance is [`Error::InvalidParameter`]; 0 and
    /// `f64::INFINITY` are allowed.
    pub fn new(reference: impl Into<String>, tolerance: f64) -> Result<Nearest> {
        if tolerance.is_nan() || tolerance < 0.0 {
            return Err(Error::invalid(
                "tolerance",
                format!("must be 0 or more seconds (or infinite), got {tolerance}"),
            ));
        }
        Ok(Nearest {
            reference: reference.into(),
            tolerance,
            margins: Margins::default(),
        })
    }

    /// Trim sensors by `margin` (one [`Margin`](crate::sync::Margin) for
    /// all, or per sensor) before computing the window.
    pub fn margin(mut self, margin: impl Into<Margins>) -> Nearest {
        self.margins = margin.into();
        self
    }

    /// The reference sensor's name.
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// The tolerance in seconds.
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// The margins.
    pub fn margins(&self) -> &Margins {
        &self.margins
    }
}

/// The index of the sample of `times` (not empty) nearest to `t`; an exact
/// midpoint goes to the earlier sample.
fn nearest(times: &[f64], t: f64) -> usize {
    partition_point_by(times.len() - 1, |j| (times[j] + times[j + 1]) / 2.0 < t)
}

impl Synchronization for Nearest {
    fn synchronize(&self, timestamps: &[(&str, &[f64])]) -> Result<Indices> {
        let rows = reference_rows(
            &self.reference,
            &self.margins,
            timestamps,
            "Nearest synchronization",
        )?;
        let mut columns: Vec<Vec<u32>> = vec![Vec::new(); timestamps.len()];
        let mut row = vec![0_usize; timestamps.len()];
        'rows: for &t in rows {
            for (slot, &(_, times)) in row.iter_mut().zip(timestamps) {
                let index = nearest(times, t);
                if (times[index] - t).abs() >= self.tolerance {
                    continue 'rows;
                }
                *slot = index;
            }
            for ((column, &index), &(name, _)) in columns.iter_mut().zip(&row).zip(timestamps) {
                column.push(to_u32(name, index)?);
            }
        }
        Indices::new(
            timestamps
                .iter()
                .zip(columns)
                .map(|(&(name, _), column)| (name.to_owned(), column))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::Margin;

    use crate::sync::fixture::fixture;

    #[test]
    fn tolerance_is_checked() {
        for bad in [-0.5, f64::NAN, f64::NEG_INFINITY] {
            let err = Nearest::new("a", bad).unwrap_err();
            assert!(matches!(err, Error::InvalidParameter { .. }));
            assert!(err.to_string().contains("tolerance"));
            assert!(err.to_string().contains(&bad.to_string()));
        }
        assert!(Nearest::new("a", 0.0).is_ok());
        assert!(Nearest::new("a", f64::INFINITY).is_ok());
    }

    #[test]
    fn midpoint_ties_go_to_the_earlier_sample() {
        let a = [0.0, 1.0, 2.0];
        let b = [0.5, 1.5];
        let idx = Nearest::new("b", f64::INFINITY)
            .unwrap()
            .synchronize(&[("a", &a[..]), ("b", &b[..])])
            .unwrap();
        assert_eq!(idx.column("a"), Some(&[0, 1][..]));
    }

    #[test]
    fn fixture_rows_are_within_tolerance() {
        let idx = Nearest::new("sensor1", f64::INFINITY)
            .unwrap()
            .synchronize(&fixture())
            .unwrap();
        // Window [1, 4]: sensor1 samples 1..=4.
        assert_eq!(idx.column("sensor1"), Some(&[1, 2, 3, 4][..]));
        assert_eq!(idx.column("sensor2"), Some(&[0, 1, 2, 3][..]));
        assert_eq!(idx.column("sensor3"), Some(&[0, 1, 2, 3][..]));
        let none = Nearest::new("sensor1", 0.5)
            .unwrap()
            .synchronize(&fixture())
            .unwrap();
        assert!(none.is_empty());
        let trimmed = Nearest::new("sensor1", 1.0)
            .unwrap()
            .margin(Margin::samples(1, 1))
            .synchronize(&fixture())
            .unwrap();
        assert_eq!(trimmed.column("sensor1"), Some(&[2, 3][..]));
    }
}

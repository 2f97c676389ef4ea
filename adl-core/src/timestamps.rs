//! Validated sensor timestamps: the ready-made [`Metadata`].

use crate::{Error, Metadata, Result};

/// A sensor's timestamps in seconds, checked once when built: every value
/// finite, non-decreasing, and, when there are two or more, not all equal.
///
/// Duplicates are allowed (two samples logged in the same microsecond); a
/// clock that never advances is not (real logs contain topics stamped all
/// zero, and synchronizing against them is meaningless).
///
/// ```
/// use adl::{Metadata, Timestamps};
///
/// let t = Timestamps::new("gps", vec![0.0, 0.5, 1.0])?;
/// assert_eq!(t.timestamps(), &[0.0, 0.5, 1.0]);
///
/// let err = Timestamps::new("gps", vec![0.0, 1.0, 0.5]).unwrap_err();
/// assert!(err.to_string().contains("`gps`"));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Timestamps {
    values: Vec<f64>,
}

impl Timestamps {
    /// Check `values` (see [`Timestamps::validate`]) and keep them.
    pub fn new(sensor: &str, values: Vec<f64>) -> Result<Self> {
        Self::validate(sensor, &values)?;
        Ok(Timestamps { values })
    }

    /// Check that `values` are usable timestamps for `sensor`:
    /// - every value finite ([`Error::NonFiniteTimestamp`]),
    /// - non-decreasing ([`Error::UnsortedTimestamps`]),
    /// - not all equal when there are two or more ([`Error::ConstantTimestamps`]).
    ///
    /// An empty slice is valid here; what needs a sample says so itself.
    pub fn validate(sensor: &str, values: &[f64]) -> Result<()> {
        for (index, &value) in values.iter().enumerate() {
            if !value.is_finite() {
                return Err(Error::NonFiniteTimestamp {
                    sensor: sensor.to_owned(),
                    index,
                    value,
                });
            }
            if index > 0 && value < values[index - 1] {
                return Err(Error::UnsortedTimestamps {
                    sensor: sensor.to_owned(),
                    index,
                    previous: values[index - 1],
                    value,
                });
            }
        }
        if let [first, .., last] = values
            && first == last
        {
            return Err(Error::ConstantTimestamps {
                sensor: sensor.to_owned(),
                len: values.len(),
                value: *first,
            });
        }
        Ok(())
    }

    /// [`validate`](Timestamps::validate) every `(sensor, timestamps)` pair,
    /// as a [`Synchronization`](crate::Synchronization) receives them.
    pub fn validate_all(timestamps: &[(&str, &[f64])]) -> Result<()> {
        timestamps
            .iter()
            .try_for_each(|(sensor, values)| Self::validate(sensor, values))
    }

    /// The timestamps as a slice.
    pub fn as_slice(&self) -> &[f64] {
        &self.values
    }

    /// Give the values back.
    pub fn into_vec(self) -> Vec<f64> {
        self.values
    }
}

impl Metadata for Timestamps {
    fn timestamps(&self) -> &[f64] {
        &self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_sorted_with_duplicates_and_single_and_empty() {
        assert!(Timestamps::new("s", vec![0.0, 0.0, 1.0]).is_ok());
        assert!(Timestamps::new("s", vec![0.0]).is_ok());
        assert!(Timestamps::new("s", vec![]).is_ok());
    }

    #[test]
    fn rejects_nan_inf_unsorted_constant() {
        let nan = Timestamps::new("lidar", vec![0.0, f64::NAN]).unwrap_err();
        assert!(matches!(nan, Error::NonFiniteTimestamp { index: 1, .. }));
        assert!(nan.to_string().contains("lidar"));
        let inf = Timestamps::new("lidar", vec![f64::NEG_INFINITY, 0.0]).unwrap_err();
        assert!(matches!(inf, Error::NonFiniteTimestamp { index: 0, .. }));
        let unsorted = Timestamps::new("radar", vec![0.0, 2.0, 1.0]).unwrap_err();
        assert!(matches!(
            unsorted,
            Error::UnsortedTimestamps { index: 2, .. }
        ));
        assert!(unsorted.to_string().contains("[2] = 1 comes after [1] = 2"));
        let zeros = Timestamps::new("gps", vec![0.0; 4]).unwrap_err();
        assert!(matches!(zeros, Error::ConstantTimestamps { len: 4, .. }));
    }
}

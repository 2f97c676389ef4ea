use super::margin::reference_rows;
use crate::indices::to_u32;
use crate::sync::Margins;
use crate::{Indices, Result, Synchronization};

/// Next-sample synchronization: one row per reference sample inside the
/// sensors' common window; each sensor contributes its first sample at or
/// after the reference time (an exact tie picks the equal sample).
///
/// The window (abstract-dataloader 0.4.7) is `[latest start, earliest end]`
/// over all sensors, inclusive at both ends, after trimming each sensor by
/// its [`Margin`](crate::sync::Margin). Because a row's time is at most
/// every sensor's last kept timestamp, every index is in range.
///
/// Errors: bad timestamps (see [`Timestamps::validate`](crate::Timestamps::validate)),
/// a missing reference ([`Error::UnknownSensor`](crate::Error::UnknownSensor)),
/// an empty sensor ([`Error::EmptySensor`](crate::Error::EmptySensor)), a
/// negative sample margin or one that trims a whole sensor
/// ([`Error::InvalidParameter`](crate::Error::InvalidParameter)).
///
/// ```
/// use adl::{Synchronization, sync::{Margin, Next}};
///
/// let lidar = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
/// let radar = [0.5, 1.5, 2.5, 3.5, 4.5];
/// let idx = Next::new("lidar").synchronize(&[("lidar", &lidar[..]), ("radar", &radar[..])])?;
/// assert_eq!(idx.column("lidar"), Some(&[1, 2, 3, 4][..]));
/// assert_eq!(idx.column("radar"), Some(&[1, 2, 3, 4][..]));
///
/// // Drop one sample at each end of every sensor.
/// let trimmed = Next::new("lidar").margin(Margin::samples(1, 1));
/// let idx = trimmed.synchronize(&[("lidar", &lidar[..]), ("radar", &radar[..])])?;
/// assert_eq!(idx.column("lidar"), Some(&[2, 3][..]));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Next {
    reference: String,
    margins: Margins,
}

impl Next {
    /// Synchronize to the samples of sensor `reference`, with no margins.
    pub fn new(reference: impl Into<String>) -> Next {
        Next {
            reference: reference.into(),
            margins: Margins::default(),
        }
    }

    /// Trim sensors by `margin` (one [`Margin`](crate::sync::Margin) for
    /// all, or per sensor) before computing the window.
    pub fn margin(mut self, margin: impl Into<Margins>) -> Next {
        self.margins = margin.into();
        self
    }

    /// The reference sensor's name.
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// The margins.
    pub fn margins(&self) -> &Margins {
        &self.margins
    }
}

impl Synchronization for Next {
    fn synchronize(&self, timestamps: &[(&str, &[f64])]) -> Result<Indices> {
        let rows = reference_rows(
            &self.reference,
            &self.margins,
            timestamps,
            "Next synchronization",
        )?;
        let mut columns = Vec::with_capacity(timestamps.len());
        for &(name, times) in timestamps {
            let mut column = Vec::with_capacity(rows.len());
            for &t in rows {
                let index = times.partition_point(|&s| s < t);
                debug_assert!(index < times.len());
                column.push(to_u32(name, index)?);
            }
            columns.push((name.to_owned(), column));
        }
        Indices::new(columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::sync::Margin;

    use crate::sync::fixture::fixture;

    #[test]
    fn fixture_default() {
        let idx = Next::new("sensor1").synchronize(&fixture()).unwrap();
        assert_eq!(idx.column("sensor1"), Some(&[1, 2, 3, 4][..]));
        assert_eq!(idx.column("sensor2"), Some(&[1, 2, 3, 4][..]));
        assert_eq!(idx.column("sensor3"), Some(&[0, 1, 2, 3][..]));
    }

    #[test]
    fn margins_trim_every_sensor() {
        let idx = Next::new("sensor1")
            .margin(Margin::samples(1, 1))
            .synchronize(&fixture())
            .unwrap();
        assert_eq!(idx.column("sensor1"), Some(&[2, 3][..]));
        let idx = Next::new("sensor1")
            .margin(Margin::seconds(0.1, 1.1))
            .synchronize(&fixture())
            .unwrap();
        // Window [max(1, 1.5, 2), min(3, 2.5, 2)] = [2, 2].
        assert_eq!(idx.column("sensor1"), Some(&[2][..]));
    }

    #[test]
    fn margin_errors_name_the_sensor() {
        let err = Next::new("sensor1")
            .margin(Margin::samples(-1, 0))
            .synchronize(&fixture())
            .unwrap_err();
        assert!(matches!(err, Error::InvalidParameter { .. }));
        assert!(err.to_string().contains("`sensor1`") && err.to_string().contains("-1"));
        let err = Next::new("sensor1")
            .margin(vec![("sensor3".to_owned(), Margin::samples(0, 4))])
            .synchronize(&fixture())
            .unwrap_err();
        assert!(err.to_string().contains("`sensor3`") && err.to_string().contains("4 samples"));
        let err = Next::new("sensor1")
            .margin(Margin::new(
                Default::default(),
                crate::sync::Bound::Seconds(10.0),
            ))
            .synchronize(&fixture())
            .unwrap_err();
        assert!(err.to_string().contains("`sensor1`") && err.to_string().contains("10 s"));
    }
}

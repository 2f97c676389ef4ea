use crate::indices::to_u32;
use crate::{Error, Indices, Result, Synchronization, Timestamps};

/// Thin out another policy's samples by an integer `factor`.
///
/// Two modes, as abstract-dataloader 0.4.7's `Decimate`:
/// - **after** synchronizing (the default): run the inner policy, then keep
///   every `factor`-th row, starting with the first;
/// - **before** synchronizing ([`Decimate::reference`]): keep every
///   `factor`-th sample of one sensor (usually the inner policy's
///   reference), then run the inner policy.
///
/// In the second mode the indices of the decimated sensor point at its
/// **real** samples (decimated sample `j` is sample `j * factor`), so they
/// can be used to read the sensor. The reference returns indices into the
/// decimated array instead, a bug this port does not copy.
///
/// ```
/// use adl::{Synchronization, sync::{Decimate, Next}};
///
/// let camera = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5];
/// let imu = [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5];
/// let ts = [("camera", &camera[..]), ("imu", &imu[..])];
///
/// let after = Decimate::new(Next::new("camera"), 2)?.synchronize(&ts)?;
/// assert_eq!(after.column("camera"), Some(&[0, 2, 4][..]));
///
/// let before = Decimate::new(Next::new("camera"), 2)?.reference("camera").synchronize(&ts)?;
/// assert_eq!(before.column("camera"), Some(&[0, 2, 4][..]));
/// assert_eq!(before.column("imu"), Some(&[0, 4, 8][..]));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Decimate<S> {
    inner: S,
    factor: usize,
    reference: Option<String>,
}

impl<S> Decimate<S> {
    /// Keep every `factor`-th row of `inner`'s result. A factor of 0 is
    /// [`Error::InvalidParameter`]; 1 changes nothing.
    pub fn new(inner: S, factor: usize) -> Result<Decimate<S>> {
        Error::nonzero("decimation factor", factor)?;
        Ok(Decimate {
            inner,
            factor,
            reference: None,
        })
    }

    /// Decimate the timestamps of sensor `name` **before** synchronizing,
    /// instead of the rows after.
    pub fn reference(mut self, name: impl Into<String>) -> Self {
        self.reference = Some(name.into());
        self
    }

    /// The decimation factor.
    pub fn factor(&self) -> usize {
        self.factor
    }

    /// The sensor decimated before synchronizing, if any.
    pub fn decimated_sensor(&self) -> Option<&str> {
        self.reference.as_deref()
    }

    /// The inner policy.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: Synchronization> Synchronization for Decimate<S> {
    fn synchronize(&self, timestamps: &[(&str, &[f64])]) -> Result<Indices> {
        let Some(reference) = &self.reference else {
            return self.inner.synchronize(timestamps)?.every_nth(self.factor);
        };
        Timestamps::validate_all(timestamps)?;
        let Some(at) = timestamps.iter().position(|(n, _)| n == reference) else {
            return Err(Error::UnknownSensor {
                role: "decimated",
                name: reference.clone(),
                available: timestamps.iter().map(|(n, _)| (*n).to_owned()).collect(),
            });
        };
        let decimated: Vec<f64> = timestamps[at]
            .1
            .iter()
            .copied()
            .step_by(self.factor)
            .collect();
        let mut inputs = timestamps.to_vec();
        inputs[at].1 = &decimated;
        let synced = self.inner.synchronize(&inputs)?;
        let real_len = timestamps[at].1.len();
        let columns = synced
            .iter()
            .map(|(name, column)| {
                let column = if name == reference.as_str() {
                    column
                        .iter()
                        .map(|&j| {
                            let index = (j as usize).saturating_mul(self.factor);
                            if index >= real_len {
                                // Only an inner policy that returns
                                // out-of-range indices can get here.
                                return Err(Error::out_of_range(
                                    format!("decimated sensor `{name}`"),
                                    index,
                                    real_len,
                                ));
                            }
                            to_u32(name, index)
                        })
                        .collect::<Result<Vec<u32>>>()?
                } else {
                    column.to_vec()
                };
                Ok((name.to_owned(), column))
            })
            .collect::<Result<Vec<_>>>()?;
        Indices::new(columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::{Nearest, Next};

    #[test]
    fn factor_zero_is_rejected() {
        let err = Decimate::new(Next::new("a"), 0).unwrap_err();
        assert!(matches!(err, Error::InvalidParameter { .. }));
    }

    #[test]
    fn unknown_decimated_sensor() {
        let a = [0.0, 1.0];
        let err = Decimate::new(Next::new("a"), 2)
            .unwrap()
            .reference("zz")
            .synchronize(&[("a", &a[..])])
            .unwrap_err();
        assert!(matches!(
            err,
            Error::UnknownSensor {
                role: "decimated",
                ..
            }
        ));
    }

    #[test]
    fn decimated_reference_indexes_real_samples() {
        let a: Vec<f64> = (0..10).map(|i| i as f64 * 0.1).collect();
        let b: Vec<f64> = (0..30).map(|i| i as f64 * 0.033).collect();
        let ts = [("a", &a[..]), ("b", &b[..])];
        let idx = Decimate::new(Nearest::new("a", 0.02).unwrap(), 3)
            .unwrap()
            .reference("a")
            .synchronize(&ts)
            .unwrap();
        for (row, &i) in idx.column("a").unwrap().iter().enumerate() {
            let j = idx.column("b").unwrap()[row] as usize;
            assert!((a[i as usize] - b[j]).abs() < 0.02);
            assert_eq!(i % 3, 0);
        }
    }
}

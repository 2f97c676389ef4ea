//! The output of a synchronization: one index array per sensor.

use crate::{Error, Result};

/// Synchronized indices: for each sensor (in trace order), the sensor index
/// of every global sample. All columns have the same length, the number of
/// synchronized samples.
///
/// Indices are `u32`, as in the reference; a sensor longer than `u32::MAX`
/// samples is an error where indices are built.
///
/// ```
/// use adl::Indices;
///
/// let idx = Indices::new(vec![("a".into(), vec![0, 1]), ("b".into(), vec![3, 4])])?;
/// assert_eq!(idx.len(), 2);
/// assert_eq!(idx.column("b"), Some(&[3, 4][..]));
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Indices {
    names: Vec<String>,
    columns: Vec<Vec<u32>>,
}

impl Indices {
    /// Build from `(sensor name, indices)` pairs. Columns of different
    /// lengths are [`Error::BadIndices`].
    pub fn new(columns: Vec<(String, Vec<u32>)>) -> Result<Self> {
        if let Some((first_name, first)) = columns.first() {
            for (name, column) in &columns[1..] {
                if column.len() != first.len() {
                    return Err(Error::BadIndices {
                        reason: format!(
                            "sensor `{name}` has {} indices but `{first_name}` has {}",
                            column.len(),
                            first.len()
                        ),
                    });
                }
            }
        }
        let (names, columns) = columns.into_iter().unzip();
        Ok(Indices { names, columns })
    }

    /// Empty index arrays for each named sensor (a trace of length 0).
    pub fn empty<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: Vec<String> = names.into_iter().map(str::to_owned).collect();
        let columns = vec![Vec::new(); names.len()];
        Indices { names, columns }
    }

    /// Number of synchronized samples.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// Whether there are no synchronized samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sensors' names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The index array of sensor `name`.
    pub fn column(&self, name: &str) -> Option<&[u32]> {
        let at = self.names.iter().position(|n| n == name)?;
        Some(&self.columns[at])
    }

    /// The index arrays, in the order of [`names`](Indices::names).
    pub fn columns(&self) -> &[Vec<u32>] {
        &self.columns
    }

    /// `(name, index array)` pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u32])> {
        self.names
            .iter()
            .map(String::as_str)
            .zip(self.columns.iter().map(Vec::as_slice))
    }

    /// Keep every `factor`-th row, starting with the first.
    pub fn every_nth(&self, factor: usize) -> Result<Self> {
        Error::nonzero("decimation factor", factor)?;
        let columns = self
            .columns
            .iter()
            .map(|c| c.iter().copied().step_by(factor).collect())
            .collect();
        Ok(Indices {
            names: self.names.clone(),
            columns,
        })
    }

    /// Check that the columns name exactly `sensors` (same order) and that
    /// every index is below that sensor's length.
    pub fn check_fits(&self, sensors: &[(&str, usize)]) -> Result<()> {
        if self.names.len() != sensors.len()
            || self.names.iter().zip(sensors).any(|(a, (b, _))| a != b)
        {
            return Err(Error::BadIndices {
                reason: format!(
                    "indices are for sensors [{}] but the trace has [{}]",
                    self.names.join(", "),
                    sensors
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        for ((name, len), column) in sensors.iter().zip(&self.columns) {
            if let Some((row, &bad)) = column
                .iter()
                .enumerate()
                .find(|&(_, &i)| i as usize >= *len)
            {
                return Err(Error::BadIndices {
                    reason: format!(
                        "sample {row} reads index {bad} of sensor `{name}`, which has {len} samples"
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Convert a sensor index to `u32`, naming the sensor if it does not fit.
pub(crate) fn to_u32(sensor: &str, index: usize) -> Result<u32> {
    u32::try_from(index).map_err(|_| {
        Error::invalid(
            format!("sensor `{sensor}`"),
            format!(
                "index {index} does not fit the u32 index arrays (more than {} samples)",
                u32::MAX
            ),
        )
    })
}

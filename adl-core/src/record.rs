//! A synchronized multimodal sample: one value per named sensor.

use std::sync::Arc;

use adl_exec::{Recycle, Recycler};

use crate::{Error, Result};

/// One value per sensor, in the trace's sensor order; what a
/// [`Recording`](crate::Recording) returns for a global index.
///
/// The names are shared between all samples of a trace, so a record costs
/// one `Vec` of values.
///
/// ```
/// use adl::Record;
///
/// let r = Record::new(vec!["imu".into(), "gps".into()].into(), vec![1, 2])?;
/// assert_eq!(r["gps"], 2);
/// assert_eq!(r.get("lidar"), None);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Record<T> {
    names: Arc<[String]>,
    values: Vec<T>,
}

impl<T> Record<T> {
    /// A record of `values`, named by `names` (same length and order; a
    /// different number of names and values is [`Error::InvalidParameter`]).
    pub fn new(names: Arc<[String]>, values: Vec<T>) -> Result<Self> {
        if names.len() != values.len() {
            return Err(Error::invalid(
                "record",
                format!("{} names for {} values", names.len(), values.len()),
            ));
        }
        Ok(Record { names, values })
    }

    /// A record whose names and values are known to match (they come from
    /// the same trace, map or builder).
    pub(crate) fn from_parts(names: Arc<[String]>, values: Vec<T>) -> Self {
        debug_assert_eq!(names.len(), values.len());
        Record { names, values }
    }

    /// The value of sensor `name`.
    pub fn get(&self, name: &str) -> Option<&T> {
        let at = self.names.iter().position(|n| n == name)?;
        self.values.get(at)
    }

    /// The sensors' names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The names, shared (cheap to clone) with every record of the trace.
    pub fn shared_names(&self) -> Arc<[String]> {
        self.names.clone()
    }

    /// The values, in the order of [`names`](Record::names).
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// `(name, value)` pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.names.iter().map(String::as_str).zip(&self.values)
    }

    /// Number of sensors.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the record has no sensors.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values, dropping the names.
    pub fn into_values(self) -> Vec<T> {
        self.values
    }
}

impl<T> std::ops::Index<&str> for Record<T> {
    type Output = T;

    /// Panics if there is no sensor `name`; use [`Record::get`] to ask.
    fn index(&self, name: &str) -> &T {
        match self.get(name) {
            Some(v) => v,
            None => panic!(
                "record has no sensor `{name}`; it has [{}]",
                self.names.join(", ")
            ),
        }
    }
}

impl<T> IntoIterator for Record<T> {
    type Item = (String, T);
    type IntoIter = std::iter::Zip<std::vec::IntoIter<String>, std::vec::IntoIter<T>>;

    fn into_iter(self) -> Self::IntoIter {
        let names: Vec<String> = self.names.iter().cloned().collect();
        names.into_iter().zip(self.values)
    }
}

/// A batch of records gives back the memory of every sensor's batch.
impl<T: Recycle> Recycle for Record<T> {
    fn recycle(self, recycler: &mut Recycler) {
        for value in self.values {
            value.recycle(recycler);
        }
    }
}

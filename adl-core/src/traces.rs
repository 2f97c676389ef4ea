//! [`Concat::open`]: a dataset opened from many traces, leaving out (and
//! reporting, in a [`TraceReport`]) those that cannot be opened.

use std::fmt;

use crate::{Concat, Dataset, Error, OnError, Result};

/// What [`Concat::open`] did with each trace: the ones it opened, and the
/// ones it left out with the reason.
///
/// Its `Display` is a short report for a training log: how many traces
/// were opened, and one line per trace left out.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct TraceReport {
    /// The traces opened, in order (a part of the dataset each).
    pub opened: Vec<String>,
    /// The traces left out, in order, each with its error (an
    /// [`Error::Trace`] naming it).
    pub left_out: Vec<Error>,
}

impl TraceReport {
    /// Whether every trace was opened.
    pub fn is_complete(&self) -> bool {
        self.left_out.is_empty()
    }
}

impl fmt::Display for TraceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.opened.len() + self.left_out.len();
        write!(f, "{} of {total} traces opened", self.opened.len())?;
        if !self.left_out.is_empty() {
            write!(f, "; left out:")?;
            for error in &self.left_out {
                write!(f, "\n  {error:#}")?;
            }
        }
        Ok(())
    }
}

impl<D: Dataset> Concat<D> {
    /// Open a dataset from many traces: `open` makes the trace of each key
    /// (a folder, a name), and the traces are concatenated in the keys'
    /// order.
    ///
    /// A trace that cannot be opened (a bad file, bad timestamps, a failed
    /// synchronization) is an [`Error::Trace`] naming its key. With
    /// [`OnError::Fail`] the first one is returned; with [`OnError::Skip`]
    /// the trace is left out and listed in the [`TraceReport`], and the
    /// others are opened. Leaving out every trace is an error (listing
    /// why each failed): a dataset with nothing in it is not what was
    /// asked for.
    ///
    /// ```
    /// use adl::{Concat, Dataset, OnError, Recording, Series, Timestamps};
    ///
    /// let open = |key: &&str| {
    ///     let times = match *key {
    ///         "run-2" => vec![0.0, 0.2, 0.1], // a clock that went back
    ///         _ => vec![0.0, 0.1, 0.2],
    ///     };
    ///     let camera = Series::new("camera", Timestamps::new("camera", times)?, |i| Ok(i));
    ///     Recording::aligned(*key, vec![camera])
    /// };
    /// let keys = ["run-1", "run-2", "run-3"];
    /// let (dataset, report) = Concat::open(keys, OnError::Skip, open)?;
    /// assert_eq!(dataset.len(), 6);
    /// assert_eq!(report.opened, ["run-1", "run-3"]);
    /// assert_eq!(
    ///     report.to_string(),
    ///     "2 of 3 traces opened; left out:\n  trace `run-2`: sensor `camera`: timestamps are \
    ///      not sorted: [2] = 0.1 comes after [1] = 0.2"
    /// );
    ///
    /// let err = Concat::open(keys, OnError::Fail, open).unwrap_err();
    /// assert!(format!("{err:#}").starts_with("trace `run-2`: sensor `camera`"));
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn open<K, F>(
        keys: impl IntoIterator<Item = K>,
        on_error: OnError,
        mut open: F,
    ) -> Result<(Self, TraceReport)>
    where
        K: fmt::Display,
        F: FnMut(&K) -> Result<D>,
    {
        let mut parts = Vec::new();
        let mut report = TraceReport::default();
        for key in keys {
            let trace = key.to_string();
            match open(&key) {
                Ok(part) => {
                    parts.push(part);
                    report.opened.push(trace);
                }
                Err(cause) => {
                    let error = Error::Trace {
                        trace,
                        cause: Box::new(cause),
                    };
                    match on_error {
                        OnError::Fail => return Err(error),
                        OnError::Skip => report.left_out.push(error),
                    }
                }
            }
        }
        if parts.is_empty() && !report.left_out.is_empty() {
            let each: Vec<String> = report.left_out.iter().map(ToString::to_string).collect();
            return Err(Error::invalid(
                "traces",
                format!(
                    "none of the {} traces could be opened:\n  {}",
                    each.len(),
                    each.join("\n  ")
                ),
            ));
        }
        Ok((Concat::new(parts)?, report))
    }
}

use crate::{Error, Result, Sensor, Timestamps};

/// A sensor made of its timestamps and a loader: `load(index)` reads sample
/// `index`.
///
/// The loader is any `Fn(usize) -> Result<T>`: an array lookup, a file read,
/// a decoder. `Series` checks the index against the timestamps before
/// calling it, so the loader only sees `0..len`; a loader error that is not
/// already an [`Error::Load`] is wrapped in one naming the sensor and the
/// index.
///
/// ```
/// use adl::{Sensor, Series, Timestamps};
///
/// let frames = vec!["a", "b", "c"];
/// let cam = Series::new(
///     "camera",
///     Timestamps::new("camera", vec![0.0, 0.1, 0.2])?,
///     move |i| Ok(frames[i]),
/// );
/// assert_eq!(cam.get(1)?, "b");
/// assert!(cam.get(3).is_err());
/// # Ok::<(), adl::Error>(())
/// ```
pub struct Series<L> {
    name: String,
    timestamps: Timestamps,
    load: L,
}

impl<L> Series<L> {
    /// A sensor called `name` with `timestamps`, read by `load`.
    pub fn new(name: impl Into<String>, timestamps: Timestamps, load: L) -> Self {
        Series {
            name: name.into(),
            timestamps,
            load,
        }
    }
}

impl<L> std::fmt::Debug for Series<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Series({}, n={})",
            self.name,
            self.timestamps.as_slice().len()
        )
    }
}

impl<T, L: Fn(usize) -> Result<T>> Sensor for Series<L> {
    type Sample = T;
    type Metadata = Timestamps;

    fn name(&self) -> &str {
        &self.name
    }

    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    fn get(&self, index: usize) -> Result<T> {
        let len = self.timestamps.as_slice().len();
        if index >= len {
            return Err(Error::out_of_range(
                format!("sensor `{}`", self.name),
                index,
                len,
            ));
        }
        // A loader's own error gains the sensor and the index, unless it
        // already says them.
        (self.load)(index).map_err(|e| match e {
            Error::Load { .. } => e,
            // A file's error already says where; it gains the sensor
            // and the index, unless it says them.
            source @ Error::Source { .. } => source.in_sensor(&self.name, Some(index)),
            other => Error::Load {
                sensor: self.name.clone(),
                index,
                cause: Box::new(other),
            },
        })
    }
}

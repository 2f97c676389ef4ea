use std::fmt;

use crate::collate::{Reading, StackReadings, stack_readings};
use crate::storage::{Ahead, Fetched, Route, Routes, Storage};
use crate::{Error, Metadata, Result, Sensor, SensorOrigin, TryMapped};

/// A sensor that returns, for each sample, the window of consecutive
/// samples around it: `past` samples before, the sample itself, and
/// `future` samples after (`past + 1 + future` samples in all, in order).
///
/// The reference's `generic.Window`. Two ways to handle the edges, where a
/// full window does not fit:
///
/// - **Cropped** ([`Window::new`], the default): the edges are cut off.
///   With `n` samples in the inner sensor the window has
///   `n - past - future` samples (0 if the window is longer than the
///   sensor); `window.get(i)` is inner samples `i ..= i + past + future`,
///   whose "current" sample is `i + past`, and the window's timestamps are
///   the inner timestamps `[past .. n - future]`, the times of the current
///   samples.
/// - **Uncropped** ([`Window::uncropped`]): the window keeps the inner
///   sensor's `n` samples and timestamps; `window.get(i)` is inner samples
///   `i - past ..= i + future`, so indices `i < past` and `i >= n - future`
///   have no full window and are [`Error::IndexOutOfRange`].
/// - **Clamped** ([`Window::clamped`]): the window keeps the inner sensor's
///   `n` samples and timestamps, and near the edges it slides inside the
///   sensor: `window.get(i)` is the `past + 1 + future` inner samples
///   starting at `clamp(i - past, 0, n - (past + 1 + future))`. A clamped
///   window longer than its sensor has no samples to give: every index is
///   an error that says so.
///
/// Reading a window reads its samples one after the other. Loading them
/// in parallel (the reference's `parallel=N` thread pool) is the engine's
/// business (`adl-graph`), not this synchronous crate's. To combine the
/// samples into one value (the reference's `collate_fn`): readings of one
/// shape into one array with [`stacked`](Window::stacked) (a batch of
/// them is then one `[B, N, ...]` array), anything else by mapping the
/// `Vec` ([`Sensor::try_map`], or a [`Transform`](crate::Transform)).
///
/// ```
/// use adl::{Metadata, Sensor, Series, Timestamps, Window};
///
/// let times = Timestamps::new("imu", vec![0.0, 1.0, 2.0, 3.0, 4.0])?;
/// let imu = Series::new("imu", times, |i| Ok(i));
///
/// let cropped = Window::new(&imu, 1, 1)?;
/// assert_eq!(cropped.len(), 3);
/// assert_eq!(cropped.get(0)?, vec![0, 1, 2]);
/// assert_eq!(cropped.get(2)?, vec![2, 3, 4]);
/// assert_eq!(cropped.metadata().timestamps(), &[1.0, 2.0, 3.0]);
/// assert!(cropped.get(3).is_err());
///
/// let uncropped = Window::new(&imu, 1, 1)?.uncropped();
/// assert_eq!(uncropped.len(), 5);
/// assert_eq!(uncropped.get(1)?, vec![0, 1, 2]);
/// assert!(uncropped.get(0).is_err()); // no sample before the first
/// assert!(uncropped.get(4).is_err()); // no sample after the last
/// # Ok::<(), adl::Error>(())
/// ```
pub struct Window<S> {
    sensor: S,
    past: usize,
    future: usize,
    crop: bool,
    clamp: bool,
    metadata: WindowMetadata,
}

/// The timestamps of a [`Window`]: the inner sensor's, cropped to the
/// samples that have a full window unless the window is uncropped.
///
/// A plain copy, not re-validated: a cropped slice of valid
/// [`Timestamps`](crate::Timestamps) can be all equal (`[0, 0, 1]` cropped
/// to `[0, 0]`), which is still a correct description of the window.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowMetadata {
    timestamps: Vec<f64>,
}

impl WindowMetadata {
    /// The timestamps as a slice.
    pub fn as_slice(&self) -> &[f64] {
        &self.timestamps
    }
}

impl Metadata for WindowMetadata {
    fn timestamps(&self) -> &[f64] {
        &self.timestamps
    }
}

impl<S: Sensor> Window<S> {
    /// A cropped window of `past` samples before and `future` samples after
    /// each sample of `sensor`; [`clamped`](Window::clamped) and
    /// [`uncropped`](Window::uncropped) give the other edge modes.
    ///
    /// A window longer than its sensor (`past + 1 + future > len`) has no
    /// sample to give in any mode and is refused here, as an
    /// [`Error::InvalidParameter`] naming the sensor and both lengths.
    /// ([`with_crop`](Window::with_crop) accepts it, as the reference does:
    /// a cropped one is empty.)
    ///
    /// ```
    /// use adl::{Series, Timestamps, Window};
    ///
    /// let s = Series::new("imu", Timestamps::new("imu", vec![0.0, 1.0, 2.0])?, |i| Ok(i));
    /// assert!(Window::new(&s, 1, 1).is_ok());
    /// let err = Window::new(&s, 2, 1).unwrap_err().to_string();
    /// assert!(err.contains("4 samples") && err.contains("sensor `imu`"), "{err}");
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn new(sensor: S, past: usize, future: usize) -> Result<Self> {
        let long = past.saturating_add(future).saturating_add(1);
        let n = sensor.len();
        if long > n {
            return Err(Error::invalid(
                format_args!("window over sensor `{}`", sensor.name()),
                format!(
                    "{past} past + 1 + {future} future = {long} samples is longer than the sensor's {n} samples"
                ),
            ));
        }
        Ok(Self::with_crop(sensor, past, future, true))
    }

    /// A window that is cropped (`crop = true`, as [`Window::new`]) or not
    /// (as [`Window::uncropped`]), of any length: the reference's
    /// constructor. A cropped window longer than its sensor has no samples;
    /// an uncropped one has the sensor's timestamps and no valid index.
    pub fn with_crop(sensor: S, past: usize, future: usize, crop: bool) -> Self {
        let metadata = Self::window_metadata(&sensor, past, future, crop);
        Window {
            sensor,
            past,
            future,
            crop,
            clamp: false,
            metadata,
        }
    }

    /// The same window, clamped: it keeps every timestamp of the inner
    /// sensor, and near the edges the window slides inside the sensor
    /// instead of being cut off.
    ///
    /// ```
    /// use adl::{Sensor, Series, Timestamps, Window};
    ///
    /// let s = Series::new("s", Timestamps::new("s", vec![0.0, 1.0, 2.0, 3.0, 4.0])?, |i| Ok(i));
    /// let w = Window::new(&s, 2, 1)?.clamped();
    /// assert_eq!(w.len(), 5);
    /// assert_eq!(w.get(0)?, vec![0, 1, 2, 3]); // would start at -2: slides to 0
    /// assert_eq!(w.get(3)?, vec![1, 2, 3, 4]);
    /// assert_eq!(w.get(4)?, vec![1, 2, 3, 4]); // would end at 5: slides back
    /// assert_eq!(w.range(4)?, 1..=4);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn clamped(self) -> Self {
        let mut window = Self::with_crop(self.sensor, self.past, self.future, false);
        window.clamp = true;
        window
    }

    /// Whether the window slides inside the sensor at the edges.
    pub fn is_clamped(&self) -> bool {
        self.clamp
    }

    /// The same window, uncropped: it keeps every timestamp of the inner
    /// sensor, and the indices without a full window are errors.
    pub fn uncropped(self) -> Self {
        Self::with_crop(self.sensor, self.past, self.future, false)
    }

    /// The same window, its readings stacked into one array: a sample is
    /// `[N, shape...]` for `N = past + 1 + future` readings of one shape
    /// (numbers, `[A; C]` or arrays: a [`Reading`]), in place of a `Vec`
    /// of them, so that a batch of windows collates to one
    /// `[B, N, shape...]` array rather than position by position. Readings
    /// of different shapes (arrays) are an [`Error::Load`] naming the
    /// sensor, the sample and both shapes.
    ///
    /// ```
    /// use adl::{Sensor, Series, Timestamps, Window};
    /// use adl::ndarray::array;
    ///
    /// let times = Timestamps::new("imu", vec![0.0, 0.1, 0.2, 0.3])?;
    /// let imu = Series::new("imu", times, |i| Ok([i as f32, -(i as f32)]));
    /// let windows = Window::new(imu, 1, 0)?.clamped().stacked();
    /// assert_eq!(windows.get(2)?, array![[1.0f32, -1.0], [2.0, -2.0]]);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn stacked(self) -> TryMapped<Self, StackReadings<S::Sample>>
    where
        S::Sample: Reading,
    {
        self.try_map(stack_readings::<S::Sample> as StackReadings<S::Sample>)
    }

    fn window_metadata(sensor: &S, past: usize, future: usize, crop: bool) -> WindowMetadata {
        let all = sensor.metadata().timestamps();
        let timestamps = if crop {
            let n = all.len();
            match n.checked_sub(past.saturating_add(future)) {
                Some(len) => all[past..past + len].to_vec(),
                None => Vec::new(),
            }
        } else {
            all.to_vec()
        };
        WindowMetadata { timestamps }
    }

    /// Samples before each sample.
    pub fn past(&self) -> usize {
        self.past
    }

    /// Samples after each sample.
    pub fn future(&self) -> usize {
        self.future
    }

    /// Whether the edges without a full window are cropped.
    pub fn is_cropped(&self) -> bool {
        self.crop
    }

    /// The inner sensor.
    pub fn inner(&self) -> &S {
        &self.sensor
    }

    /// Give the inner sensor back.
    pub fn into_inner(self) -> S {
        self.sensor
    }

    /// The inner indices of window `index`, or why there are none.
    ///
    /// ```
    /// use adl::{Series, Timestamps, Window};
    ///
    /// let s = Series::new("s", Timestamps::new("s", vec![0.0, 1.0, 2.0])?, |i| Ok(i));
    /// assert_eq!(Window::new(&s, 1, 0)?.range(1)?, 1..=2);
    /// assert_eq!(Window::new(&s, 1, 0)?.uncropped().range(1)?, 0..=1);
    /// # Ok::<(), adl::Error>(())
    /// ```
    pub fn range(&self, index: usize) -> Result<std::ops::RangeInclusive<usize>> {
        let n = self.sensor.len();
        if self.clamp {
            let len = self.past.saturating_add(self.future).saturating_add(1);
            return match n.checked_sub(len) {
                Some(last_start) if index < n => {
                    let first = index.saturating_sub(self.past).min(last_start);
                    Ok(first..=first + len - 1)
                }
                _ => Err(self.invalid_index(index)),
            };
        }
        let first = if self.crop {
            Some(index)
        } else {
            index.checked_sub(self.past)
        };
        let last = first
            .and_then(|first| first.checked_add(self.past))
            .and_then(|current| current.checked_add(self.future));
        match (first, last) {
            (Some(first), Some(last)) if last < n => Ok(first..=last),
            _ => Err(self.invalid_index(index)),
        }
    }

    fn invalid_index(&self, index: usize) -> Error {
        let n = self.sensor.len();
        let (what, len) = if self.clamp {
            let long = self.past.saturating_add(self.future).saturating_add(1);
            let note = if long > n {
                format!("; the window of {long} samples is longer than the sensor")
            } else {
                String::new()
            };
            (
                format!(
                    "clamped window [-{}:+{}] over sensor `{}` ({} samples{note})",
                    self.past,
                    self.future,
                    self.sensor.name(),
                    n
                ),
                if long > n { 0 } else { n },
            )
        } else if self.crop {
            (
                format!(
                    "cropped window [-{}:+{}] over sensor `{}` ({} samples)",
                    self.past,
                    self.future,
                    self.sensor.name(),
                    n
                ),
                self.len(),
            )
        } else {
            let valid = match n.checked_sub(self.future) {
                Some(end) if end > self.past => format!("{}..{}", self.past, end),
                _ => "none".to_owned(),
            };
            (
                format!(
                    "uncropped window [-{}:+{}] over sensor `{}` (valid indices: {})",
                    self.past,
                    self.future,
                    self.sensor.name(),
                    valid
                ),
                n,
            )
        };
        Error::out_of_range(what, index, len)
    }
}

impl<S: Sensor> Sensor for Window<S> {
    type Sample = Vec<S::Sample>;
    type Metadata = WindowMetadata;

    /// The inner sensor's name: a window over `imu` stands in for `imu` in
    /// a trace.
    fn name(&self) -> &str {
        self.sensor.name()
    }

    fn metadata(&self) -> &WindowMetadata {
        &self.metadata
    }

    /// The `past + 1 + future` inner samples of window `index`, in order.
    fn get(&self, index: usize) -> Result<Vec<S::Sample>> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Vec<S::Sample>> {
        let range = self.range(index)?;
        let reads = fetched.split(range.clone().count());
        (range.zip(reads))
            .map(|(i, read)| self.sensor.get_fetched(i, read))
            .collect()
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }
}

/// A window is stored where each inner sample in it is.
impl<S: Sensor> Route for Window<S> {
    type Origin = SensorOrigin;

    fn route(&self, index: usize) -> Routes<'_, SensorOrigin> {
        match self.range(index) {
            Ok(range) => Routes::each(self.sensor.storage(), range),
            Err(_) => Routes::None,
        }
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.sensor.storage())
    }

    /// Window `index`'s own sample of the inner sensor (the one its
    /// window is around), as sample `index` of the window.
    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        let current = if self.crop && !self.clamp {
            index.saturating_add(self.past)
        } else {
            index
        };
        let mut origin = SensorOrigin::of(&self.sensor, current);
        origin.index = index;
        origin.window = Some((self.past, self.future));
        Some(origin)
    }
}

impl<S: fmt::Debug> fmt::Debug for Window<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} x [-{}:+{}]", self.sensor, self.past, self.future)?;
        if self.clamp {
            write!(f, " (clamped)")?;
        } else if !self.crop {
            write!(f, " (uncropped)")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Series, Timestamps};

    fn series(n: usize) -> Series<impl Fn(usize) -> Result<usize>> {
        let times = (0..n).map(|i| i as f64).collect();
        Series::new("s", Timestamps::new("s", times).unwrap(), Ok)
    }

    #[test]
    fn cropped_matches_the_reference_example() {
        let s = series(5);
        let w = Window::new(&s, 1, 1).unwrap();
        assert_eq!(w.len(), 3);
        assert_eq!(w.get(0).unwrap(), vec![0, 1, 2]);
        assert_eq!(w.get(2).unwrap(), vec![2, 3, 4]);
        assert_eq!(w.metadata().timestamps(), &[1.0, 2.0, 3.0]);
        assert!(matches!(
            w.get(3),
            Err(Error::IndexOutOfRange {
                index: 3,
                len: 3,
                ..
            })
        ));
        assert_eq!(w.name(), "s");
    }

    #[test]
    fn uncropped_matches_the_reference_example() {
        let s = series(5);
        let w = Window::new(&s, 1, 1).unwrap().uncropped();
        assert!(!w.is_cropped());
        assert_eq!(w.len(), 5);
        assert_eq!(w.get(1).unwrap(), vec![0, 1, 2]);
        assert_eq!(w.get(3).unwrap(), vec![2, 3, 4]);
        assert_eq!(w.metadata().timestamps(), &[0.0, 1.0, 2.0, 3.0, 4.0]);
        for bad in [0, 4, 5] {
            let err = w.get(bad).unwrap_err();
            assert!(matches!(err, Error::IndexOutOfRange { index, .. } if index == bad));
            assert!(err.to_string().contains("valid indices: 1..4"), "{err}");
        }
    }

    #[test]
    fn clamped_windows_slide_inside_the_sensor() {
        let s = series(6);
        let w = Window::new(&s, 2, 2).unwrap().clamped();
        assert!(w.is_clamped() && !w.is_cropped());
        assert_eq!(w.len(), 6);
        let starts: Vec<usize> = (0..6).map(|i| *w.range(i).unwrap().start()).collect();
        assert_eq!(starts, [0, 0, 0, 1, 1, 1]);
        assert_eq!(w.get(5).unwrap(), vec![1, 2, 3, 4, 5]);
        assert!(w.get(6).is_err());
        assert!(Window::new(&s, 4, 4).is_err());
        let long = Window::with_crop(&s, 4, 4, false).clamped();
        let err = long.get(0).unwrap_err();
        assert!(err.to_string().contains("longer than the sensor"), "{err}");
    }

    #[test]
    fn zero_window_is_the_sensor() {
        let s = series(3);
        for w in [
            Window::new(&s, 0, 0).unwrap(),
            Window::new(&s, 0, 0).unwrap().uncropped(),
        ] {
            assert_eq!(w.len(), 3);
            assert_eq!(w.get(2).unwrap(), vec![2]);
            assert!(w.get(3).is_err());
        }
    }

    #[test]
    fn window_longer_than_sensor_is_empty() {
        let s = series(2);
        let err = Window::new(&s, 2, 1).unwrap_err();
        assert!(matches!(err, Error::InvalidParameter { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("4 samples is longer than the sensor's 2"),
            "{err}"
        );
        let w = Window::with_crop(&s, 2, 1, true);
        assert_eq!(w.len(), 0);
        assert!(w.metadata().timestamps().is_empty());
        assert!(w.get(0).is_err());
        let u = Window::with_crop(&s, 2, 1, false);
        assert_eq!(u.len(), 2);
        let err = u.get(0).unwrap_err();
        assert!(err.to_string().contains("valid indices: none"), "{err}");
    }

    #[test]
    fn empty_sensor() {
        let s = series(0);
        assert!(Window::new(&s, 0, 0).is_err());
        let w = Window::with_crop(&s, 1, 1, true);
        assert_eq!(w.len(), 0);
        assert!(w.get(0).is_err());
        assert_eq!(w.duration(), 0.0);
        assert_eq!(w.framerate(), None);
        assert!(Window::with_crop(&s, 0, 0, false).get(0).is_err());
    }

    #[test]
    fn huge_indices_and_sizes_do_not_overflow() {
        let s = series(4);
        let w = Window::new(&s, 1, 1).unwrap();
        assert!(w.get(usize::MAX).is_err());
        assert!(w.uncropped().get(usize::MAX).is_err());
        assert!(Window::new(&s, usize::MAX, usize::MAX).is_err());
        let huge = Window::with_crop(&s, usize::MAX, usize::MAX, true);
        assert_eq!(huge.len(), 0);
        assert!(huge.get(0).is_err());
        let huge = huge.uncropped();
        assert_eq!(huge.len(), 4);
        assert!(huge.get(usize::MAX).is_err());
    }

    #[test]
    fn cropped_timestamps_may_be_constant() {
        let times = Timestamps::new("s", vec![0.0, 0.0, 1.0]).unwrap();
        let s = Series::new("s", times, Ok);
        let w = Window::new(&s, 0, 1).unwrap();
        assert_eq!(w.metadata().timestamps(), &[0.0, 0.0]);
        assert_eq!(w.framerate(), None);
        assert_eq!(w.get(1).unwrap(), vec![1, 2]);
    }

    #[test]
    fn stream_and_batches_yield_windows() {
        let s = series(4);
        let w = Window::new(&s, 1, 0).unwrap();
        let all: Vec<_> = w.stream().collect::<Result<_>>().unwrap();
        assert_eq!(all, vec![vec![0, 1], vec![1, 2], vec![2, 3]]);
        let batches: Vec<_> = w.stream_batches(2).unwrap().collect::<Result<_>>().unwrap();
        assert_eq!(batches, vec![vec![vec![0, 1], vec![1, 2]]]);
        assert!(w.stream_batches(0).is_err());
    }

    #[test]
    fn loader_errors_propagate() {
        let times = Timestamps::new("s", vec![0.0, 1.0, 2.0]).unwrap();
        let s = Series::new("s", times, |i| {
            if i == 2 {
                Err(Error::Load {
                    sensor: "s".into(),
                    index: i,
                    cause: "broken".into(),
                })
            } else {
                Ok(i)
            }
        });
        let w = Window::new(&s, 0, 1).unwrap();
        assert_eq!(w.get(0).unwrap(), vec![0, 1]);
        assert!(matches!(w.get(1), Err(Error::Load { index: 2, .. })));
    }

    #[test]
    fn debug_names_the_window() {
        let s = series(4);
        assert_eq!(
            format!("{:?}", Window::new(&s, 1, 2).unwrap()),
            "Series(s, n=4) x [-1:+2]"
        );
        assert_eq!(
            format!("{:?}", Window::new(&s, 1, 2).unwrap().uncropped()),
            "Series(s, n=4) x [-1:+2] (uncropped)"
        );
    }
}

use std::fmt;

use crate::collate::Masked;
use crate::interpolate::Interpolate;
use crate::storage::{self, Ahead, Fetched, Route, Routes, Storage};
use crate::{Error, Metadata, Result, Sensor, SensorOrigin, Timestamps};

/// A sensor evaluated at other times (another sensor's, typically the
/// camera's): each sample is interpolated between the sensor's two samples
/// around its time ([`Interpolate`]: numbers and arrays linearly,
/// quaternions by slerp), never extrapolated.
///
/// A time before the sensor's first sample or after its last, or in a gap
/// between two samples longer than `max_gap`, has no interpolation: by
/// [`Gaps`] policy it is masked (the default: a [`Masked`] reading whose
/// `valid` is false, holding the nearest sample so that a batch keeps its
/// shape) or refused (its `get` is an error naming the sensor, the time and
/// why). A time equal to a sample's is that sample, whatever its
/// neighbours.
///
/// Its name is the inner sensor's, and its timestamps are the times it is
/// evaluated at: in a [`Recording`](crate::Recording) synchronized on the
/// sensor whose times those are (`Nearest::new("camera", ..)`), its sample
/// `i` is the camera's sample `i`, beside sensors matched by nearest
/// neighbour.
///
/// ```
/// use adl::{Interpolated, Metadata, Sensor, Series, Timestamps};
///
/// let imu = Series::new("imu", Timestamps::new("imu", vec![0.0, 0.1, 0.2, 0.6])?, |i| {
///     Ok([i as f64, 10.0 * i as f64])
/// });
/// let camera_times = [0.05, 0.15, 0.4, 0.7];
/// let imu = Interpolated::new(imu, &camera_times, 0.2)?;
/// assert_eq!(imu.metadata().timestamps(), &camera_times);
/// let at = imu.get(1)?;
/// assert!(at.valid && (at.value[0] - 1.5).abs() < 1e-12);
/// assert!(!imu.get(2)?.valid, "0.4 s lies in a 0.4 s gap, over max_gap");
/// assert!(!imu.get(3)?.valid, "0.7 s is after the last sample");
/// # Ok::<(), adl::Error>(())
/// ```
pub struct Interpolated<S> {
    sensor: S,
    timestamps: Timestamps,
    places: Vec<Place>,
    max_gap: f64,
    gaps: Gaps,
}

/// What an [`Interpolated`] sensor does with a time it cannot interpolate
/// at: outside the sensor's samples, or in a gap longer than `max_gap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Gaps {
    /// A [`Masked`] reading, not valid, holding the nearest sample.
    #[default]
    Mask,
    /// An error from `get`, naming the sensor, the time and why (a loader
    /// under `OnError::Skip` then leaves the sample out).
    Refuse,
}

/// What one of an [`Interpolated`] sensor's times is made from, among the
/// samples of the sensor it interpolates ([`Interpolated::made_from`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterpolatedFrom {
    /// Sample `k` itself: the time is its.
    At(usize),
    /// Samples `k` and `k + 1`, interpolated between.
    Between(usize),
    /// Nothing to interpolate from (before the first sample, after the
    /// last, or in a gap over `max_gap`): masked, holding sample
    /// `nearest`.
    Masked {
        /// The nearest sample.
        nearest: usize,
    },
}

/// Where one time falls among the sensor's samples.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    /// On sample `k`.
    At(usize),
    /// Between samples `k` and `k + 1`, a fraction `w` of the way.
    Between(usize, f64),
    /// Nowhere to interpolate: sample `nearest` is the nearest, and why.
    Outside { nearest: usize, why: Why },
}

/// Why a time cannot be interpolated at.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Why {
    /// Before the first sample, at this time.
    Before(f64),
    /// After the last sample, at this time.
    After(f64),
    /// In a gap between samples at these times.
    Gap(f64, f64),
}

impl<S: Sensor> Interpolated<S>
where
    S::Sample: Interpolate,
{
    /// `sensor` evaluated at `times` (seconds, sorted: another sensor's
    /// timestamps), interpolating across gaps up to `max_gap` seconds
    /// (`f64::INFINITY`: any gap); masked where it cannot be (see
    /// [`Gaps`]). A sensor without samples, `times` not sorted or not
    /// finite, or a `max_gap` not positive is an error.
    pub fn new(sensor: S, times: &[f64], max_gap: f64) -> Result<Self> {
        let name = sensor.name().to_owned();
        if max_gap.is_nan() || max_gap <= 0.0 {
            return Err(Error::invalid(
                format_args!("max_gap of interpolated sensor `{name}`"),
                format!("{max_gap} s: it must be positive (f64::INFINITY for any gap)"),
            ));
        }
        let timestamps = Timestamps::new(&name, times.to_vec())?;
        let own = sensor.metadata().timestamps();
        if own.is_empty() {
            return Err(Error::EmptySensor {
                sensor: name,
                needed_for: "interpolation",
            });
        }
        let places = times.iter().map(|&t| place(own, t, max_gap)).collect();
        Ok(Interpolated {
            sensor,
            timestamps,
            places,
            max_gap,
            gaps: Gaps::Mask,
        })
    }

    /// The same sensor, with `gaps` as its policy for times it cannot
    /// interpolate at.
    pub fn gaps(mut self, gaps: Gaps) -> Self {
        self.gaps = gaps;
        self
    }
}

impl<S> Interpolated<S> {
    /// The sensor interpolated.
    pub fn inner(&self) -> &S {
        &self.sensor
    }

    /// The longest gap interpolated across, in seconds.
    pub fn max_gap(&self) -> f64 {
        self.max_gap
    }

    /// What each of its times is made from, in order: a sample, two
    /// interpolated between, or nothing (masked). What
    /// [`SyncPicture::interpolated`](crate::sync::SyncPicture::interpolated)
    /// draws.
    pub fn made_from(&self) -> Vec<InterpolatedFrom> {
        (self.places.iter())
            .map(|place| match *place {
                Place::At(k) => InterpolatedFrom::At(k),
                Place::Between(k, _) => InterpolatedFrom::Between(k),
                Place::Outside { nearest, .. } => InterpolatedFrom::Masked { nearest },
            })
            .collect()
    }

    /// How many of its times have a valid interpolation.
    pub fn valid(&self) -> usize {
        (self.places.iter())
            .filter(|p| !matches!(p, Place::Outside { .. }))
            .count()
    }
}

/// Where time `t` falls among `own` (sorted, not empty).
fn place(own: &[f64], t: f64, max_gap: f64) -> Place {
    let last = own.len() - 1;
    // The last sample at or before `t`.
    let after = own.partition_point(|&s| s <= t);
    if after == 0 {
        return Place::Outside {
            nearest: 0,
            why: Why::Before(own[0]),
        };
    }
    let k = after - 1;
    if own[k] == t {
        // The first of equal stamps, as a search from the left finds it.
        return Place::At(own.partition_point(|&s| s < t));
    }
    if k == last {
        return Place::Outside {
            nearest: last,
            why: Why::After(own[last]),
        };
    }
    let (a, b) = (own[k], own[k + 1]);
    let gap = b - a;
    if gap > max_gap {
        let nearest = if t - a <= b - t { k } else { k + 1 };
        return Place::Outside {
            nearest,
            why: Why::Gap(a, b),
        };
    }
    Place::Between(k, (t - a) / gap)
}

impl<S: Sensor> Sensor for Interpolated<S>
where
    S::Sample: Interpolate,
{
    type Sample = Masked<S::Sample>;
    type Metadata = Timestamps;

    /// The inner sensor's name: it stands in for it in a trace.
    fn name(&self) -> &str {
        self.sensor.name()
    }

    /// The times it is evaluated at.
    fn metadata(&self) -> &Timestamps {
        &self.timestamps
    }

    /// The sensor interpolated at time `index`, or masked or refused
    /// where it cannot be (see [`Gaps`]).
    fn get(&self, index: usize) -> Result<Masked<S::Sample>> {
        self.get_fetched(index, Fetched::Nothing)
    }

    fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<Masked<S::Sample>> {
        let Some(&place) = self.places.get(index) else {
            return Err(Error::out_of_range(
                format_args!("interpolated sensor `{}`", self.sensor.name()),
                index,
                self.places.len(),
            ));
        };
        match place {
            Place::At(k) => Ok(Masked {
                value: self.sensor.get_fetched(k, fetched)?,
                valid: true,
            }),
            Place::Between(k, w) => {
                let mut reads = fetched.split(2);
                let (a, b) = (
                    reads.next().unwrap_or_default(),
                    reads.next().unwrap_or_default(),
                );
                let (a, b) = (
                    self.sensor.get_fetched(k, a)?,
                    self.sensor.get_fetched(k + 1, b)?,
                );
                let value = S::Sample::interpolate(&a, &b, w).map_err(|e| {
                    Error::read(
                        format_args!("sensor `{}` between samples {k} and {}", self.name(), k + 1),
                        index,
                        e,
                    )
                })?;
                Ok(Masked { value, valid: true })
            }
            Place::Outside { nearest, why } => match self.gaps {
                Gaps::Mask => Ok(Masked {
                    value: self.sensor.get_fetched(nearest, fetched)?,
                    valid: false,
                }),
                Gaps::Refuse => Err(Error::read(
                    format_args!(
                        "sensor `{}` interpolated at {} s",
                        self.name(),
                        self.timestamps.as_slice()[index]
                    ),
                    index,
                    self.why(why),
                )),
            },
        }
    }

    fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
        Some(self)
    }
}

impl<S: Sensor> Interpolated<S> {
    /// Why a time has no interpolation, in words.
    fn why(&self, why: Why) -> String {
        match why {
            Why::Before(first) => {
                format!("it is before the sensor's first sample, at {first} s (never extrapolated)")
            }
            Why::After(last) => {
                format!("it is after the sensor's last sample, at {last} s (never extrapolated)")
            }
            Why::Gap(a, b) => format!(
                "it lies between samples at {a} s and {b} s, a gap of {} s, longer than max_gap {} s",
                b - a,
                self.max_gap
            ),
        }
    }
}

/// An interpolated sample is read from the two samples around it (one,
/// on a sample or where it is masked).
impl<S: Sensor> Route for Interpolated<S> {
    type Origin = SensorOrigin;

    fn route(&self, index: usize) -> Routes<'_, SensorOrigin> {
        let reads = self.sensor.storage();
        match self.places.get(index) {
            Some(&Place::At(k) | &Place::Outside { nearest: k, .. }) => Routes::one(reads, k),
            Some(&Place::Between(k, _)) => Routes::each(reads, [k, k + 1]),
            None => Routes::None,
        }
    }

    fn ahead(&self) -> Ahead {
        Ahead::of(self.sensor.storage())
    }

    /// The nearer of the samples it is read from, as sample `index`.
    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        let nearest = match *self.places.get(index)? {
            Place::At(k) | Place::Outside { nearest: k, .. } => k,
            Place::Between(k, w) => k + usize::from(w > 0.5),
        };
        Some(storage::Renumber::at(
            SensorOrigin::of(&self.sensor, nearest),
            index,
        ))
    }
}

impl<S: fmt::Debug> fmt::Debug for Interpolated<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} interpolated at {} times (max_gap {} s, {:?})",
            self.sensor,
            self.places.len(),
            self.max_gap,
            self.gaps
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Series;

    fn imu(times: Vec<f64>) -> Series<impl Fn(usize) -> Result<f64>> {
        let values: Vec<f64> = times.iter().map(|t| 100.0 * t).collect();
        Series::new("imu", Timestamps::new("imu", times).unwrap(), move |i| {
            Ok(values[i])
        })
    }

    #[test]
    fn inside_is_linear_outside_is_masked_with_the_nearest_sample() {
        let s = Interpolated::new(
            imu(vec![1.0, 2.0, 4.0]),
            &[0.5, 1.0, 1.25, 3.0, 4.0, 5.0],
            10.0,
        )
        .unwrap();
        let got: Vec<(f64, bool)> = (0..6)
            .map(|i| s.get(i).map(|m| (m.value, m.valid)).unwrap())
            .collect();
        assert_eq!(
            got,
            [
                (100.0, false),
                (100.0, true),
                (125.0, true),
                (300.0, true),
                (400.0, true),
                (400.0, false)
            ]
        );
        assert_eq!(s.valid(), 4);
    }

    #[test]
    fn a_long_gap_is_masked_or_refused_and_an_exact_time_is_its_sample() {
        let s = Interpolated::new(imu(vec![0.0, 0.1, 1.0]), &[0.05, 0.1, 0.3, 0.9], 0.5).unwrap();
        assert!(s.get(0).unwrap().valid);
        assert!(
            s.get(1).unwrap().valid,
            "on a sample, whatever the gap after it"
        );
        let masked = s.get(2).unwrap();
        assert_eq!(
            (masked.value, masked.valid),
            (10.0, false),
            "nearest: 0.1 s"
        );
        assert_eq!(s.get(3).unwrap().value, 100.0, "nearest: 1.0 s");
        let refusing = s.gaps(Gaps::Refuse);
        let err = refusing.get(2).unwrap_err();
        let message = format!("{err:#}");
        assert!(
            message.contains("sensor `imu` interpolated at 0.3 s"),
            "{message}"
        );
        assert!(message.contains("longer than max_gap 0.5 s"), "{message}");
        assert!(refusing.get(0).is_ok());
        assert!(matches!(
            refusing.get(4),
            Err(Error::IndexOutOfRange { index: 4, .. })
        ));
    }

    #[test]
    fn bad_parameters_are_errors_naming_the_sensor() {
        let err = Interpolated::new(imu(vec![0.0, 1.0]), &[0.5], 0.0).unwrap_err();
        assert!(err.to_string().contains("`imu`"), "{err}");
        assert!(Interpolated::new(imu(vec![0.0, 1.0]), &[0.5, 0.2], 1.0).is_err());
        let empty = Interpolated::new(imu(vec![]), &[0.5], 1.0).unwrap_err();
        assert!(matches!(empty, Error::EmptySensor { .. }), "{empty}");
    }

    #[test]
    fn it_reads_the_samples_around_each_time() {
        let s = Interpolated::new(imu(vec![0.0, 1.0, 2.0]), &[0.25, 1.0, 3.0], 5.0).unwrap();
        let origin = SensorOrigin::of(&s, 0);
        assert_eq!((origin.sensor.as_str(), origin.index), ("imu", 0));
        assert_eq!(Ahead::of(s.storage()), Ahead::Nothing);
    }
}

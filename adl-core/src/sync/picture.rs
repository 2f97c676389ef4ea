//! A recording's synchronization drawn (issue 44): the picture people
//! make by hand of a bag or a recording, as SVG.
//!
//! Each sensor is a lane on one time axis, its timestamps ticks on it: a
//! stamp some sample reads is dark, one no sample reads is pale. The
//! reference sensor's lane is first. Each sample is a line from its
//! reference stamp to the stamp it reads of every other sensor: green
//! within the tolerance, red beyond it. A reference stamp that no sample
//! reads (the policy dropped it: no match within the tolerance) is a red
//! cross on its lane. A stretch of another sensor's lane with no stamp
//! for more than twice the tolerance (where no reference stamp can find a
//! match) is shaded red. An interpolated sensor
//! ([`SyncPicture::interpolated`]) shows the stamps of the sensor it
//! interpolates: each sample's time of it a blue line to the stamp it is
//! at, or two dashed ones to the stamps it is interpolated between, or,
//! masked, an orange diamond. Hovering a line or a mark shows what it is
//! (its `<title>`). Every mark carries a `class` (`stamp`, `unread`,
//! `match`, `beyond`, `dropped`, `gap`, `interpolation`, `masked`) for
//! tools that read the picture.

use std::fmt::Write as _;

use crate::{Error, Indices, InterpolatedFrom, Result};

/// Width and heights of the picture, in pixels.
const WIDTH: f64 = 1200.0;
const LEFT: f64 = 230.0;
const RIGHT: f64 = 40.0;
const TOP: f64 = 40.0;
const LANE: f64 = 70.0;
const TICK: f64 = 9.0;

/// A recording's synchronization, to draw: its sensors' timestamps, which
/// stamp each sample reads of each, the reference sensor and the
/// tolerance. Made by
/// [`Recording::sync_picture`](crate::Recording::sync_picture), or from
/// the parts with [`SyncPicture::new`].
#[derive(Debug, Clone)]
pub struct SyncPicture {
    title: String,
    /// Each sensor's name and timestamps, the reference first.
    lanes: Vec<(String, Vec<f64>)>,
    /// Per lane, the stamp each sample reads.
    reads: Vec<Vec<u32>>,
    tolerance: Option<f64>,
    /// Per lane, for an interpolated sensor's: what each of its times
    /// (the index a sample reads) is made from, among `lanes`' stamps
    /// (the sensor it interpolates).
    interpolated: Vec<Option<Vec<InterpolatedFrom>>>,
}

impl SyncPicture {
    /// The picture of sensors `timestamps` (name and stamps, in seconds)
    /// synchronized as `indices` says, `reference` drawn first (its stamps
    /// what each match starts from), matches further apart than
    /// `tolerance` marked. Errors name a reference or a sensor that is
    /// not there, and an index past a sensor's stamps.
    pub fn new(
        title: impl Into<String>,
        timestamps: Vec<(String, Vec<f64>)>,
        indices: &Indices,
        reference: &str,
        tolerance: Option<f64>,
    ) -> Result<SyncPicture> {
        let Some(first) = timestamps.iter().position(|(name, _)| name == reference) else {
            return Err(Error::invalid(
                "reference",
                format!(
                    "no sensor `{reference}` to draw the synchronization from (the sensors: {})",
                    names(&timestamps)
                ),
            ));
        };
        // The reference first, the others in the order given.
        let mut lanes = timestamps;
        let reference_lane = lanes.remove(first);
        lanes.insert(0, reference_lane);
        let mut reads = Vec::with_capacity(lanes.len());
        for (name, stamps) in &lanes {
            let column = indices.column(name).ok_or_else(|| {
                Error::invalid(
                    "indices",
                    format!(
                        "no indices for sensor `{name}` (they name: {})",
                        indices.names().join(", ")
                    ),
                )
            })?;
            if let Some(&past) = column.iter().find(|&&i| i as usize >= stamps.len()) {
                return Err(Error::invalid(
                    "indices",
                    format!(
                        "sensor `{name}` has {} timestamps; a sample reads its index {past}",
                        stamps.len()
                    ),
                ));
            }
            reads.push(column.to_vec());
        }
        if let Some(t) = tolerance.filter(|t| !(t.is_finite() && *t >= 0.0)) {
            return Err(Error::invalid(
                "tolerance",
                format!("a tolerance is a finite number of seconds, at least 0; it is {t}"),
            ));
        }
        let interpolated = vec![None; lanes.len()];
        Ok(SyncPicture {
            title: title.into(),
            lanes,
            reads,
            tolerance,
            interpolated,
        })
    }

    /// Draw sensor `name` as the interpolated sensor it is
    /// ([`Interpolated`](crate::Interpolated)): its lane shows the stamps
    /// of the sensor it interpolates (`stamps`), and each sample's time
    /// of it is drawn from what it is made of (`made_from`, one per time,
    /// [`Interpolated::made_from`](crate::Interpolated::made_from)): a
    /// line to the stamp it is at, two dashed lines to the stamps it is
    /// interpolated between, or, masked, an orange diamond at the
    /// reference's time. Errors name a sensor not drawn, the reference,
    /// and a time or a stamp out of range.
    pub fn interpolated(
        mut self,
        name: &str,
        stamps: Vec<f64>,
        made_from: Vec<InterpolatedFrom>,
    ) -> Result<SyncPicture> {
        let Some(lane) = self.lanes.iter().position(|(n, _)| n == name) else {
            return Err(Error::invalid(
                "interpolated",
                format!(
                    "no sensor `{name}` in the picture (its sensors: {})",
                    names(&self.lanes)
                ),
            ));
        };
        if lane == 0 {
            return Err(Error::invalid(
                "interpolated",
                format!("`{name}` is the reference: the times interpolated at are another's"),
            ));
        }
        if let Some(&past) = self.reads[lane]
            .iter()
            .find(|&&i| i as usize >= made_from.len())
        {
            return Err(Error::invalid(
                "interpolated",
                format!(
                    "`{name}` is interpolated at {} times; a sample reads its time {past}",
                    made_from.len()
                ),
            ));
        }
        let last = made_from.iter().map(|from| match *from {
            InterpolatedFrom::At(k) | InterpolatedFrom::Masked { nearest: k } => k,
            InterpolatedFrom::Between(k) => k + 1,
        });
        if let Some(past) = last.filter(|&k| k >= stamps.len()).max() {
            return Err(Error::invalid(
                "interpolated",
                format!(
                    "`{name}` has {} stamps; a time is made from its stamp {past}",
                    stamps.len()
                ),
            ));
        }
        self.lanes[lane].1 = stamps;
        self.interpolated[lane] = Some(made_from);
        Ok(self)
    }

    /// The samples drawn.
    pub fn len(&self) -> usize {
        self.reads.first().map_or(0, Vec::len)
    }

    /// Whether there is no sample to draw.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The picture as an SVG document.
    pub fn to_svg(&self) -> String {
        let stamps = self.lanes.iter().flat_map(|(_, s)| s.iter().copied());
        let (lo, hi) = stamps
            .filter(|t| t.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
                (lo.min(t), hi.max(t))
            });
        let (lo, hi) = if lo > hi {
            (0.0, 1.0)
        } else if hi - lo < 1e-9 {
            (lo - 0.5, hi + 0.5)
        } else {
            (lo, hi)
        };
        let x = |t: f64| LEFT + (t - lo) / (hi - lo) * (WIDTH - LEFT - RIGHT);
        let y = |lane: usize| TOP + LANE * (lane as f64 + 0.5);
        let height = TOP + LANE * self.lanes.len() as f64 + 40.0;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="13">"##
        );
        let _ = writeln!(
            svg,
            r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
        );
        let tolerance = self.tolerance.map_or_else(
            || "no tolerance given".to_owned(),
            |t| format!("tolerance {} s", seconds(t)),
        );
        let _ = writeln!(
            svg,
            r##"<text x="10" y="22" font-size="15">{}: {} samples synchronized to {}, {tolerance}</text>"##,
            escape(&self.title),
            self.len(),
            escape(&self.lanes[0].0),
        );
        // Which stamps of each lane some sample reads.
        let read: Vec<Vec<bool>> = self
            .lanes
            .iter()
            .zip(&self.reads)
            .zip(&self.interpolated)
            .map(|(((_, stamps), column), from)| {
                let mut read = vec![false; stamps.len()];
                for &i in column {
                    match from.as_ref().map(|f| f[i as usize]) {
                        None => read[i as usize] = true,
                        Some(InterpolatedFrom::At(k)) => read[k] = true,
                        Some(InterpolatedFrom::Between(k)) => {
                            read[k] = true;
                            read[k + 1] = true;
                        }
                        Some(InterpolatedFrom::Masked { .. }) => {}
                    }
                }
                read
            })
            .collect();
        // The lanes, their gaps, their names and their stamps.
        for (lane, (name, stamps)) in self.lanes.iter().enumerate() {
            let yl = y(lane);
            // A gap: two stamps of another sensor further apart than twice
            // the tolerance (no reference stamp between them can match)
            // and than 2.5 of its usual intervals (a dropout, not its
            // rate).
            if let Some(tol) = self.tolerance.filter(|_| lane > 0) {
                let usual = 2.5 * median_interval(stamps);
                for pair in stamps.windows(2) {
                    let (a, b) = (pair[0], pair[1]);
                    if a.is_finite() && b.is_finite() && b - a > 2.0 * tol && b - a > usual {
                        let _ = writeln!(
                            svg,
                            r##"<rect class="gap" x="{:.2}" y="{}" width="{:.2}" height="{}" fill="#f6c6c6"><title>{}: no stamp from {a} s to {b} s ({:.6} s, beyond twice the tolerance)</title></rect>"##,
                            x(a),
                            yl - TICK - 4.0,
                            x(b) - x(a),
                            2.0 * TICK + 8.0,
                            escape(name),
                            b - a,
                        );
                    }
                }
            }
            let _ = writeln!(
                svg,
                r##"<line x1="{LEFT}" y1="{yl}" x2="{}" y2="{yl}" stroke="#c8c8c8"/><text x="10" y="{}" class="lane">{}{}</text>"##,
                WIDTH - RIGHT,
                yl + 4.0,
                escape(name),
                if lane == 0 { " (reference)" } else { "" },
            );
            for (i, &t) in stamps.iter().enumerate() {
                if !t.is_finite() {
                    continue;
                }
                let (class, colour) = if read[lane][i] {
                    ("stamp", "#202020")
                } else {
                    ("unread", "#b0b0b0")
                };
                let _ = writeln!(
                    svg,
                    r##"<line class="{class}" x1="{xt:.2}" y1="{}" x2="{xt:.2}" y2="{}" stroke="{colour}" stroke-width="1.5"><title>{} [{i}] at {t} s{}</title></line>"##,
                    yl - TICK,
                    yl + TICK,
                    escape(name),
                    if read[lane][i] {
                        ""
                    } else {
                        ": read by no sample"
                    },
                    xt = x(t),
                );
            }
        }
        // Each sample's matches, from its reference stamp.
        let reference = &self.lanes[0].1;
        for sample in 0..self.len() {
            let r = self.reads[0][sample] as usize;
            let tr = reference[r];
            for lane in 1..self.lanes.len() {
                let (name, stamps) = &self.lanes[lane];
                let i = self.reads[lane][sample] as usize;
                if let Some(from) = &self.interpolated[lane] {
                    self.draw_interpolation(&mut svg, (sample, r, tr), lane, from[i], (&x, &y));
                    continue;
                }
                let t = stamps[i];
                let apart = (t - tr).abs();
                let beyond = self.tolerance.is_some_and(|tol| apart > tol);
                let (class, colour) = if beyond {
                    ("beyond", "#d62728")
                } else {
                    ("match", "#2ca02c")
                };
                let _ = writeln!(
                    svg,
                    r##"<line class="{class}" x1="{:.2}" y1="{}" x2="{:.2}" y2="{}" stroke="{colour}" stroke-width="{}"><title>sample {sample}: {} [{r}] at {tr} s reads {} [{i}] at {t} s, {apart:.6} s apart{}</title></line>"##,
                    x(tr),
                    y(0) + TICK,
                    x(t),
                    y(lane) - TICK,
                    if beyond { 2.5 } else { 1.0 },
                    escape(&self.lanes[0].0),
                    escape(name),
                    if beyond { ", beyond the tolerance" } else { "" },
                );
            }
        }
        // Reference stamps that no sample reads: dropped by the policy.
        for (i, &t) in reference.iter().enumerate() {
            if read[0][i] || !t.is_finite() {
                continue;
            }
            let (xt, yl) = (x(t), y(0));
            let _ = writeln!(
                svg,
                r##"<path class="dropped" d="M{:.2},{:.2} L{:.2},{:.2} M{:.2},{:.2} L{:.2},{:.2}" stroke="#d62728" stroke-width="3"><title>{} [{i}] at {t} s: no sample (no match within the tolerance)</title></path>"##,
                xt - 6.0,
                yl - 6.0,
                xt + 6.0,
                yl + 6.0,
                xt - 6.0,
                yl + 6.0,
                xt + 6.0,
                yl - 6.0,
                escape(&self.lanes[0].0),
            );
        }
        // The time axis.
        let axis = TOP + LANE * self.lanes.len() as f64 + 10.0;
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{axis}" x2="{}" y2="{axis}" stroke="#404040"/>"##,
            WIDTH - RIGHT
        );
        for k in 0..=4 {
            let t = lo + (hi - lo) * f64::from(k) / 4.0;
            let _ = writeln!(
                svg,
                r##"<text x="{:.2}" y="{}" text-anchor="middle">{t:.3} s</text>"##,
                x(t),
                axis + 18.0
            );
        }
        svg.push_str("</svg>\n");
        svg
    }

    /// Sample `sample`'s reading of interpolated lane `lane`, made
    /// `from` its stamps, from its reference stamp `r` at `tr`.
    fn draw_interpolation(
        &self,
        svg: &mut String,
        (sample, r, tr): (usize, usize, f64),
        lane: usize,
        from: InterpolatedFrom,
        (x, y): (&dyn Fn(f64) -> f64, &dyn Fn(usize) -> f64),
    ) {
        let (name, stamps) = &self.lanes[lane];
        let reference = escape(&self.lanes[0].0);
        let name = escape(name);
        let line = |svg: &mut String, k: usize, dashed: bool, what: &str| {
            let _ = writeln!(
                svg,
                r##"<line class="interpolation" x1="{:.2}" y1="{}" x2="{:.2}" y2="{}" stroke="#1f77b4" stroke-width="1"{}><title>sample {sample}: {reference} [{r}] at {tr} s {what} {name} [{k}] at {} s</title></line>"##,
                x(tr),
                y(0) + TICK,
                x(stamps[k]),
                y(lane) - TICK,
                if dashed {
                    r#" stroke-dasharray="4 3""#
                } else {
                    ""
                },
                stamps[k],
            );
        };
        match from {
            InterpolatedFrom::At(k) => line(svg, k, false, "is the time of"),
            InterpolatedFrom::Between(k) => {
                line(svg, k, true, "is interpolated from");
                line(svg, k + 1, true, "is interpolated from");
            }
            InterpolatedFrom::Masked { nearest } => {
                let (xt, yl) = (x(tr), y(lane));
                let _ = writeln!(
                    svg,
                    r##"<path class="masked" d="M{:.2},{:.2} L{:.2},{:.2} L{:.2},{:.2} L{:.2},{:.2} Z" fill="#ff7f0e"><title>sample {sample}: {name} masked at {tr} s (nothing to interpolate from within its max gap; the nearest is [{nearest}] at {} s)</title></path>"##,
                    xt,
                    yl - 7.0,
                    xt + 7.0,
                    yl,
                    xt,
                    yl + 7.0,
                    xt - 7.0,
                    yl,
                    stamps[nearest],
                );
            }
        }
    }

    /// Write [`to_svg`](Self::to_svg) to `path`; an error names the path.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        std::fs::write(path, self.to_svg()).map_err(|e| {
            Error::invalid(
                "path",
                format!("cannot write the picture to {}: {e}", path.display()),
            )
        })
    }
}

/// The median interval between consecutive finite `stamps` (0 for
/// fewer than two).
fn median_interval(stamps: &[f64]) -> f64 {
    let mut intervals: Vec<f64> = stamps
        .windows(2)
        .map(|p| p[1] - p[0])
        .filter(|d| d.is_finite())
        .collect();
    if intervals.is_empty() {
        return 0.0;
    }
    intervals.sort_by(f64::total_cmp);
    intervals[intervals.len() / 2]
}

/// Seconds to 6 decimals, trailing zeros left out.
fn seconds(t: f64) -> String {
    let text = format!("{t:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The sensors' names, for messages.
fn names(timestamps: &[(String, Vec<f64>)]) -> String {
    let names: Vec<&str> = timestamps.iter().map(|(n, _)| n.as_str()).collect();
    names.join(", ")
}

/// `text` for SVG text and attributes: `&`, `<`, `>`, `"` and `'`
/// escaped. The plan's drawing (adl-graph's `svg`) escapes with it too.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(tolerance: Option<f64>) -> SyncPicture {
        let timestamps = vec![
            ("imu".to_owned(), vec![0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]),
            ("camera".to_owned(), vec![0.0, 0.1, 0.2, 0.3]),
        ];
        // Camera stamp 2 dropped; sample 2 reads an IMU stamp 0.1 s away.
        let indices = Indices::new(vec![
            ("imu".into(), vec![0, 2, 2]),
            ("camera".into(), vec![0, 1, 3]),
        ])
        .unwrap();
        SyncPicture::new("drive <1>", timestamps, &indices, "camera", tolerance).unwrap()
    }

    fn count(svg: &str, class: &str) -> usize {
        svg.matches(&format!("class=\"{class}\"")).count()
    }

    #[test]
    fn every_stamp_match_and_dropped_reference_stamp_is_marked() {
        let svg = picture(Some(0.02)).to_svg();
        // Camera (the reference, first): 3 stamps read, 1 dropped; IMU: 2
        // read, 5 not.
        assert_eq!(count(&svg, "stamp"), 3 + 2);
        assert_eq!(count(&svg, "unread"), 1 + 5);
        assert_eq!(count(&svg, "dropped"), 1);
        assert_eq!(count(&svg, "match"), 2);
        assert_eq!(count(&svg, "beyond"), 1);
        // The IMU's stamps are 0.05 s apart, beyond twice 0.02 s each
        // time, but its rate: no gap.
        assert_eq!(count(&svg, "gap"), 0);
        assert!(svg.contains("sample 2: camera [3] at 0.3 s reads imu [2] at 0.1 s"));
        assert!(svg.contains("camera (reference)"));
        assert!(svg.contains("drive &lt;1&gt;"));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn a_dropout_of_another_sensor_beyond_the_tolerance_is_a_gap() {
        let timestamps = vec![
            ("camera".to_owned(), vec![0.0, 0.5, 1.0]),
            ("imu".to_owned(), vec![0.0, 0.1, 0.2, 0.8, 0.9, 1.0]),
        ];
        let indices = Indices::new(vec![
            ("camera".into(), vec![0, 2]),
            ("imu".into(), vec![0, 5]),
        ])
        .unwrap();
        let picture = SyncPicture::new("t", timestamps, &indices, "camera", Some(0.05)).unwrap();
        let svg = picture.to_svg();
        assert_eq!((count(&svg, "gap"), count(&svg, "dropped")), (1, 1));
        assert!(svg.contains("imu: no stamp from 0.2 s to 0.8 s"), "{svg}");
        assert!(svg.contains("tolerance 0.05 s"));
    }

    #[test]
    fn an_interpolated_sensor_is_drawn_from_the_stamps_it_is_made_of() {
        // The IMU interpolated at the camera's times: 0.0 at a stamp, 0.5
        // between two, 1.0 in a gap (masked).
        let timestamps = vec![
            ("camera".to_owned(), vec![0.0, 0.5, 1.0]),
            ("imu".to_owned(), vec![0.0, 0.5, 1.0]),
        ];
        let indices = Indices::new(vec![
            ("camera".into(), vec![0, 1, 2]),
            ("imu".into(), vec![0, 1, 2]),
        ])
        .unwrap();
        let made_from = vec![
            InterpolatedFrom::At(0),
            InterpolatedFrom::Between(1),
            InterpolatedFrom::Masked { nearest: 2 },
        ];
        let picture = SyncPicture::new("t", timestamps, &indices, "camera", None)
            .unwrap()
            .interpolated("imu", vec![0.0, 0.4, 0.6, 0.7], made_from.clone())
            .unwrap();
        let svg = picture.to_svg();
        assert_eq!(count(&svg, "interpolation"), 1 + 2);
        assert_eq!(count(&svg, "masked"), 1);
        assert_eq!(count(&svg, "match"), 0);
        // The IMU's stamps 0, 1 and 2 are read; 3 (0.7 s) is not.
        assert_eq!(count(&svg, "unread"), 1);
        assert!(svg.contains("imu masked at 1 s"), "{svg}");
        assert!(
            svg.contains("is interpolated from imu [2] at 0.6 s"),
            "{svg}"
        );
        let again = SyncPicture::new(
            "t",
            vec![
                ("camera".to_owned(), vec![0.0]),
                ("imu".to_owned(), vec![0.0]),
            ],
            &Indices::new(vec![("camera".into(), vec![0]), ("imu".into(), vec![0])]).unwrap(),
            "camera",
            None,
        )
        .unwrap();
        let e = again
            .clone()
            .interpolated("imu", vec![0.0], vec![InterpolatedFrom::Between(0)])
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("has 1 stamps; a time is made from its stamp 1"),
            "{e}"
        );
        let e = again
            .interpolated("camera", vec![0.0], made_from)
            .unwrap_err();
        assert!(e.to_string().contains("is the reference"), "{e}");
    }

    #[test]
    fn without_a_tolerance_nothing_is_beyond_it() {
        let svg = picture(None).to_svg();
        assert_eq!((count(&svg, "match"), count(&svg, "beyond")), (3, 0));
        assert_eq!(count(&svg, "gap"), 0);
    }

    #[test]
    fn a_missing_reference_or_an_index_past_the_stamps_is_named() {
        let timestamps = vec![("imu".to_owned(), vec![0.0, 1.0])];
        let indices = Indices::new(vec![("imu".into(), vec![0, 2])]).unwrap();
        let e = SyncPicture::new("t", timestamps.clone(), &indices, "lidar", None).unwrap_err();
        assert!(
            e.to_string().contains("no sensor `lidar`") && e.to_string().contains("imu"),
            "{e}"
        );
        let e = SyncPicture::new("t", timestamps, &indices, "imu", None).unwrap_err();
        assert!(
            e.to_string()
                .contains("sensor `imu` has 2 timestamps; a sample reads its index 2"),
            "{e}"
        );
        let timestamps = vec![("imu".to_owned(), vec![0.0, 1.0])];
        let indices = Indices::new(vec![("imu".into(), vec![0, 1])]).unwrap();
        let e = SyncPicture::new("t", timestamps, &indices, "imu", Some(f64::NAN)).unwrap_err();
        assert!(e.to_string().contains("tolerance"), "{e}");
    }
}

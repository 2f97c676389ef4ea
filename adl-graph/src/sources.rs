//! [`Sources`]: the source side of a loader's plan, as its dataset tells
//! it: how many samples, and where the first one is read from (its trace,
//! each sensor's name and file).

use adl_core::{Dataset, Origin};

/// What a loader's dataset says of where its samples come from, for the
/// pictures of its [plan](crate::loader::Loader::plan): the number of
/// samples, and the [`Origin`] of the first (its trace, which synchronizes
/// the sensors and how, and each sensor with its file where it reads one,
/// and its window where it is one). A plan
/// made by the [`Planner`](crate::Planner) alone has none.
///
/// ```
/// use adl::graph::loader::Loader;
/// use adl::pipeline::Stages;
/// use adl::{Recording, Series, Timestamps, collate::DefaultCollate, sync::Nearest};
///
/// let s = |n: &str| Series::new(n, Timestamps::new(n, vec![0.0, 0.1]).unwrap(), |i| Ok(i as f32));
/// let trace = Recording::new("drive-7", vec![s("camera"), s("radar")], &Nearest::new("camera", 0.01)?)?;
/// let loader = Loader::new(trace, Stages::new().with_collate(DefaultCollate)).build()?;
/// let sources = loader.plan().sources().expect("a loader's plan knows its dataset");
/// assert_eq!(sources.samples, 2);
/// let first = sources.first.as_ref().unwrap();
/// assert_eq!(first.trace.as_deref(), Some("drive-7"));
/// assert_eq!(first.sensors[1].sensor, "radar");
/// assert!(loader.plan().to_svg()?.contains(">radar<"));
///
/// // The policy that synchronizes them, and a windowed sensor's window.
/// use adl::Window;
/// let imu = Window::new(s("imu"), 1, 0)?.clamped();
/// let trace = Recording::new("drive-8", (s("camera"), imu), &Nearest::new("camera", 0.01)?)?;
/// let loader = Loader::new(trace, Stages::new().with_collate(DefaultCollate)).build()?;
/// let svg = loader.plan().to_svg()?;
/// assert!(svg.contains("synchronized: Nearest"), "{svg}");
/// assert!(svg.contains("window: 1 before, 0 after"), "{svg}");
/// assert!(loader.plan().to_dot().contains("window: 1 before, 0 after"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sources {
    /// The dataset's samples.
    pub samples: usize,
    /// Where its first sample is read from ([`Origin::of`]); none for
    /// an empty dataset, or one whose origin fails.
    pub first: Option<Origin>,
}

impl Sources {
    /// What `dataset` says: its length and its first sample's origin (read
    /// without reading the sample).
    pub fn of<D: Dataset + ?Sized>(dataset: &D) -> Self {
        let samples = dataset.len();
        let first = if samples == 0 {
            None
        } else {
            Origin::of(dataset, 0).ok()
        };
        Sources { samples, first }
    }
}

/// A box drawn before a plan's source: its lines (the first is its
/// name) and its tooltip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceBox {
    pub(crate) lines: Vec<String>,
    pub(crate) tooltip: Option<String>,
}

impl Sources {
    /// The boxes the pictures draw before the source: each sensor of the
    /// first sample (its name, its file where it reads one, its window
    /// where it is one), then the trace that synchronizes them and by what
    /// policy (or the dataset), with the number of samples. Each sensor's box has an arrow into the last box, and the
    /// last box one into the source.
    pub(crate) fn boxes(&self) -> (Vec<SourceBox>, SourceBox) {
        let sensors: Vec<SourceBox> = self
            .first
            .iter()
            .flat_map(|origin| &origin.sensors)
            .map(|sensor| {
                let mut lines = vec![sensor.sensor.clone()];
                if let Some(file) = &sensor.file {
                    lines.push(format!("file {}", last_parts(file)));
                }
                if let Some((past, future)) = sensor.window {
                    lines.push(format!("window: {past} before, {future} after"));
                }
                SourceBox {
                    lines,
                    tooltip: sensor.file.clone(),
                }
            })
            .collect();
        let trace = self.first.as_ref().and_then(|o| o.trace.as_deref());
        let mut lines = match trace {
            Some(name) => vec![format!("trace `{name}`")],
            None => vec!["dataset".to_owned()],
        };
        if sensors.len() > 1 {
            lines.push(match self.first.as_ref().and_then(|o| o.sync.as_deref()) {
                Some(policy) => format!("synchronized: {policy}"),
                None => "synchronized".to_owned(),
            });
        }
        let s = if self.samples == 1 { "" } else { "s" };
        lines.push(format!("{} sample{s}", self.samples));
        (
            sensors,
            SourceBox {
                lines,
                tooltip: None,
            },
        )
    }
}

/// The last two parts of a path or URL (`radar/data.npy`): enough to know
/// the file, short enough to draw; the tooltip has it whole.
fn last_parts(file: &str) -> &str {
    let trimmed = file.trim_end_matches(['/', '\\']);
    let mut cuts = trimmed.rmatch_indices(['/', '\\']).map(|(i, _)| i);
    match (cuts.next(), cuts.next()) {
        (Some(_), Some(second)) => &trimmed[second + 1..],
        _ => trimmed,
    }
}

#[cfg(test)]
mod tests {
    use super::last_parts;

    #[test]
    fn a_file_is_named_by_its_last_two_parts() {
        assert_eq!(last_parts("/data/run-1/radar/data.npy"), "radar/data.npy");
        assert_eq!(last_parts("s3://bucket/cam/000001.jpg"), "cam/000001.jpg");
        assert_eq!(last_parts("data.npy"), "data.npy");
        assert_eq!(last_parts("radar/"), "radar");
    }
}

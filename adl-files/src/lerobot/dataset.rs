//! [`LeRobot`]: a LeRobot dataset as an ADL dataset, its items as
//! lerobot's `LeRobotDataset` gives them.

use std::collections::BTreeMap;
use std::sync::Arc;

use adl_core::transform::ImageLayout;
use adl_core::{
    BoxedSensor, Dataset, Error, OnError, Record, Recording, Result, Sensor, Series, Timestamps,
};
use ndarray::{ArrayD, IxDyn};

use super::columns::{Column, Values, read_columns};
use super::episodes::{self, EpisodeMeta};
use super::field::Field;
use super::info::{Feature, Info, Version};
use crate::location::Location;
use crate::video::{Frames, Video};

/// The columns every LeRobot table has, after the features.
const DEFAULT_COLUMNS: [&str; 5] = [
    "timestamp",
    "frame_index",
    "episode_index",
    "index",
    "task_index",
];

/// lerobot's default tolerance between a frame's time in the table and
/// in its video, in seconds.
pub const DEFAULT_TOLERANCE_S: f64 = 1e-4;

/// How a [`LeRobot`] dataset is opened: which episodes, windows of
/// frames before and after each (`delta_timestamps`), the tolerance of
/// the frames' times, the cameras' layout, and what to do with an episode
/// that cannot be read. [`LeRobot::options`] starts one.
#[derive(Debug, Clone)]
pub struct LeRobotOptions {
    episodes: Option<Vec<i64>>,
    delta_timestamps: Vec<(String, Vec<f64>)>,
    tolerance_s: f64,
    layout: ImageLayout,
    on_error: OnError,
}

impl Default for LeRobotOptions {
    fn default() -> Self {
        LeRobotOptions {
            episodes: None,
            delta_timestamps: Vec::new(),
            tolerance_s: DEFAULT_TOLERANCE_S,
            layout: ImageLayout::Chw,
            on_error: OnError::Fail,
        }
    }
}

impl LeRobotOptions {
    /// Only these episodes (their `episode_index`), as lerobot's
    /// `episodes=[...]`: in v3.0 in the order of the dataset's files, in
    /// v2.1 in the order given (as lerobot reads each).
    pub fn episodes(mut self, episodes: impl IntoIterator<Item = i64>) -> Self {
        self.episodes = Some(episodes.into_iter().collect());
        self
    }

    /// Each of these keys (a feature or camera) read as a window of frames
    /// at these offsets in seconds from the item's frame, as lerobot's
    /// `delta_timestamps`: each offset a multiple of `1 / fps` (within the
    /// tolerance), the frames past an episode's ends repeating its first or
    /// last and marked in `{key}_is_pad`.
    pub fn delta_timestamps<K: Into<String>>(
        mut self,
        deltas: impl IntoIterator<Item = (K, Vec<f64>)>,
    ) -> Self {
        self.delta_timestamps = deltas.into_iter().map(|(k, d)| (k.into(), d)).collect();
        self
    }

    /// The most a frame's time in the table may differ from the nearest
    /// frame's in its video, in seconds ([`DEFAULT_TOLERANCE_S`], lerobot's
    /// `tolerance_s`, by default).
    pub fn tolerance_s(mut self, tolerance_s: f64) -> Self {
        self.tolerance_s = tolerance_s;
        self
    }

    /// The cameras' frames `[3, H, W]` ([`ImageLayout::Chw`], lerobot's,
    /// the default) or `[H, W, 3]`.
    pub fn layout(mut self, layout: ImageLayout) -> Self {
        self.layout = layout;
        self
    }

    /// What an episode that cannot be read does when the dataset is opened
    /// (a video missing or cut short, a frame's time with no frame within
    /// the tolerance): [`OnError::Fail`] (the default) fails the opening,
    /// naming it; [`OnError::Skip`] leaves the episode out, listed in
    /// [`LeRobot::skipped`].
    pub fn on_error(mut self, on_error: OnError) -> Self {
        self.on_error = on_error;
        self
    }

    /// The dataset at `root` (a path, or a folder in an object store),
    /// opened with these options.
    pub fn open(self, root: impl Into<Location>) -> Result<LeRobot> {
        LeRobot::open_with(root.into(), self)
    }
}

/// An episode read: where its rows are, and its cameras.
#[derive(Debug, Clone)]
struct Episode {
    meta: EpisodeMeta,
    /// Its first row in the dataset's columns.
    start: usize,
    /// Its first item in the dataset.
    first_item: usize,
    /// Each camera (in the order of [`LeRobot::camera_keys`]) at its
    /// frames' times.
    cameras: Vec<Video>,
}

/// A key read as a window of frames.
#[derive(Debug, Clone)]
struct Delta {
    key: String,
    /// The window's offsets, in frames.
    offsets: Vec<i64>,
}

/// A LeRobot dataset (format v3.0 of lerobot 0.4, or v2.1 of lerobot 0.3)
/// as an ADL [`Dataset`]: its items as lerobot's `LeRobotDataset` gives
/// them, each a [`Record`] of [`Field`]s in lerobot's order: the cameras
/// (their frames, not yet decoded: decoded when a batch is collated, a
/// batch's grouped by video file and group of pictures), then the table's
/// columns (the features, then `timestamp`, `frame_index`,
/// `episode_index`, `index`, `task_index`), then with
/// [`delta_timestamps`](LeRobotOptions::delta_timestamps) a `{key}_is_pad`
/// mask for each windowed key, then `task` (the frame's task, text).
///
/// **Episodes as traces.** Each episode is also a trace: [`episode`]
/// gives it as a [`Recording`] of one sensor per column and per camera, at
/// the table's timestamps; [`camera`](LeRobot::camera) gives a camera of
/// an episode as its [`Video`] sensor, of decoded frames.
///
/// **Reading.** The tables' columns are read with arrow-rs' Parquet
/// reader when the dataset is opened (the columns the items have, no
/// other), and each camera's video index: every frame's time in the table
/// (plus, in v3.0, the episode's start in its video file) is checked then
/// against its video's frames, the nearest within the tolerance, so that
/// no item fails on it mid-epoch. A dataset in an object store is read the
/// same way: its tables whole, each video's index with a few ranged reads,
/// and the pictures a group at a time.
///
/// **Values.** An item's arrays keep the table's element types (lerobot's
/// `LeRobotDataset` makes every float `float32` and every integer `int64`:
/// adl's Python `LeRobotDataset` does too). A feature of shape `[1]`
/// stored as a number is a 0-d array, as lerobot gives it.
///
/// ```
/// use adl::{Collate, Dataset};
/// use adl::collate::DefaultCollate;
/// use adl::files::lerobot::{Field, FieldBatch, LeRobot};
///
/// # let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/lerobot/v30_av1");
/// let dataset = LeRobot::options()
///     .delta_timestamps([("action", vec![0.0, 0.1, 0.2])])
///     .open(&root)?;
/// assert_eq!(dataset.len(), 53);
/// assert_eq!(dataset.fps(), 10.0);
/// let item = dataset.get(16)?;
/// assert!(matches!(item.get("task"), Some(Field::Text(task)) if task == "climb"));
/// let batch = DefaultCollate.collate(vec![dataset.get(0)?, dataset.get(52)?])?;
/// let Some(FieldBatch::U8(front)) = batch.get("observation.images.front") else { panic!() };
/// assert_eq!(front.shape(), &[2, 3, 24, 32]);
/// let Some(FieldBatch::Bool(pad)) = batch.get("action_is_pad") else { panic!() };
/// // The last frame: its window runs past the episode's end.
/// assert_eq!(pad.index_axis(adl::ndarray::Axis(0), 1).iter().collect::<Vec<_>>(), [&false, &true, &true]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`episode`]: LeRobot::episode
#[derive(Debug, Clone)]
pub struct LeRobot {
    root: Location,
    info: Info,
    episodes: Vec<Episode>,
    /// Every column of the items, by name, in lerobot's order: the rows of
    /// the episodes read, one after another.
    columns: Vec<(String, Arc<Column>)>,
    /// The names of the cameras (the features stored as videos).
    camera_keys: Vec<String>,
    deltas: Vec<Delta>,
    /// The tasks, by `task_index`.
    tasks: Vec<String>,
    /// The items' keys, in order.
    names: Arc<[String]>,
    items: usize,
    skipped: Vec<(i64, String)>,
}

impl LeRobot {
    /// Options to open a dataset with, lerobot's defaults.
    pub fn options() -> LeRobotOptions {
        LeRobotOptions::default()
    }

    /// The dataset at `root` (a path, or a folder in an object store),
    /// every episode, with lerobot's defaults.
    pub fn open(root: impl Into<Location>) -> Result<LeRobot> {
        LeRobot::options().open(root)
    }

    fn open_with(root: Location, options: LeRobotOptions) -> Result<LeRobot> {
        let root = root.opened()?;
        let info = Info::read(&root)?;
        if let Some((name, _)) = info.features.iter().find(|(_, f)| f.dtype == "image") {
            return Err(root.error(format!(
                "its feature `{name}` is stored as images in its tables (dtype `image`), which adl \
                 does not read: adl reads cameras stored as videos"
            )));
        }
        let (all, tasks) = episodes::read(&root, &info)?;
        let chosen = choose(&root, &info, all, options.episodes.as_deref())?;
        let camera_keys: Vec<String> = info.video_keys().into_iter().map(String::from).collect();
        let column_names: Vec<String> = info
            .features
            .iter()
            .filter(|(_, f)| f.dtype != "video")
            .map(|(name, _)| name.clone())
            .chain(
                DEFAULT_COLUMNS
                    .iter()
                    .filter(|d| info.feature(d).is_none())
                    .map(|d| d.to_string()),
            )
            .collect();
        let deltas = deltas(&root, &info, &options, &camera_keys, &column_names)?;
        let (columns, runs) = read_tables(&root, &info, &chosen, &column_names)?;
        for (name, column) in &columns {
            let windowed = deltas.iter().any(|d| &d.key == name);
            match column {
                Column::TextLists(_) => {
                    return Err(root.error(format!(
                        "its column `{name}` holds lists of text, which adl does not read as a \
                         feature"
                    )));
                }
                Column::Text(_) if windowed => {
                    return Err(Error::invalid(
                        format_args!("delta_timestamps[{name:?}] of {root}"),
                        "the column holds text, which is not read as a window",
                    ));
                }
                _ => {}
            }
        }
        let timestamps = match columns.iter().find(|(name, _)| name == "timestamp") {
            Some((_, column)) => column.float64(&root, "timestamp")?,
            None => return Err(root.error("its tables have no `timestamp` column")),
        };
        let mut episodes = Vec::with_capacity(chosen.len());
        let mut skipped = Vec::new();
        let mut videos: BTreeMap<String, Video> = BTreeMap::new();
        let mut items = 0;
        // Each episode's videos indexed (their frames' times read): on a
        // terminal, a bar where that takes long.
        let mut progress = (!camera_keys.is_empty()).then(|| {
            adl_core::progress::Progress::items(
                format!("opening {}'s videos", shown_name(&root)),
                chosen.len() as u64,
                "episodes",
            )
        });
        for (meta, start) in chosen.into_iter().zip(runs) {
            let times = &timestamps[start..start + meta.length];
            match cameras(&root, &meta, &camera_keys, times, &options, &mut videos) {
                Ok(cameras) => {
                    episodes.push(Episode {
                        start,
                        first_item: items,
                        cameras,
                        meta: meta.clone(),
                    });
                    items += meta.length;
                }
                Err(e) if options.on_error == OnError::Skip => {
                    skipped.push((meta.index, format!("{e:#}")));
                }
                Err(e) => {
                    return Err(Error::Trace {
                        trace: format!("episode {} of {root}", meta.index),
                        cause: Box::new(e),
                    });
                }
            }
            if let Some(progress) = &mut progress {
                progress.add(1);
            }
        }
        if let Some(progress) = progress {
            progress.finish();
        }
        let names: Vec<String> = camera_keys
            .iter()
            .chain(column_names.iter())
            .cloned()
            .chain(deltas.iter().map(|d| format!("{}_is_pad", d.key)))
            .chain(std::iter::once("task".to_string()))
            .collect();
        Ok(LeRobot {
            root,
            info,
            episodes,
            columns: columns
                .into_iter()
                .map(|(name, column)| (name, Arc::new(column)))
                .collect(),
            camera_keys,
            deltas,
            tasks,
            names: names.into(),
            items,
            skipped,
        })
    }

    /// The dataset's root.
    pub fn root(&self) -> &Location {
        &self.root
    }

    /// Its `meta/info.json`.
    pub fn info(&self) -> &Info {
        &self.info
    }

    /// Its format's version.
    pub fn version(&self) -> Version {
        self.info.version
    }

    /// Frames per second.
    pub fn fps(&self) -> f64 {
        self.info.fps
    }

    /// The number of episodes read.
    pub fn num_episodes(&self) -> usize {
        self.episodes.len()
    }

    /// The `episode_index` of each episode read, in order.
    pub fn episode_indices(&self) -> Vec<i64> {
        self.episodes.iter().map(|e| e.meta.index).collect()
    }

    /// The episodes read, in order, as their metadata describes them.
    pub fn episode_metas(&self) -> impl Iterator<Item = &EpisodeMeta> {
        self.episodes.iter().map(|e| &e.meta)
    }

    /// The episodes left out (with [`OnError::Skip`]): each one's
    /// `episode_index` and why.
    pub fn skipped(&self) -> &[(i64, String)] {
        &self.skipped
    }

    /// The names of the cameras (features stored as videos), in order.
    pub fn camera_keys(&self) -> &[String] {
        &self.camera_keys
    }

    /// The keys of every item, in order.
    pub fn keys(&self) -> &[String] {
        &self.names
    }

    /// The tasks, by `task_index`.
    pub fn tasks(&self) -> &[String] {
        &self.tasks
    }

    /// The column `name` of the items read (every frame of the episodes
    /// read, in order), where there is one.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.as_ref())
    }

    /// The episode and frame of item `index`.
    fn locate(&self, index: usize) -> Result<(&Episode, usize)> {
        if index >= self.items {
            return Err(Error::out_of_range("LeRobot dataset", index, self.items));
        }
        let at = self.episodes.partition_point(|e| e.first_item <= index) - 1;
        let episode = &self.episodes[at];
        Ok((episode, index - episode.first_item))
    }

    /// Episode `k` (of those read, in order) as a trace: one sensor per
    /// camera (its frames, not yet decoded) and per column, at the table's
    /// timestamps, its samples the episode's frames.
    pub fn episode(&self, k: usize) -> Result<Recording<Vec<BoxedSensor<Field>>>> {
        let episode = self
            .episodes
            .get(k)
            .ok_or_else(|| Error::out_of_range("episodes", k, self.episodes.len()))?;
        let times = episode.cameras.first().map_or_else(
            || self.episode_times(episode),
            |camera| Ok(camera.metadata().clone()),
        )?;
        let mut sensors: Vec<BoxedSensor<Field>> = Vec::new();
        for camera in &episode.cameras {
            let camera = camera.clone();
            sensors.push(
                Series::new(camera.name().to_string(), times.clone(), move |i| {
                    Frames::one(&camera, i).map(Field::Frames)
                })
                .boxed(),
            );
        }
        for (name, column) in &self.columns {
            let (column, start) = (column.clone(), episode.start);
            sensors.push(
                Series::new(name.clone(), times.clone(), move |i| {
                    row(&column, start + i)
                })
                .boxed(),
            );
        }
        Recording::aligned(format!("episode {}", episode.meta.index), sensors)
    }

    /// Camera `key` of episode `k` (of those read, in order): its video
    /// as a sensor of decoded frames (`Array3<u8>`, in the options'
    /// layout), its samples the episode's frames at the table's timestamps.
    pub fn camera(&self, k: usize, key: &str) -> Result<&Video> {
        let episode = self
            .episodes
            .get(k)
            .ok_or_else(|| Error::out_of_range("episodes", k, self.episodes.len()))?;
        let at = self
            .camera_keys
            .iter()
            .position(|c| c == key)
            .ok_or_else(|| Error::UnknownSensor {
                role: "camera",
                name: key.to_string(),
                available: self.camera_keys.clone(),
            })?;
        Ok(&episode.cameras[at])
    }

    /// An episode's timestamps, from the table.
    fn episode_times(&self, episode: &Episode) -> Result<Timestamps> {
        let column = self
            .column("timestamp")
            .ok_or_else(|| self.root.error("its tables have no `timestamp` column"))?;
        let all = column.float64(&self.root, "timestamp")?;
        Timestamps::new(
            "timestamp",
            all[episode.start..episode.start + episode.meta.length].to_vec(),
        )
    }
}

impl Dataset for LeRobot {
    type Sample = Record<Field>;

    fn len(&self) -> usize {
        self.items
    }

    fn get(&self, index: usize) -> Result<Record<Field>> {
        let (episode, frame) = self.locate(index)?;
        let len = episode.meta.length;
        let window = |key: &str| {
            self.deltas.iter().find(|d| d.key == key).map(|d| {
                let frames: Vec<usize> = d
                    .offsets
                    .iter()
                    .map(|&o| (frame as i64 + o).clamp(0, len as i64 - 1) as usize)
                    .collect();
                let pads: Vec<bool> = d
                    .offsets
                    .iter()
                    .map(|&o| frame as i64 + o < 0 || frame as i64 + o >= len as i64)
                    .collect();
                (frames, pads)
            })
        };
        let mut values = Vec::with_capacity(self.names.len());
        for (camera, key) in episode.cameras.iter().zip(&self.camera_keys) {
            values.push(Field::Frames(match window(key) {
                // One offset: one frame, as lerobot squeezes it.
                Some((frames, _)) if frames.len() == 1 => Frames::one(camera, frames[0])?,
                Some((frames, _)) => Frames::window(camera, &frames)?,
                None => Frames::one(camera, frame)?,
            }));
        }
        let mut task_index = None;
        for (name, column) in &self.columns {
            let value = match window(name) {
                Some((frames, _)) => {
                    let rows: Vec<usize> = frames.iter().map(|f| episode.start + f).collect();
                    stacked(column, &rows)?
                }
                None => row(column, episode.start + frame)?,
            };
            if name == "task_index"
                && let Field::I64(index) = &value
            {
                task_index = index.iter().next().copied();
            }
            values.push(value);
        }
        for delta in &self.deltas {
            let (_, pads) = window(&delta.key).unwrap_or_default();
            values.push(Field::Bool(
                ArrayD::from_shape_vec(IxDyn(&[pads.len()]), pads)
                    .map_err(|e| Error::internal("LeRobot::get", e))?,
            ));
        }
        let task = task_index
            .and_then(|t| usize::try_from(t).ok())
            .and_then(|t| self.tasks.get(t))
            .ok_or_else(|| {
                Error::invalid(
                    format_args!("item {index} of {}", self.root),
                    format!(
                        "its task_index {task_index:?} names none of the {} tasks",
                        self.tasks.len()
                    ),
                )
            })?;
        values.push(Field::Text(task.clone()));
        Record::new(self.names.clone(), values)
    }
}

/// Row `row` of `column` as a field: a 0-d array for a number, an array
/// of the column's shape otherwise, text as text.
fn row(column: &Column, row: usize) -> Result<Field> {
    let shaped = |e| Error::internal("LeRobot::get", e);
    macro_rules! one {
        ($($variant:ident),*) => {
            match column {
                $(Column::$variant(v) => Field::$variant(
                    ArrayD::from_shape_vec(IxDyn(&v.shape), v.row(row).to_vec()).map_err(shaped)?,
                ),)*
                Column::Text(t) => Field::Text(t[row].clone()),
                Column::TextLists(t) => Field::Text(t[row].join("\n")),
            }
        };
    }
    Ok(one!(F32, F64, I64, I32, I16, I8, U8, Bool))
}

/// Rows `rows` of `column` stacked: `[rows, ...shape]`.
fn stacked(column: &Column, rows: &[usize]) -> Result<Field> {
    fn stack<T: Clone>(v: &Values<T>, rows: &[usize]) -> Result<ArrayD<T>> {
        let shape: Vec<usize> = std::iter::once(rows.len())
            .chain(v.shape.iter().copied())
            .collect();
        let values: Vec<T> = rows
            .iter()
            .flat_map(|&r| v.row(r).iter().cloned())
            .collect();
        ArrayD::from_shape_vec(IxDyn(&shape), values)
            .map_err(|e| Error::internal("LeRobot::get", e))
    }
    macro_rules! many {
        ($($variant:ident),*) => {
            match column {
                $(Column::$variant(v) => Field::$variant(stack(v, rows)?),)*
                Column::Text(t) => Field::Text(rows.iter().map(|&r| t[r].as_str()).collect::<Vec<_>>().join("\n")),
                Column::TextLists(t) => Field::Text(t[rows[0]].join("\n")),
            }
        };
    }
    Ok(many!(F32, F64, I64, I32, I16, I8, U8, Bool))
}

/// The episodes chosen, in the order lerobot reads them: every one, or
/// those of `wanted` (v3.0: in the metadata's order; v2.1: as given). An
/// episode that is not in the dataset is an error.
fn choose(
    root: &Location,
    info: &Info,
    all: Vec<EpisodeMeta>,
    wanted: Option<&[i64]>,
) -> Result<Vec<EpisodeMeta>> {
    let Some(wanted) = wanted else {
        return Ok(all);
    };
    if let Some(missing) = wanted.iter().find(|w| !all.iter().any(|e| e.index == **w)) {
        let known: Vec<i64> = all.iter().map(|e| e.index).collect();
        return Err(Error::invalid(
            format_args!("episodes of {root}"),
            format!(
                "episode {missing} is not in the dataset (its episodes: {})",
                if known.len() > 12 {
                    format!("{} to {}", known[0], known[known.len() - 1])
                } else {
                    format!("{known:?}")
                }
            ),
        ));
    }
    Ok(match info.version {
        Version::V30 => all
            .into_iter()
            .filter(|e| wanted.contains(&e.index))
            .collect(),
        Version::V21 => {
            let mut by_index: BTreeMap<i64, EpisodeMeta> =
                all.into_iter().map(|e| (e.index, e)).collect();
            let mut chosen = Vec::new();
            for w in wanted {
                if let Some(e) = by_index.remove(w) {
                    chosen.push(e);
                }
            }
            chosen
        }
    })
}

/// The windows of `options`, checked: each key a camera or a column, each
/// offset a multiple of the frame period within the tolerance (lerobot's
/// `check_delta_timestamps`), rounded to frames as lerobot rounds them.
fn deltas(
    root: &Location,
    info: &Info,
    options: &LeRobotOptions,
    cameras: &[String],
    columns: &[String],
) -> Result<Vec<Delta>> {
    let mut deltas = Vec::new();
    for (key, offsets) in &options.delta_timestamps {
        let what = format_args!("delta_timestamps[{key:?}] of {root}");
        if !cameras.contains(key) && !columns.contains(key) {
            return Err(Error::invalid(
                what,
                format!(
                    "`{key}` is neither a camera nor a column of the dataset (its keys: {})",
                    cameras
                        .iter()
                        .chain(columns)
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if offsets.is_empty() {
            return Err(Error::invalid(what, "no offsets: give at least one"));
        }
        let mut frames = Vec::with_capacity(offsets.len());
        for &offset in offsets {
            let exact = offset * info.fps;
            let rounded = exact.round_ties_even();
            if !exact.is_finite() || (exact - rounded).abs() / info.fps > options.tolerance_s {
                return Err(Error::invalid(
                    what,
                    format!(
                        "{offset} s is not a multiple of 1/{} s within the tolerance of {} s",
                        info.fps, options.tolerance_s
                    ),
                ));
            }
            frames.push(rounded as i64);
        }
        deltas.push(Delta {
            key: key.clone(),
            offsets: frames,
        });
    }
    Ok(deltas)
}

/// Columns by name.
type Columns = Vec<(String, Column)>;

/// The dataset's name as a progress bar shows it: its folder's.
fn shown_name(root: &Location) -> String {
    root.file_name().unwrap_or("the dataset").to_string()
}

/// The columns `names` of the tables of `episodes`, their rows one after
/// another (each table read once, in the order of the paths for v3.0,
/// whose tables hold several episodes: lerobot's order), and the first
/// row of each episode. An episode whose rows are not where its metadata
/// says is an error.
fn read_tables(
    root: &Location,
    info: &Info,
    episodes: &[EpisodeMeta],
    names: &[String],
) -> Result<(Columns, Vec<usize>)> {
    let wanted: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut files: Vec<&str> = episodes.iter().map(|e| e.data_file.as_str()).collect();
    if info.version == Version::V30 {
        files.sort_unstable();
    }
    files.dedup();
    let chosen: std::collections::BTreeSet<i64> = episodes.iter().map(|e| e.index).collect();
    let mut columns: Vec<Option<Column>> = vec![None; names.len()];
    let episode_column = names
        .iter()
        .position(|n| n == "episode_index")
        .ok_or_else(|| root.error("its features have no `episode_index`"))?;
    let mut progress = adl_core::progress::Progress::items(
        format!("reading {}'s tables", shown_name(root)),
        files.len() as u64,
        "files",
    );
    for file in files {
        let location = root.join(file);
        let read = read_columns(&location, &wanted)?;
        let mut read: Vec<Column> = read
            .into_iter()
            .zip(names)
            .map(|(column, name)| {
                column.ok_or_else(|| location.error(format!("has no column `{name}`")))
            })
            .collect::<Result<_>>()?;
        for (column, name) in read.iter().zip(names) {
            if let Some(feature) = info.feature(name) {
                check_type(column, feature, &location, name)?;
            }
        }
        let in_file = read[episode_column]
            .int64(&location, "episode_index")?
            .to_vec();
        let keep: Vec<usize> = (0..in_file.len())
            .filter(|&r| chosen.contains(&in_file[r]))
            .collect();
        for ((slot, column), name) in columns.iter_mut().zip(read.iter_mut()).zip(names) {
            let rows = select_rows(column, &keep);
            match slot {
                Some(all) => all.append(rows, &location, name)?,
                slot => *slot = Some(rows),
            }
        }
        progress.add(1);
    }
    progress.finish();
    let columns: Vec<(String, Column)> = names
        .iter()
        .cloned()
        .zip(
            columns
                .into_iter()
                .map(|c| c.unwrap_or(Column::Text(Vec::new()))),
        )
        .collect();
    // Each episode's rows: one run of its episode_index, of its length.
    let episode_of = columns[episode_column].1.int64(root, "episode_index")?;
    let mut starts = Vec::with_capacity(episodes.len());
    for episode in episodes {
        let start = episode_of.iter().position(|&e| e == episode.index);
        let count = episode_of.iter().filter(|&&e| e == episode.index).count();
        match start {
            Some(start)
                if count == episode.length
                    && episode_of[start..start + count]
                        .iter()
                        .all(|&e| e == episode.index) =>
            {
                starts.push(start)
            }
            _ => {
                return Err(root.error(format!(
                    "episode {}: its tables hold {count} rows of it{}, where its metadata says \
                     {} in one run",
                    episode.index,
                    if count > 0 { "" } else { " (none)" },
                    episode.length
                )));
            }
        }
    }
    Ok((columns, starts))
}

/// Whether `column` holds what `feature` of `info.json` says: its element
/// type, and its shape (a feature of shape `[1]` may be a number, as
/// lerobot stores it); an error naming the column (`name`, of the file at
/// `location`) otherwise.
fn check_type(column: &Column, feature: &Feature, location: &Location, name: &str) -> Result<()> {
    let dtype = match column {
        Column::Text(_) => "string",
        other => other.dtype(),
    };
    let shape = column.shape();
    if dtype == feature.dtype
        && (shape == feature.shape || (shape.is_empty() && feature.shape == [1]))
    {
        return Ok(());
    }
    Err(location.error(format!(
        "column `{name}` holds {}, where meta/info.json says {} of shape {:?}",
        column.describe(),
        feature.dtype,
        feature.shape
    )))
}

/// Rows `keep` of `column`.
fn select_rows(column: &mut Column, keep: &[usize]) -> Column {
    fn pick<T: Clone>(v: &Values<T>, keep: &[usize]) -> Values<T> {
        Values {
            values: keep
                .iter()
                .flat_map(|&r| v.row(r).iter().cloned())
                .collect(),
            shape: v.shape.clone(),
        }
    }
    macro_rules! select {
        ($($variant:ident),*) => {
            match column {
                $(Column::$variant(v) => Column::$variant(pick(v, keep)),)*
                Column::Text(t) => Column::Text(keep.iter().map(|&r| t[r].clone()).collect()),
                Column::TextLists(t) => Column::TextLists(keep.iter().map(|&r| t[r].clone()).collect()),
            }
        };
    }
    select!(F32, F64, I64, I32, I16, I8, U8, Bool)
}

/// An episode's cameras: each camera's video (opened once for the
/// dataset, in `videos`), at the episode's frames' times (`times`, the
/// table's) shifted by its start in the file, each frame checked within
/// the tolerance.
fn cameras(
    root: &Location,
    meta: &EpisodeMeta,
    keys: &[String],
    times: &[f64],
    options: &LeRobotOptions,
    videos: &mut BTreeMap<String, Video>,
) -> Result<Vec<Video>> {
    let mut cameras = Vec::with_capacity(keys.len());
    for key in keys {
        let Some(place) = meta.videos.get(key) else {
            return Err(root.error(format!("episode {} has no video of `{key}`", meta.index)));
        };
        let video = match videos.get(&place.file) {
            Some(video) => video.clone(),
            None => {
                let video = Video::named(key, root.join(&place.file))?.layout(options.layout);
                videos.insert(place.file.clone(), video.clone());
                video
            }
        };
        let timestamps = Timestamps::new(key, times.to_vec())?;
        cameras.push(video.at_times(key, timestamps, place.from_timestamp, options.tolerance_s)?);
    }
    Ok(cameras)
}

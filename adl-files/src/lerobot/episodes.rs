//! A LeRobot dataset's episodes and tasks, from its metadata: v3.0's
//! `meta/episodes/chunk-*/file-*.parquet` and `meta/tasks.parquet`, v2.1's
//! `meta/episodes.jsonl` and `meta/tasks.jsonl`.

use std::collections::BTreeMap;

use adl_core::{Error, Result};
use serde::Deserialize;

use super::columns::{Column, read_columns, wrong_type};
use super::info::{Info, Value, Version, fill};
use crate::location::Location;
use crate::ranged::RangedFile;

/// Where an episode's frames of one camera are: a video file, and (v3.0:
/// several episodes in a file, one after another) the time in the file at
/// which its first frame is.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeVideo {
    /// The video file.
    pub file: String,
    /// The time in the file of the episode's start, in seconds (0 in
    /// v2.1).
    pub from_timestamp: f64,
}

/// One episode, as the metadata describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeMeta {
    /// Its `episode_index`.
    pub index: i64,
    /// Its number of frames.
    pub length: usize,
    /// Its tasks, as the metadata lists them.
    pub tasks: Vec<String>,
    /// Its table (a path under the dataset's root).
    pub data_file: String,
    /// v3.0: the dataset index (`index`) of its first frame; v2.1: none.
    pub from_index: Option<i64>,
    /// Each camera's video, by the camera's name.
    pub videos: BTreeMap<String, EpisodeVideo>,
}

/// Every episode of the dataset at `root`, in the order of its metadata,
/// and its tasks by `task_index`.
pub(crate) fn read(root: &Location, info: &Info) -> Result<(Vec<EpisodeMeta>, Vec<String>)> {
    match info.version {
        Version::V30 => Ok((episodes_v30(root, info)?, tasks_v30(root)?)),
        Version::V21 => Ok((episodes_v21(root, info)?, tasks_v21(root)?)),
    }
}

/// The columns of a v3.0 episodes table adl reads, the cameras' four each.
fn episode_columns(info: &Info) -> Vec<String> {
    let mut names: Vec<String> = [
        "episode_index",
        "tasks",
        "length",
        "data/chunk_index",
        "data/file_index",
        "dataset_from_index",
        "dataset_to_index",
    ]
    .map(String::from)
    .to_vec();
    for key in info.video_keys() {
        for part in ["chunk_index", "file_index", "from_timestamp"] {
            names.push(format!("videos/{key}/{part}"));
        }
    }
    names
}

/// The episodes of a v3.0 dataset: its episodes tables, one after another
/// (`chunk-000/file-000`, then as lerobot numbers them: the next file, or
/// the next chunk's first once a chunk holds `chunks_size` files), until
/// `total_episodes` of `info.json` are read (or, where it gives none, the
/// next file is not there).
fn episodes_v30(root: &Location, info: &Info) -> Result<Vec<EpisodeMeta>> {
    let names = episode_columns(info);
    let wanted: Vec<&str> = names.iter().map(String::as_str).collect();
    let total = total_episodes(root)?;
    let mut episodes = Vec::new();
    let (mut chunk, mut file) = (0usize, 0usize);
    loop {
        if total.is_some_and(|total| episodes.len() >= total) {
            break;
        }
        let path = format!("meta/episodes/chunk-{chunk:03}/file-{file:03}.parquet");
        let location = root.join(&path);
        if !exists(&location)? {
            if total.is_none() && !episodes.is_empty() {
                break;
            }
            return Err(location.error(format!(
                "is missing: the dataset's meta/episodes holds {} episodes before it, and its \
                 info.json counts {}",
                episodes.len(),
                total.map_or("more".to_string(), |t| t.to_string())
            )));
        }
        let columns = read_columns(&location, &wanted)?;
        let column = |k: usize| -> Result<&Column> {
            columns[k]
                .as_ref()
                .ok_or_else(|| location.error(format!("has no column `{}`", names[k])))
        };
        let int64 = |k: usize| column(k)?.int64(&location, &names[k]);
        let index = int64(0)?;
        let tasks = match column(1)? {
            Column::TextLists(lists) => lists.clone(),
            other => return Err(wrong_type(&location, &names[1], other, "lists of text")),
        };
        let length = int64(2)?;
        let data_chunk = int64(3)?;
        let data_file = int64(4)?;
        let from = int64(5)?;
        let to = int64(6)?;
        let mut cameras = Vec::new();
        for (c, key) in info.video_keys().into_iter().enumerate() {
            let k = 7 + 3 * c;
            cameras.push((
                key,
                int64(k)?,
                int64(k + 1)?,
                column(k + 2)?.float64(&location, &names[k + 2])?,
            ));
        }
        for row in 0..index.len() {
            let bad = |why: String| location.error(format!("episode row {row}: {why}"));
            let length = usize::try_from(length[row])
                .map_err(|_| bad(format!("a length of {}", length[row])))?;
            if to[row] - from[row] != length as i64 {
                return Err(bad(format!(
                    "dataset_from_index {} to dataset_to_index {} is not its length {length}",
                    from[row], to[row]
                )));
            }
            let mut videos = BTreeMap::new();
            for (key, chunks, files, froms) in &cameras {
                let file = fill(
                    info.video_path.as_deref().unwrap_or_default(),
                    &BTreeMap::from([
                        ("video_key", Value::Text(key)),
                        ("chunk_index", Value::Number(index_of(chunks[row], &bad)?)),
                        ("file_index", Value::Number(index_of(files[row], &bad)?)),
                    ]),
                )?;
                videos.insert(
                    key.to_string(),
                    EpisodeVideo {
                        file,
                        from_timestamp: froms[row],
                    },
                );
            }
            episodes.push(EpisodeMeta {
                index: index[row],
                length,
                tasks: tasks[row].clone(),
                data_file: fill(
                    &info.data_path,
                    &BTreeMap::from([
                        (
                            "chunk_index",
                            Value::Number(index_of(data_chunk[row], &bad)?),
                        ),
                        ("file_index", Value::Number(index_of(data_file[row], &bad)?)),
                    ]),
                )?,
                from_index: Some(from[row]),
                videos,
            });
        }
        // lerobot's numbering (`update_chunk_file_indices`).
        (chunk, file) = if file + 1 >= info.chunks_size {
            (chunk + 1, 0)
        } else {
            (chunk, file + 1)
        };
    }
    Ok(episodes)
}

/// A chunk or file index of the metadata as a number.
fn index_of(value: i64, bad: &dyn Fn(String) -> Error) -> Result<usize> {
    usize::try_from(value).map_err(|_| bad(format!("a chunk or file index of {value}")))
}

/// `total_episodes` of `meta/info.json`, where it has one.
fn total_episodes(root: &Location) -> Result<Option<usize>> {
    #[derive(Deserialize)]
    struct Totals {
        total_episodes: Option<usize>,
    }
    let location = root.join("meta/info.json");
    let text = RangedFile::open(&location)?.read_all("the file")?.to_vec();
    let totals: Totals = serde_json::from_slice(&text)
        .map_err(|e| location.error(format!("not a LeRobot info.json: {e}")))?;
    Ok(totals.total_episodes)
}

/// Whether the file at `location` is there.
fn exists(location: &Location) -> Result<bool> {
    match location.as_path() {
        Some(path) => Ok(path.is_file()),
        None => match RangedFile::open(location) {
            Ok(_) => Ok(true),
            Err(Error::Source { reason, .. }) if is_missing(&reason) => Ok(false),
            Err(e) => Err(e),
        },
    }
}

/// Whether a store's error says the object is not there.
fn is_missing(reason: &str) -> bool {
    let reason = reason.to_ascii_lowercase();
    reason.contains("not found") || reason.contains("404") || reason.contains("no such")
}

/// The tasks of a v3.0 dataset, by row (lerobot takes a frame's task by
/// the row of its `task_index`): `meta/tasks.parquet`, its task strings
/// in the column `task` or, as pandas writes the index, `__index_level_0__`.
fn tasks_v30(root: &Location) -> Result<Vec<String>> {
    let location = root.join("meta/tasks.parquet");
    let columns = read_columns(&location, &["task", "__index_level_0__"])?;
    match columns.into_iter().flatten().next() {
        Some(Column::Text(tasks)) => Ok(tasks),
        Some(other) => Err(wrong_type(&location, "task", &other, "text")),
        None => Err(location
            .error("has no column of task strings (`task`, or the index `__index_level_0__`)")),
    }
}

/// The episodes of a v2.1 dataset: `meta/episodes.jsonl`, each with its
/// table and videos by the templates of `info.json`.
fn episodes_v21(root: &Location, info: &Info) -> Result<Vec<EpisodeMeta>> {
    #[derive(Deserialize)]
    struct Line {
        episode_index: i64,
        #[serde(default)]
        tasks: Vec<String>,
        length: usize,
    }
    let location = root.join("meta/episodes.jsonl");
    let lines: Vec<Line> = json_lines(&location)?;
    let mut episodes = Vec::with_capacity(lines.len());
    for line in lines {
        let bad = |why: String| location.error(format!("episode {}: {why}", line.episode_index));
        let number = index_of(line.episode_index, &bad)?;
        let chunk = number / info.chunks_size;
        let data_file = fill(
            &info.data_path,
            &BTreeMap::from([
                ("episode_chunk", Value::Number(chunk)),
                ("episode_index", Value::Number(number)),
            ]),
        )?;
        let mut videos = BTreeMap::new();
        for key in info.video_keys() {
            let file = fill(
                info.video_path.as_deref().unwrap_or_default(),
                &BTreeMap::from([
                    ("episode_chunk", Value::Number(chunk)),
                    ("episode_index", Value::Number(number)),
                    ("video_key", Value::Text(key)),
                ]),
            )?;
            videos.insert(
                key.to_string(),
                EpisodeVideo {
                    file,
                    from_timestamp: 0.0,
                },
            );
        }
        episodes.push(EpisodeMeta {
            index: line.episode_index,
            length: line.length,
            tasks: line.tasks,
            data_file,
            from_index: None,
            videos,
        });
    }
    Ok(episodes)
}

/// The tasks of a v2.1 dataset by `task_index`, from `meta/tasks.jsonl`
/// (an index with no task is empty text).
fn tasks_v21(root: &Location) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Line {
        task_index: usize,
        task: String,
    }
    let location = root.join("meta/tasks.jsonl");
    let lines: Vec<Line> = json_lines(&location)?;
    let most = lines.iter().map(|l| l.task_index + 1).max().unwrap_or(0);
    if most > lines.len().saturating_mul(4).max(1 << 16) {
        return Err(location.error(format!("task_index {} for {} tasks", most - 1, lines.len())));
    }
    let mut tasks = vec![String::new(); most];
    for line in lines {
        tasks[line.task_index] = line.task;
    }
    Ok(tasks)
}

/// The JSON Lines file at `location`, each line one `T`.
fn json_lines<T: for<'de> Deserialize<'de>>(location: &Location) -> Result<Vec<T>> {
    let text = RangedFile::open(location)?.read_all("the file")?.to_vec();
    let text = String::from_utf8(text).map_err(|e| location.error(format!("not text: {e}")))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|e| location.error(format!("line {}: {e}", n + 1)))
        })
        .collect()
}

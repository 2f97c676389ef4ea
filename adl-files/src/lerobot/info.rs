//! [`Info`]: a LeRobot dataset's `meta/info.json`: its version, frame
//! rate, features and where its files are.

use std::collections::BTreeMap;

use adl_core::{Error, Result};
use serde::Deserialize;

use crate::location::Location;

/// The versions of the format adl reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// v2.1 (lerobot 0.3): a table and a video per episode, the episodes
    /// and tasks in JSON Lines files.
    V21,
    /// v3.0 (lerobot 0.4): several episodes per table and per video, the
    /// episodes and tasks in Parquet files.
    V30,
}

impl Version {
    /// The version as `info.json` writes it ("v2.1", "v3.0").
    pub fn name(self) -> &'static str {
        match self {
            Version::V21 => "v2.1",
            Version::V30 => "v3.0",
        }
    }
}

/// One feature of the dataset, as `info.json` describes it.
#[derive(Debug, Clone, Deserialize)]
pub struct Feature {
    /// Its type: `float32`, `int64`, `bool`, ..., `video` (a camera in MP4
    /// files) or `image` (a camera in the table).
    pub dtype: String,
    /// The shape of one frame's value (`[H, W, C]` for a camera).
    pub shape: Vec<usize>,
}

/// The fields of `meta/info.json` adl reads.
#[derive(Debug, Clone, Deserialize)]
struct Raw {
    codebase_version: String,
    fps: f64,
    #[serde(default)]
    chunks_size: Option<usize>,
    data_path: String,
    #[serde(default)]
    video_path: Option<String>,
    features: serde_json::Map<String, serde_json::Value>,
}

/// A dataset's `meta/info.json`.
#[derive(Debug, Clone)]
pub struct Info {
    /// Its format's version.
    pub version: Version,
    /// Frames per second of every episode.
    pub fps: f64,
    /// Episodes per chunk folder (v2.1's `episode_chunk`).
    pub chunks_size: usize,
    /// The template of a table's path (`data/chunk-{chunk_index:03d}/...`).
    pub data_path: String,
    /// The template of a video's path, where the dataset has videos.
    pub video_path: Option<String>,
    /// The features, by name, in the file's order.
    pub features: Vec<(String, Feature)>,
    /// The features as the file has them (for a reader that gives them
    /// back whole, as lerobot's `features`).
    pub features_json: serde_json::Map<String, serde_json::Value>,
}

impl Info {
    /// The `meta/info.json` of the dataset at `root`, read and checked: a
    /// version adl reads, a frame rate, the features' types and shapes.
    pub fn read(root: &Location) -> Result<Info> {
        let location = root.join("meta/info.json");
        let bytes = crate::ranged::RangedFile::open(&location)?;
        let text = bytes.read_all("the file")?;
        let raw: Raw = serde_json::from_slice(&text)
            .map_err(|e| location.error(format!("not a LeRobot info.json: {e}")))?;
        let version = match raw.codebase_version.as_str() {
            "v3.0" => Version::V30,
            "v2.1" | "v2.0" => Version::V21,
            other => {
                return Err(location.error(format!(
                    "codebase_version {other}: adl reads LeRobot datasets of v2.0, v2.1 and v3.0 \
                     (lerobot's own `convert_dataset_v21_to_v30` converts older ones)"
                )));
            }
        };
        if !(raw.fps > 0.0 && raw.fps.is_finite()) {
            return Err(location.error(format!("fps {} is not a frame rate", raw.fps)));
        }
        let mut features = Vec::with_capacity(raw.features.len());
        for (name, value) in &raw.features {
            let feature: Feature = serde_json::from_value(value.clone())
                .map_err(|e| location.error(format!("feature `{name}`: {e}")))?;
            features.push((name.clone(), feature));
        }
        Ok(Info {
            version,
            fps: raw.fps,
            chunks_size: raw.chunks_size.unwrap_or(1000).max(1),
            data_path: raw.data_path,
            video_path: raw.video_path,
            features,
            features_json: raw.features,
        })
    }

    /// The names of the features stored as videos, in the file's order.
    pub fn video_keys(&self) -> Vec<&str> {
        self.features
            .iter()
            .filter(|(_, f)| f.dtype == "video")
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// The feature `name`, where there is one.
    pub fn feature(&self, name: &str) -> Option<&Feature> {
        self.features
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f)
    }
}

/// `template` with each `{name}` or `{name:0Nd}` (Python's `str.format`,
/// as lerobot fills its paths) replaced by `values[name]`; a field it does
/// not know, or another format, is an error naming the template.
pub(crate) fn fill(template: &str, values: &BTreeMap<&str, Value<'_>>) -> Result<String> {
    let bad = |why: String| {
        Error::invalid(
            format_args!("path template `{template}` of meta/info.json"),
            why,
        )
    };
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| bad("a `{` is not closed".into()))?;
        let field = &rest[open + 1..close];
        let (name, spec) = field.split_once(':').unwrap_or((field, ""));
        let value = values
            .get(name)
            .ok_or_else(|| bad(format!("it names `{name}`, which lerobot does not fill")))?;
        match (value, spec) {
            (Value::Text(text), "") => out.push_str(text),
            (Value::Number(n), "") => out.push_str(&n.to_string()),
            (Value::Number(n), spec) => {
                let width = spec
                    .strip_prefix('0')
                    .and_then(|s| s.strip_suffix('d'))
                    .and_then(|w| w.parse::<usize>().ok())
                    .ok_or_else(|| bad(format!("the format `{spec}` is not `0Nd`")))?;
                out.push_str(&format!("{n:0width$}"));
            }
            (Value::Text(_), spec) => {
                return Err(bad(format!("`{name}` is text, formatted as `{spec}`")));
            }
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A value [`fill`] puts in a template.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value<'a> {
    Number(usize),
    Text(&'a str),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_filled_as_python_formats_them() {
        let values = BTreeMap::from([
            ("chunk_index", Value::Number(3)),
            ("file_index", Value::Number(12)),
            ("video_key", Value::Text("observation.images.front")),
        ]);
        assert_eq!(
            fill(
                "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4",
                &values
            )
            .unwrap(),
            "videos/observation.images.front/chunk-003/file-012.mp4"
        );
        assert!(fill("data/{episode_index:06d}.parquet", &values).is_err());
        assert!(fill("data/{chunk_index:x}.parquet", &values).is_err());
        assert!(fill("data/{chunk_index", &values).is_err());
    }
}

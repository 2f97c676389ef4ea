//! `LeRobot` over the datasets of tests/data/lerobot (written by lerobot's
//! own writer: make_lerobot.py), against lerobot's own reading of them
//! (expected/): every item's keys in order, every value, every frame.
//! lerobot gives each camera's frames as float32 in [0, 1]; the expected
//! files hold them as `round(x * 255)`, which is exact: adl's `uint8`
//! frames are compared with them for equality.

use std::fs::File;
use std::path::{Path, PathBuf};

use adl::files::lerobot::{Field, LeRobot};
use adl::ndarray::{ArrayD, Axis, IxDyn};
use adl::{Dataset, OnError};
use ndarray_npy::NpzReader;
use serde_json::Value;

const DATASETS: [&str; 3] = ["v30_av1", "v30_h264", "v21"];

fn root(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/lerobot")
        .join(name)
}

fn expected_json(name: &str) -> Value {
    let path = root("expected").join(format!("{name}.json"));
    serde_json::from_reader(File::open(path).unwrap()).unwrap()
}

/// The expected array `key` of `file` (in expected/), as the type of
/// `field`, row `row`.
fn expected_row(npz: &mut NpzReader<File>, key: &str, row: usize, field: &Field) -> Field {
    let name = format!("{key}.npy");
    macro_rules! read {
        ($variant:ident, $t:ty) => {{
            let all: ArrayD<$t> = npz.by_name(&name).unwrap();
            Field::$variant(all.index_axis(Axis(0), row).to_owned())
        }};
    }
    match field {
        Field::F32(_) => read!(F32, f32),
        Field::F64(_) => read!(F64, f64),
        Field::I64(_) => read!(I64, i64),
        Field::Bool(_) => read!(Bool, bool),
        Field::Frames(_) => read!(U8, u8),
        other => panic!("{key}: an unexpected field {}", other.kind()),
    }
}

/// `field` as an array to compare: frames decoded.
fn comparable(field: &Field) -> Field {
    match field {
        Field::Frames(frames) => Field::U8(frames.decode().unwrap()),
        other => other.clone(),
    }
}

fn same(a: &Field, b: &Field) -> bool {
    match (a, b) {
        (Field::F32(a), Field::F32(b)) => a == b,
        (Field::F64(a), Field::F64(b)) => a == b,
        (Field::I64(a), Field::I64(b)) => a == b,
        (Field::Bool(a), Field::Bool(b)) => a == b,
        (Field::U8(a), Field::U8(b)) => a == b,
        _ => false,
    }
}

/// Every item of `dataset` at `items` against the expected arrays of
/// `npz` (row k for items[k]) and their tasks.
fn check_items(
    name: &str,
    dataset: &LeRobot,
    items: &[usize],
    npz: &str,
    keys: &Value,
    tasks: &Value,
) {
    let mut npz = NpzReader::new(File::open(root("expected").join(npz)).unwrap()).unwrap();
    let keys: Vec<&str> = keys
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(dataset.keys(), keys, "{name}: the keys in order");
    for (row, &item) in items.iter().enumerate() {
        let record = dataset.get(item).unwrap();
        for (key, field) in record.names().iter().zip(record.values()) {
            if key == "task" {
                let Field::Text(task) = field else {
                    panic!("{name} item {item}: task is {}", field.kind())
                };
                // A list by item, or a map from each item's index.
                let want = match tasks {
                    Value::Object(by_item) => &by_item[&item.to_string()],
                    list => &list[row],
                };
                assert_eq!(task, want.as_str().unwrap(), "{name} item {item}");
                continue;
            }
            let want = expected_row(&mut npz, key, row, field);
            let got = comparable(field);
            assert!(
                same(&got, &want),
                "{name} item {item} `{key}`: {got:?}\nexpected {want:?}"
            );
        }
    }
}

#[test]
fn every_item_is_lerobots() {
    for name in DATASETS {
        let json = expected_json(name);
        let dataset = LeRobot::open(root(name)).unwrap();
        let properties = &json["dataset_properties"];
        assert_eq!(dataset.len(), properties["len"].as_u64().unwrap() as usize);
        assert_eq!(
            dataset.num_episodes(),
            properties["num_episodes"].as_u64().unwrap() as usize
        );
        assert_eq!(dataset.fps(), properties["fps"].as_f64().unwrap());
        let items: Vec<usize> = (0..dataset.len()).collect();
        let expected = &json["items"];
        check_items(
            name,
            &dataset,
            &items,
            &format!("{name}.npz"),
            &expected["keys"],
            &expected["task"],
        );
    }
}

#[test]
fn items_with_delta_timestamps_are_lerobots() {
    for name in DATASETS {
        let json = expected_json(name);
        let delta = &json["delta"];
        let deltas: Vec<(String, Vec<f64>)> = delta["delta_timestamps"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(key, offsets)| {
                let offsets = offsets
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o.as_f64().unwrap())
                    .collect();
                (key.clone(), offsets)
            })
            .collect();
        let dataset = LeRobot::options()
            .delta_timestamps(deltas)
            .open(root(name))
            .unwrap();
        let items: Vec<usize> = delta["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as usize)
            .collect();
        check_items(
            name,
            &dataset,
            &items,
            &format!("{name}.delta.npz"),
            &delta["keys"],
            &delta["task"],
        );
    }
}

#[test]
fn a_choice_of_episodes_is_read_as_lerobot_reads_it() {
    for name in ["v30_av1", "v30_h264"] {
        let json = expected_json(name);
        let subset = &json["episodes_subset"];
        let episodes: Vec<i64> = subset["episodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_i64().unwrap())
            .collect();
        let dataset = LeRobot::options()
            .episodes(episodes.clone())
            .open(root(name))
            .unwrap();
        let full = LeRobot::open(root(name)).unwrap();
        assert_eq!(dataset.len(), subset["len"].as_u64().unwrap() as usize);
        assert_eq!(dataset.episode_indices(), episodes);
        for expected in subset["items"].as_array().unwrap() {
            let item = dataset
                .get(expected["i"].as_u64().unwrap() as usize)
                .unwrap();
            let Some(Field::I64(index)) = item.get("index") else {
                panic!("no index")
            };
            let index = index[IxDyn(&[])];
            assert_eq!(index, expected["index"].as_i64().unwrap());
            let whole = full.get(index as usize).unwrap();
            for (a, b) in item.values().iter().zip(whole.values()) {
                match (a, b) {
                    (Field::Text(a), Field::Text(b)) => assert_eq!(a, b),
                    (a, b) => assert!(same(&comparable(a), &comparable(b))),
                }
            }
        }
    }
    let err = LeRobot::options()
        .episodes([0, 7])
        .open(root("v30_av1"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("episode 7 is not in the dataset (its episodes: [0, 1, 2])"),
        "{err}"
    );
}

#[test]
fn each_episode_is_a_trace() {
    use adl::Trace;
    let dataset = LeRobot::open(root("v30_h264")).unwrap();
    let trace = dataset.episode(1).unwrap();
    assert_eq!(trace.len(), 22);
    assert_eq!(
        trace.sensor_names(),
        dataset.keys()[..dataset.keys().len() - 1].to_vec()
    );
    let front = trace.any_sensor("observation.images.front").unwrap();
    assert_eq!(front.timestamps()[3], 0.30000001192092896);
    // The camera as a sensor of decoded frames: [3, H, W] by default.
    use adl::Sensor;
    let camera = dataset.camera(1, "observation.images.wrist").unwrap();
    assert_eq!(camera.len(), 22);
    assert_eq!(camera.get(3).unwrap().shape(), &[3, 30, 40]);
    assert!(dataset.camera(1, "observation.images.side").is_err());
    let sample = trace.get(3).unwrap();
    let item = dataset.get(16 + 3).unwrap();
    for ((name, a), b) in sample
        .names()
        .iter()
        .zip(sample.values())
        .zip(item.values())
    {
        assert!(same(&comparable(a), &comparable(b)), "{name}");
    }
}

#[test]
fn windows_of_text_and_unknown_keys_are_refused_when_opened() {
    let err = LeRobot::options()
        .delta_timestamps([("nope", vec![0.0])])
        .open(root("v21"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`nope` is neither a camera nor a column"),
        "{err}"
    );
    let err = LeRobot::options()
        .delta_timestamps([("action", vec![0.05])])
        .open(root("v21"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("0.05 s is not a multiple of 1/10 s within the tolerance of 0.0001 s"),
        "{err}"
    );
}

/// A copy of dataset `name` in a temporary folder, for damaging.
fn copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root(name), dir.path());
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_missing_or_truncated_video_names_the_episode_camera_and_file() {
    let dir = copy("v21");
    let video = dir
        .path()
        .join("videos/chunk-000/observation.images.wrist/episode_000001.mp4");
    std::fs::remove_file(&video).unwrap();
    let err = format!("{:#}", LeRobot::open(dir.path()).unwrap_err());
    assert!(
        err.starts_with(&format!("trace `episode 1 of {}`: ", dir.path().display()))
            && err.contains(&format!(
                "{} (sensor `observation.images.wrist`): cannot open",
                video.display()
            )),
        "{err}"
    );
    // Left out, with OnError::Skip, and listed; the others read.
    let dataset = LeRobot::options()
        .on_error(OnError::Skip)
        .open(dir.path())
        .unwrap();
    assert_eq!(dataset.episode_indices(), [0, 2]);
    assert_eq!(dataset.len(), 16 + 15);
    assert_eq!(dataset.skipped().len(), 1);
    assert_eq!(dataset.skipped()[0].0, 1);
    // A video cut in half: its index at its end is gone.
    let full = std::fs::read(
        root("v21").join("videos/chunk-000/observation.images.wrist/episode_000001.mp4"),
    )
    .unwrap();
    std::fs::write(&video, &full[..full.len() / 2]).unwrap();
    let err = format!("{:#}", LeRobot::open(dir.path()).unwrap_err());
    assert!(err.contains("it is cut short"), "{err}");
}

#[test]
fn a_frame_outside_the_tolerance_names_the_episode_camera_and_time() {
    // Episode 1's front camera (22 frames) replaced by episode 2's (15):
    // its table's frames 15 to 21 have no frame in the video.
    let dir = copy("v21");
    let videos = dir.path().join("videos/chunk-000/observation.images.front");
    std::fs::copy(
        videos.join("episode_000002.mp4"),
        videos.join("episode_000001.mp4"),
    )
    .unwrap();
    let err = format!("{:#}", LeRobot::open(dir.path()).unwrap_err());
    let video = videos.join("episode_000001.mp4");
    assert!(
        err.starts_with(&format!("trace `episode 1 of {}`: ", dir.path().display()))
            && err.contains(&format!(
                "{} (sensor `observation.images.front`, sample 15): no frame within 0.0001 s of \
                 1.5 s",
                video.display()
            )),
        "{err}"
    );
    // A tolerance that takes them: each is the video's last frame.
    let dataset = LeRobot::options()
        .tolerance_s(1.0)
        .open(dir.path())
        .unwrap();
    assert_eq!(dataset.len(), 53);
}

#[test]
fn a_column_of_the_wrong_type_is_an_error_naming_it() {
    use adl_arrow::*;
    let dir = copy("v30_av1");
    let table = dir.path().join("data/chunk-000/file-000.parquet");
    // The table written again, its `timestamp` as int64 numbers.
    let batches: Vec<RecordBatch> =
        ParquetRecordBatchReaderBuilder::try_new(File::open(&table).unwrap())
            .unwrap()
            .build()
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
    let schema = batches[0].schema();
    let at = schema.index_of("timestamp").unwrap();
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields[at] = Field::new("timestamp", DataType::Int64, false);
    let schema = std::sync::Arc::new(Schema::new(fields));
    let mut writer =
        ArrowWriter::try_new(File::create(&table).unwrap(), schema.clone(), None).unwrap();
    for batch in batches {
        let mut columns = batch.columns().to_vec();
        columns[at] = std::sync::Arc::new(Int64Array::from(vec![0i64; batch.num_rows()]));
        writer
            .write(&RecordBatch::try_new(schema.clone(), columns).unwrap())
            .unwrap();
    }
    writer.close().unwrap();
    let err = LeRobot::open(dir.path()).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: column `timestamp` holds int64, where meta/info.json says float32 of shape [1]",
            table.display()
        )
    );
    // And a length in the metadata that is not the table's.
    let dir = copy("v21");
    let path = dir.path().join("meta/episodes.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"length\": 16", "\"length\": 17")).unwrap();
    let err = LeRobot::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("episode 0: its tables hold 16 rows of it, where its metadata says 17"),
        "{err}"
    );
}

/// The Arrow and Parquet types the test above writes a table with.
mod adl_arrow {
    pub(crate) use arrow_array::{Int64Array, RecordBatch};
    pub(crate) use arrow_schema::{DataType, Field, Schema};
    pub(crate) use parquet::arrow::ArrowWriter;
    pub(crate) use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
}

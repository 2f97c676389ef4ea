//! A LeRobot dataset (tests/data/lerobot, written by lerobot's own writer)
//! through `pipeline!` and the `Loader`: each batch is the default collate
//! of its items, the frames decoded a group of pictures at a time into the
//! batch, with workers, shuffled (every item once), and resumed exactly
//! from a state taken mid-epoch.

use std::path::{Path, PathBuf};

use adl::collate::DefaultCollate;
use adl::files::lerobot::{Field, FieldBatch, LeRobot};
use adl::graph::loader::Loader;
use adl::prelude::*;
use adl::{Collate, Record};

fn root(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lerobot")
        .join(name)
}

fn dataset() -> LeRobot {
    LeRobot::options()
        .delta_timestamps([
            ("observation.images.front", vec![-0.1, 0.0]),
            ("action", vec![0.0, 0.1, 0.2, 0.3]),
        ])
        .open(root("v30_h264"))
        .unwrap()
}

/// The indices of a batch (its `index` column).
fn indices(batch: &Record<FieldBatch>) -> Vec<i64> {
    match batch.get("index") {
        Some(FieldBatch::I64(index)) => index.iter().copied().collect(),
        _ => panic!("no index in the batch"),
    }
}

#[test]
fn each_batch_is_the_collate_of_its_items_with_its_frames_decoded() {
    let dataset = dataset();
    let pipeline = pipeline! {
        Record<Field> {
            "observation.images.front": { collate: default },
            "observation.state": { collate: default },
            "action": { collate: default },
            "action_is_pad": { collate: default },
            "index": { collate: default },
            "task": { collate: default },
        }
    };
    let loader = Loader::new(dataset.clone(), pipeline)
        .batch_size(8)
        .workers(2)
        .build()
        .unwrap();
    let mut seen = 0;
    for (b, batch) in loader.epoch(0).enumerate() {
        let batch = batch.unwrap();
        let items: Vec<Record<Field>> = (8 * b..(8 * b + 8).min(dataset.len()))
            .map(|i| dataset.get(i).unwrap())
            .collect();
        let expected = DefaultCollate.collate(items).unwrap();
        for (key, value) in batch.iter() {
            assert_eq!(Some(value), expected.get(key), "batch {b} `{key}`");
        }
        assert_eq!(batch.names().len(), 6);
        seen += indices(&batch).len();
    }
    assert_eq!(seen, 53);
}

#[test]
fn a_shuffled_epoch_reads_every_item_once_and_resumes_exactly() {
    let loader = Loader::new(
        dataset(),
        pipeline! {
            Record<Field> {
                "observation.images.front": { collate: default },
                "index": { collate: default },
            }
        },
    )
    .batch_size(5)
    .shuffle(11)
    .workers(2)
    .build()
    .unwrap();
    let whole: Vec<_> = loader.epoch(2).map(|b| b.unwrap()).collect();
    let mut all: Vec<i64> = whole.iter().flat_map(|b| indices(b)).collect();
    all.sort_unstable();
    assert_eq!(all, (0..53).collect::<Vec<_>>());
    let mut epoch = loader.epoch(2);
    for _ in 0..4 {
        epoch.next().unwrap().unwrap();
    }
    let state = epoch.state();
    drop(epoch);
    let rest: Vec<_> = loader.resume(&state).unwrap().map(|b| b.unwrap()).collect();
    assert_eq!(rest.as_slice(), &whole[4..]);
}

//! Default collation and `#[derive(Collate)]`: structure, types, strategies
//! and errors that name the field path, the sample and both values.

use std::collections::{BTreeMap, HashMap};

use adl::collate::{DefaultCollate, Padded};
use adl::{Collate, Error};
use ndarray::{Array1, Array2, Array3, Array4, array};

#[derive(Collate, Clone)]
#[collate(derive(Debug, Clone, PartialEq))]
struct Frame {
    image: Array3<u8>,
    label: i64,
    t: f64,
    name: String,
}

#[derive(Collate)]
struct Pose(f32, [f32; 3]);

#[derive(Collate)]
struct Nested {
    frame: Frame,
    pose: Pose,
    tags: Vec<u16>,
    extra: Option<BTreeMap<String, f32>>,
}

#[derive(Collate)]
struct Strategies {
    #[collate(list)]
    raw: Vec<u8>,
    #[collate(concat)]
    points: Array2<f32>,
    #[collate(pad)]
    track: Array2<f32>,
}

/// A generic struct whose where-clause ends with a comma (rustfmt's
/// multi-line style), and a raw identifier field.
#[derive(Collate)]
struct Trailing<T>
where
    T: Clone,
{
    r#type: T,
}

/// Field names that the generated code also uses for its own locals.
#[derive(Collate)]
struct Shadowing {
    position: u8,
    item: u8,
    first: u8,
    len: u8,
    e: u8,
}

#[derive(Collate)]
struct Generic<T> {
    value: T,
    weight: f32,
}

fn frame(k: u8) -> Frame {
    Frame {
        image: Array3::from_elem((2, 3, 4), k),
        label: k as i64,
        t: k as f64 * 0.5,
        name: format!("f{k}"),
    }
}

#[test]
fn derived_struct_batches_field_by_field() {
    let batch: FrameBatch = DefaultCollate
        .collate(vec![frame(1), frame(2), frame(3)])
        .unwrap();
    let image: Array4<u8> = batch.image;
    assert_eq!(image.shape(), &[3, 2, 3, 4]);
    assert!(
        image
            .outer_iter()
            .enumerate()
            .all(|(i, img)| img.iter().all(|&p| p == i as u8 + 1))
    );
    assert_eq!(batch.label, array![1i64, 2, 3]);
    assert_eq!(batch.t, array![0.5, 1.0, 1.5]);
    assert_eq!(batch.name, vec!["f1", "f2", "f3"]);
}

#[test]
fn nesting_tuple_structs_arrays_vecs_options_maps() {
    let sample = |k: u8| Nested {
        frame: frame(k),
        pose: Pose(k as f32, [k as f32, 0.0, -(k as f32)]),
        tags: vec![k as u16, 10 * k as u16],
        extra: Some(BTreeMap::from([("gain".to_string(), k as f32)])),
    };
    let b: NestedBatch = DefaultCollate.collate(vec![sample(1), sample(2)]).unwrap();
    assert_eq!(b.frame.label, array![1, 2]);
    let PoseBatch(yaw, xyz): PoseBatch = b.pose;
    let yaw: Array1<f32> = yaw; // f32 stays f32
    assert_eq!(yaw, array![1.0f32, 2.0]);
    assert_eq!(xyz[2], array![-1.0f32, -2.0]);
    assert_eq!(b.tags, vec![array![1u16, 2], array![10u16, 20]]); // transposed like torch lists
    assert_eq!(b.extra.unwrap()["gain"], array![1.0f32, 2.0]);
}

#[test]
fn strategies_list_concat_pad() {
    let s1 = Strategies {
        raw: vec![1, 2, 3],
        points: Array2::zeros((2, 3)),
        track: Array2::ones((1, 2)),
    };
    let s2 = Strategies {
        raw: vec![4],
        points: Array2::ones((3, 3)),
        track: Array2::ones((3, 2)),
    };
    let b: StrategiesBatch = DefaultCollate.collate(vec![s1, s2]).unwrap();
    assert_eq!(b.raw, vec![vec![1, 2, 3], vec![4]]);
    assert_eq!(b.points.shape(), &[5, 3]);
    assert_eq!(b.points.column(0).to_vec(), vec![0.0, 0.0, 1.0, 1.0, 1.0]);
    let Padded {
        data,
        lengths,
        mask,
    } = b.track;
    assert_eq!(data.shape(), &[2, 3, 2]);
    assert_eq!(lengths, array![1, 3]);
    assert_eq!(mask, array![[true, false, false], [true, true, true]]);
    assert_eq!(data[[0, 1, 0]], 0.0); // padding
    assert_eq!(data[[1, 2, 1]], 1.0);
}

#[test]
fn generic_structs_derive() {
    let b: GenericBatch<Array1<f64>> = DefaultCollate
        .collate(vec![
            Generic {
                value: array![1.0, 2.0],
                weight: 0.5,
            },
            Generic {
                value: array![3.0, 4.0],
                weight: 1.5,
            },
        ])
        .unwrap();
    assert_eq!(b.value, array![[1.0, 2.0], [3.0, 4.0]]);
    assert_eq!(b.weight, array![0.5f32, 1.5]);
}

#[test]
fn shape_mismatch_names_path_sample_and_both_shapes() {
    let mut bad = frame(2);
    bad.image = Array3::zeros((2, 3, 5));
    let err = DefaultCollate
        .collate(vec![frame(1), frame(1), bad])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "collate: .image of sample 2: shape [2, 3, 5] differs from shape [2, 3, 4] of sample 0"
    );
    assert!(matches!(err, Error::Collate { position: 2, .. }));
}

#[test]
fn container_mismatches_are_errors() {
    let err = DefaultCollate
        .collate(vec![vec![1, 2], vec![3]])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "collate: the value of sample 1: list of 1 elements, but sample 0 has 2; lists must have equal lengths"
    );
    let a = HashMap::from([("a", 1)]);
    let b = HashMap::from([("b", 2)]);
    let err = DefaultCollate.collate(vec![a, b]).unwrap_err();
    assert!(
        err.to_string().contains("key \"b\" is not in sample 0"),
        "{err}"
    );
    let err = DefaultCollate.collate(vec![Some(1.0), None]).unwrap_err();
    assert!(
        err.to_string()
            .contains("sample 1: None, but sample 0 is Some"),
        "{err}"
    );
    let nested = |v: Vec<Array1<f32>>| (0u8, v);
    let err = DefaultCollate
        .collate(vec![
            nested(vec![array![1.0]]),
            nested(vec![array![1.0, 2.0]]),
        ])
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("collate: .1[0] of sample 1: shape [2]"),
        "{err}"
    );
    let err = DefaultCollate.collate(Vec::<f32>::new()).unwrap_err();
    assert!(err.to_string().contains("the batch is empty"), "{err}");
}

#[test]
fn non_contiguous_arrays_are_copied_in_logical_order() {
    let t = array![[1, 2], [3, 4]].reversed_axes(); // column-major view of [[1,3],[2,4]]
    let b = DefaultCollate.collate(vec![t.clone(), t]).unwrap();
    assert_eq!(b, array![[[1, 3], [2, 4]], [[1, 3], [2, 4]]]);
}

#[test]
fn field_names_do_not_clash_with_generated_names() {
    let s = |k: u8| Shadowing {
        position: k,
        item: k + 1,
        first: k + 2,
        len: k + 3,
        e: k + 4,
    };
    let b: ShadowingBatch = DefaultCollate.collate(vec![s(0), s(10)]).unwrap();
    assert_eq!(b.position, array![0u8, 10]);
    assert_eq!(b.item, array![1u8, 11]);
    assert_eq!(b.first, array![2u8, 12]);
    assert_eq!(b.len, array![3u8, 13]);
    assert_eq!(b.e, array![4u8, 14]);
}

#[test]
fn where_clauses_with_a_trailing_comma_and_raw_identifiers() {
    let b: TrailingBatch<i32> = DefaultCollate
        .collate(vec![Trailing { r#type: 1 }, Trailing { r#type: 2 }])
        .unwrap();
    assert_eq!(b.r#type, array![1, 2]);
}

// --- Packed: ragged arrays packed row after row, with i64 offsets ---

/// A lidar sweep (any number of points, possibly none) beside a padded
/// track.
#[derive(Collate, Clone)]
#[collate(derive(Debug))]
struct Sweep {
    #[collate(packed)]
    points: Array2<f32>,
    #[collate(pad)]
    track: Array2<f32>,
    id: i64,
}

/// Sweep `i`: `i % 4` points of 3 coordinates (none for every fourth),
/// each point `[i, row, -1]`; a track of `i % 3 + 1` rows filled with `i`.
fn sweep(i: usize) -> Sweep {
    Sweep {
        points: Array2::from_shape_fn((i % 4, 3), |(r, c)| [i as f32, r as f32, -1.0][c]),
        track: Array2::from_elem((i % 3 + 1, 2), i as f32),
        id: i as i64,
    }
}

#[test]
fn packed_fields_give_rows_in_order_and_offsets() {
    use adl::collate::{Packed, PackedRows, collate_with};

    let b: SweepBatch = DefaultCollate
        .collate(vec![sweep(2), sweep(4), sweep(3)])
        .unwrap();
    let PackedRows { values, offsets } = b.points;
    assert_eq!(offsets, array![0i64, 2, 2, 5]); // sweep 4 has no points
    assert_eq!(values.shape(), &[5, 3]);
    assert_eq!(values.column(0).to_vec(), vec![2.0, 2.0, 3.0, 3.0, 3.0]);
    assert_eq!(values.column(1).to_vec(), vec![0.0, 1.0, 0.0, 1.0, 2.0]);
    assert_eq!(b.track.lengths, array![3, 2, 1]);
    assert_eq!(b.id, array![2i64, 4, 3]);

    // Directly, without a struct: 3-d samples keep their trailing axes.
    let batch = collate_with::<Packed, _>(vec![
        Array3::<u8>::ones((1, 2, 2)),
        Array3::zeros((0, 2, 2)),
        Array3::from_elem((2, 2, 2), 7),
    ])
    .unwrap();
    assert_eq!(batch.values.shape(), &[3, 2, 2]);
    assert_eq!(batch.offsets, array![0i64, 1, 1, 3]);
    assert_eq!(batch.sample(2), Array3::from_elem((2, 2, 2), 7));
}

#[test]
fn packed_trailing_shape_mismatch_names_path_sample_and_both_shapes() {
    let mut bad = sweep(1);
    bad.points = Array2::zeros((2, 4));
    let err = DefaultCollate
        .collate(vec![sweep(1), sweep(0), bad])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "collate: .points of sample 2: shape [2, 4] cannot be packed with shape [1, 3] of sample 0: all axes but the first must agree"
    );
    assert!(matches!(err, Error::Collate { position: 2, .. }));
    let err = adl::collate::collate_with::<adl::collate::Packed, _>(Vec::<Array2<f32>>::new())
        .unwrap_err();
    assert!(err.to_string().contains("the batch is empty"), "{err}");
}

#[test]
fn packed_and_padded_fields_through_a_loader_with_two_workers() {
    use adl::pipeline::Stages;
    use adl::prelude::*;

    let dataset: adl::InMemory<Sweep> = (0..24).map(sweep).collect();
    let loader =
        adl::graph::loader::Loader::new(dataset, Stages::new().with_collate(DefaultCollate))
            .batch_size(4)
            .workers(2)
            .batches_ahead(2)
            .build()
            .unwrap();
    for epoch in 0..2 {
        let mut ids = Vec::new();
        for batch in loader.epoch(epoch) {
            let batch: SweepBatch = batch.unwrap().into_inner();
            let lengths: Vec<i64> = batch.id.iter().map(|&i| i % 4).collect();
            let mut offsets = vec![0i64];
            for n in &lengths {
                offsets.push(offsets.last().unwrap() + n);
            }
            assert_eq!(batch.points.offsets.to_vec(), offsets);
            assert_eq!(batch.points.lengths().to_vec(), lengths);
            for (k, &id) in batch.id.iter().enumerate() {
                assert_eq!(batch.points.sample(k), sweep(id as usize).points);
                let rows = id as usize % 3 + 1;
                assert_eq!(batch.track.lengths[k], rows);
                assert!(
                    batch
                        .track
                        .data
                        .index_axis(ndarray::Axis(0), k)
                        .outer_iter()
                        .enumerate()
                        .all(|(r, row)| row
                            .iter()
                            .all(|&v| v == if r < rows { id as f32 } else { 0.0 }))
                );
            }
            ids.extend(batch.id.iter().copied());
        }
        assert_eq!(ids, (0..24).collect::<Vec<i64>>());
    }
}

/// An IMU of `[f32; 3]` readings and a radar of `[2]` arrays, each read as
/// a window of its last 4 readings.
#[derive(adl::SensorSet)]
#[sensor_set(sample = Windows, derive(Collate))]
struct Rig<I, R> {
    imu: I,
    radar: R,
}

fn imu_reading(i: usize) -> [f32; 3] {
    [i as f32, 10.0 + i as f32, 20.0 + i as f32]
}

#[test]
fn a_stacked_window_of_readings_collates_to_one_b_n_c_array() {
    use adl::prelude::*;
    use adl::{Window, sync::Nearest};

    let times = |name: &str| Timestamps::new(name, (0..12).map(|i| i as f64 * 0.1).collect());
    let imu = Series::new("imu", times("imu").unwrap(), |i| Ok(imu_reading(i)));
    let radar = Series::new("radar", times("radar").unwrap(), |i| {
        Ok(array![i as i16, -(i as i16)])
    });
    let rig = Rig {
        imu: Window::new(imu, 3, 0).unwrap().stacked(),
        radar: Window::new(radar, 3, 0).unwrap().clamped().stacked(),
    };
    let trace = Recording::new("run", rig, &Nearest::new("imu", 0.01).unwrap()).unwrap();
    assert_eq!(trace.len(), 9); // the imu's cropped window starts at reading 3
    let loader = adl::graph::loader::Loader::new(trace, Stages::new().with_collate(DefaultCollate))
        .batch_size(4)
        .workers(2)
        .build()
        .unwrap();
    let batches: Vec<WindowsBatch<Array2<f32>, Array2<i16>>> =
        loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(batches.len(), 3);
    for (k, batch) in batches.iter().enumerate() {
        let samples = if k < 2 { 4 } else { 1 };
        assert_eq!(batch.imu.shape(), &[samples, 4, 3]);
        assert_eq!(batch.radar.shape(), &[samples, 4, 2]);
        for b in 0..samples {
            let current = 3 + k * 4 + b; // the window's last reading
            for n in 0..4 {
                let reading = current - 3 + n;
                assert_eq!(
                    batch.imu.slice(ndarray::s![b, n, ..]).to_vec(),
                    imu_reading(reading)
                );
                assert_eq!(batch.radar[[b, n, 0]], reading as i16);
            }
        }
    }
    // The same window as a list collates position by position (torch's
    // default_collate): 4 positions of 3 batches each.
    let imu = Series::new("imu", times("imu").unwrap(), |i| Ok(imu_reading(i)));
    let listed = Window::new(imu, 3, 0).unwrap();
    let batch = DefaultCollate
        .collate(vec![listed.get(0).unwrap(), listed.get(1).unwrap()])
        .unwrap();
    assert_eq!(batch.len(), 4);
    assert_eq!(batch[0][1], array![10.0f32, 11.0]);
}

#[test]
fn a_stacked_window_of_readings_of_two_shapes_names_the_sensor_and_sample() {
    use adl::Window;
    use adl::prelude::*;

    let times = Timestamps::new("radar", vec![0.0, 0.1, 0.2, 0.3]).unwrap();
    let radar = Series::new("radar", times, |i| {
        Ok(Array1::<f32>::zeros(if i == 2 { 3 } else { 2 }))
    });
    let windows = Window::new(radar, 1, 0).unwrap().stacked();
    assert_eq!(windows.get(0).unwrap().shape(), &[2, 2]);
    let err = windows.get(1).unwrap_err();
    assert!(matches!(err, Error::Load { index: 1, .. }), "{err:?}");
    let text = format!("{err:#}");
    assert!(
        text.contains("sensor `radar`") && text.contains("reading 1 has shape [3], reading 0 [2]"),
        "{text}"
    );
}

/// A program's own strategy: a field of varying length batched as its
/// values end to end and each sample's length (a ragged batch), named by
/// `#[collate(with = Ragged)]`.
struct Ragged;

/// A [`Ragged`] batch.
#[derive(Debug, Default, PartialEq)]
struct RaggedBatch {
    values: Vec<f32>,
    lengths: Vec<usize>,
}

struct RaggedBuilder(RaggedBatch);

impl adl::collate::BatchBuilder<Vec<f32>> for RaggedBuilder {
    type Batch = RaggedBatch;

    fn push(&mut self, item: Vec<f32>, _position: usize) -> adl::Result<()> {
        self.0.lengths.push(item.len());
        self.0.values.extend(item);
        Ok(())
    }

    fn finish(self) -> adl::Result<RaggedBatch> {
        Ok(self.0)
    }
}

impl adl::collate::Strategy<Vec<f32>> for Ragged {
    type Batch = RaggedBatch;
    type Builder = RaggedBuilder;

    fn builder(_first: &Vec<f32>, len: usize) -> RaggedBuilder {
        RaggedBuilder(RaggedBatch {
            values: Vec::new(),
            lengths: Vec::with_capacity(len),
        })
    }
}

#[derive(Collate, Clone)]
struct Track {
    #[collate(with = Ragged)]
    points: Vec<f32>,
    id: u32,
}

#[test]
fn a_programs_own_strategy_batches_its_field() {
    let tracks = vec![
        Track {
            points: vec![1.0, 2.0],
            id: 7,
        },
        Track {
            points: vec![],
            id: 8,
        },
        Track {
            points: vec![3.0],
            id: 9,
        },
    ];
    let batch = DefaultCollate.collate(tracks.clone()).unwrap();
    assert_eq!(
        batch.points,
        RaggedBatch {
            values: vec![1.0, 2.0, 3.0],
            lengths: vec![2, 0, 1]
        }
    );
    assert_eq!(batch.id, array![7, 8, 9]);

    // Through a loader, as any collate.
    let loader = adl::graph::loader::Loader::new(
        adl::InMemory::from(tracks),
        adl::pipeline::Stages::new().with_collate(DefaultCollate),
    )
    .batch_size(2)
    .workers(2)
    .build()
    .unwrap();
    let lengths: Vec<Vec<usize>> = loader
        .epoch(0)
        .map(|b| b.unwrap().into_inner().points.lengths)
        .collect();
    assert_eq!(lengths, [vec![2, 0], vec![1]]);
}

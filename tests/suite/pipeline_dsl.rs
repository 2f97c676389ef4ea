//! `pipeline!` at run time: every DSL form runs on real data, and its
//! `.graph()` describes it (nodes, stages, branches, types) and passes the
//! planner's checks.

use std::collections::BTreeMap;

use adl::description::{Body, Description, NodeInfo, Stage, TypeInfo};
use adl::pipeline::run;
use adl::{Collate, Pipeline, pipeline};
use ndarray::{Array1, Array2, array};

/// The nodes of these tests.
mod nodes {
    use adl::transform;
    use ndarray::{Array1, Array2, Axis};

    #[transform]
    pub(crate) fn double(x: i64) -> i64 {
        x * 2
    }

    #[transform]
    pub(crate) fn to_f32(x: i64) -> f32 {
        x as f32
    }

    #[transform]
    pub(crate) fn features(x: f32) -> Array1<f32> {
        Array1::from(vec![x, -x])
    }

    #[transform(batch)]
    pub(crate) fn row_sums(b: Array2<f32>) -> Array1<f32> {
        b.sum_axis(Axis(1))
    }

    #[transform(batch)]
    pub(crate) fn total(b: Array1<f32>) -> f32 {
        b.sum()
    }

    /// A stateful node: its configuration is a value.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Scale {
        pub(crate) k: f32,
    }

    #[transform]
    impl Scale {
        fn apply(&self, x: f32) -> f32 {
            x * self.k
        }
    }

    /// `Scale` as a call, the way a stateful node is usually built.
    pub(crate) fn scale(k: f32) -> Scale {
        Scale { k }
    }
}

use nodes::*;

/// A custom collate: the sum of the samples.
struct Sum;

impl Collate<f32> for Sum {
    type Batch = f32;
    fn collate(&self, samples: Vec<f32>) -> adl::Result<f32> {
        Ok(samples.into_iter().sum())
    }
}

/// The description is sound, and the planner plans and draws it.
fn assert_plans(d: &Description) {
    assert_eq!(d.check(), vec![]);
    let plan = adl::graph::Planner
        .plan(d)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(plan.to_dot().starts_with("digraph"));
}

fn names(nodes: &[NodeInfo]) -> Vec<&str> {
    nodes.iter().map(|n| n.name.as_ref()).collect()
}

fn stages(d: &Description) -> (&[NodeInfo], &[NodeInfo], &[NodeInfo]) {
    match &d.body {
        Body::Stages {
            sample,
            collate,
            batch,
            ..
        } => (sample, collate, batch),
        Body::Parallel { .. } => panic!("expected stages, got branches"),
    }
}

fn branches(d: &Description) -> Vec<(&str, &Description)> {
    match &d.body {
        Body::Parallel { branches, .. } => branches.iter().map(|(n, d)| (n.as_str(), d)).collect(),
        Body::Stages { .. } => panic!("expected branches, got stages"),
    }
}

#[test]
fn stages_run_and_describe_their_nodes_and_types() {
    let p = pipeline! {
        sample: double -> to_f32 -> features,
        collate: default,
        batch: row_sums -> total,
    };
    assert_eq!(run(&p, vec![1, 2, 3]).unwrap(), 0.0);
    assert_eq!(p.sample(4).unwrap(), array![8.0f32, -8.0]);

    let d = p.graph();
    assert_plans(d);
    let (sample, collate, batch) = stages(d);
    assert_eq!(names(sample), ["double", "to_f32", "features"]);
    assert_eq!(names(collate), ["default"]);
    assert_eq!(names(batch), ["row_sums", "total"]);
    assert_eq!(collate[0].stage, Stage::Collate);
    assert_eq!(collate[0].input, Some(TypeInfo::of::<Array1<f32>>()));
    assert_eq!(collate[0].output, Some(TypeInfo::of::<Array2<f32>>()));
    assert_eq!(sample[1].input, Some(TypeInfo::of::<i64>()));
    assert_eq!(batch[1].output, Some(TypeInfo::of::<f32>()));
}

#[test]
fn sample_and_batch_default_to_the_identity() {
    let p = pipeline! { collate: default };
    assert_eq!(run(&p, vec![1i64, 2]).unwrap(), array![1i64, 2]);
    let (sample, collate, batch) = stages(p.graph());
    assert!(sample.is_empty() && batch.is_empty());
    // With nothing before it, the collate's types are not known.
    assert_eq!(collate[0].input, None);
    assert_plans(p.graph());
}

#[test]
fn stateful_nodes_are_expressions() {
    let half = scale(0.5);
    let p = pipeline! {
        sample: to_f32 -> scale(2.0) -> (half) -> Scale { k: 10.0 },
        collate: Sum,
    };
    assert_eq!(run(&p, vec![1, 2, 3]).unwrap(), 60.0);
    let (sample, collate, _) = stages(p.graph());
    assert_eq!(names(sample), ["to_f32", "scale", "scale", "scale"]);
    assert_eq!(names(collate), ["Sum"]);
    assert_eq!(collate[0].output, Some(TypeInfo::of::<f32>()));
    assert_plans(p.graph());
}

#[test]
fn closures_are_nodes_of_the_stage_they_stand_in() {
    let offset = 100;
    let p = pipeline! {
        sample: |x: i64| x + 1 -> |x| x * 2 -> move |x| x + offset,
        collate: |v: Vec<i64>| v.iter().sum::<i64>(),
        batch: |s| s * 10 -> |s: i64| -> String { s.to_string() },
    };
    assert_eq!(run(&p, vec![1, 2]).unwrap(), "2100");
    let (sample, collate, batch) = stages(p.graph());
    assert_eq!(names(sample), ["closure"; 3]);
    assert!(sample.iter().all(|n| n.stage == Stage::Sample));
    assert!(batch.iter().all(|n| n.stage == Stage::Batch));
    assert_eq!(sample[0].doc, "|x: i64| x + 1");
    assert_eq!(sample[1].input, Some(TypeInfo::of::<i64>()));
    assert_eq!(names(collate), ["|v: Vec<i64>| v.iter().sum::<i64>()"]);
    assert_eq!(batch[1].output, Some(TypeInfo::of::<String>()));
    assert_plans(p.graph());
}

#[test]
fn pre_and_post_wrap_the_pipeline() {
    let p = pipeline! {
        pre: |s: &'static str| s.len() as i64 -> double,
        sample: to_f32,
        collate: Sum,
        post: |x: f32| x / 2.0,
    };
    assert_eq!(run(&p, vec!["ab", "cde"]).unwrap(), 5.0);
    let d = p.graph();
    assert_eq!(names(&d.pre), ["closure", "double"]);
    assert_eq!(names(&d.post), ["closure"]);
    assert_eq!(d.post[0].stage, Stage::Batch);
    assert_plans(d);
}

#[derive(adl::Collate, Debug, Clone)]
struct Frame {
    radar: Radar,
    label: i64,
}

#[derive(adl::Collate, Debug, Clone)]
struct Radar {
    range: f32,
    doppler: Array1<f32>,
}

fn frame(i: i64) -> Frame {
    Frame {
        radar: Radar {
            range: i as f32,
            doppler: array![i as f32, 1.0],
        },
        label: i,
    }
}

#[test]
fn struct_branches_route_fields_and_batch_into_named_fields() {
    let p = pipeline! {
        Frame {
            radar: { sample: |r: Radar| r.range, collate: Sum },
            label: { sample: double, collate: default, batch: |b: Array1<i64>| b.sum() },
        }
    };
    let batch = run(&p, vec![frame(1), frame(2)]).unwrap();
    assert_eq!(batch.radar, 3.0);
    assert_eq!(batch.label, 6);

    let d = p.graph();
    assert_plans(d);
    let b = branches(d);
    assert_eq!(
        b.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        ["radar", "label"]
    );
    let (_, collate, _) = stages(b[1].1);
    // The branch's collate is typed from the field, through its sample node.
    assert_eq!(collate[0].input, Some(TypeInfo::of::<i64>()));
    let (_, collate, _) = stages(b[0].1);
    assert_eq!(collate[0].input, Some(TypeInfo::of::<f32>()));
}

#[test]
fn a_branch_without_sample_nodes_is_typed_from_its_field() {
    let p = pipeline! { Frame { label: { collate: default } } };
    assert_eq!(run(&p, vec![frame(4)]).unwrap().label, array![4i64]);
    let (_, collate, _) = stages(branches(p.graph())[0].1);
    assert_eq!(collate[0].input, Some(TypeInfo::of::<i64>()));
    assert_eq!(collate[0].output, Some(TypeInfo::of::<Array1<i64>>()));
}

/// A scan of ragged lidar points (`[points, 3]`, a different count per
/// scan) with its label.
#[derive(Clone)]
struct Scan {
    points: Array2<f32>,
    label: i64,
}

fn scan(points: usize, label: i64) -> Scan {
    Scan {
        points: Array2::from_shape_fn((points, 3), |(r, c)| (r * 3 + c) as f32),
        label,
    }
}

#[test]
fn a_branch_collates_ragged_data_by_a_named_strategy() {
    let padded = pipeline! {
        Scan {
            points: { collate: pad },
            label: { collate: default },
        }
    };
    let batch = run(&padded, vec![scan(2, 7), scan(4, 8)]).unwrap();
    assert_eq!(batch.points.data.shape(), &[2, 4, 3]);
    assert_eq!(batch.points.lengths, array![2, 4]);
    assert_eq!(batch.points.data[[0, 2, 0]], 0.0, "padding");
    assert_eq!(batch.label, array![7i64, 8]);
    let (_, collate, _) = stages(branches(padded.graph())[0].1);
    assert_eq!(names(collate), ["pad"]);
    assert_plans(padded.graph());

    let packed = pipeline! {
        Scan {
            points: { collate: packed },
            label: { collate: list },
        }
    };
    let batch = run(&packed, vec![scan(2, 7), scan(4, 8), scan(1, 9)]).unwrap();
    assert_eq!(batch.points.values.shape(), &[7, 3]);
    assert_eq!(batch.points.offsets, array![0i64, 2, 6, 7]);
    assert_eq!(batch.label, vec![7i64, 8, 9]);
    assert_plans(packed.graph());
}

#[test]
fn branches_nest_and_take_pre_and_post() {
    let p = pipeline! {
        pre: |i: i64| frame(i),
        Frame {
            radar: Radar {
                range: { sample: scale(2.0), collate: Sum },
                doppler: { collate: default, batch: |b: Array2<f32>| b.sum() },
            },
            label: { collate: default },
        },
        post: |b| b,
    };
    let batch = run(&p, vec![1, 2, 3]).unwrap();
    assert_eq!(batch.radar.range, 12.0);
    assert_eq!(batch.radar.doppler, 9.0);
    assert_eq!(batch.label, array![1i64, 2, 3]);

    let d = p.graph();
    assert_plans(d);
    assert_eq!(names(&d.pre), ["closure"]);
    let radar = branches(d)[0].1;
    let inner = branches(radar);
    assert_eq!(
        inner.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        ["range", "doppler"]
    );
    let (sample, _, _) = stages(inner[0].1);
    assert_eq!(names(sample), ["scale"]);
}

#[test]
fn sample_and_batch_around_branches_stand_before_and_after_them() {
    let p = pipeline! {
        sample: |i: i64| frame(i),
        Frame { label: { collate: default } },
        batch: |b| b,
    };
    assert_eq!(run(&p, vec![7]).unwrap().label, array![7i64]);
    let d = p.graph();
    assert_eq!((d.pre.len(), d.post.len()), (1, 1));
    assert_plans(d);
}

fn keyed(a: i64, b: i64) -> BTreeMap<String, i64> {
    BTreeMap::from([
        ("a".to_owned(), a),
        ("b".to_owned(), b),
        ("c".to_owned(), 0),
    ])
}

#[test]
fn keyed_branches_route_keys() {
    let p = pipeline! {
        { "a": { sample: double, collate: default }, "b": { collate: default } }
    };
    let out = run(&p, vec![keyed(1, 2), keyed(3, 4)]).unwrap();
    assert_eq!(out.len(), 2, "keys without a branch are dropped");
    assert_eq!(out["a"], array![2i64, 6]);
    assert_eq!(out["b"], array![2i64, 4]);
    let d = p.graph();
    assert_plans(d);
    assert_eq!(
        branches(d).iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        ["a", "b"]
    );
}

#[test]
fn keyed_branches_may_stand_alone_and_name_their_sample_type() {
    let bare = pipeline! { "a": { collate: default }, "b": { collate: default } };
    assert_eq!(run(&bare, vec![keyed(1, 2)]).unwrap()["b"], array![2i64]);

    let typed = pipeline! {
        BTreeMap<String, i64> {
            "a": { collate: default },
            "b": { sample: |x| x + 1, collate: default },
        }
    };
    assert_eq!(run(&typed, vec![keyed(1, 2)]).unwrap()["b"], array![3i64]);
    // The sample type types the collate of a branch without sample nodes.
    let (_, collate, _) = stages(branches(typed.graph())[0].1);
    assert_eq!(collate[0].input, Some(TypeInfo::of::<i64>()));
}

#[test]
fn branch_errors_are_named_by_the_branch() {
    let p = pipeline! {
        { "a": { collate: default }, "missing": { collate: default } }
    };
    let err = run(&p, vec![keyed(1, 2)]).unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");

    let p = pipeline! {
        Frame { radar: { sample: |r: Radar| r.doppler, collate: default } }
    };
    let mut odd = frame(2);
    odd.radar.doppler = array![1.0];
    let err = run(&p, vec![frame(1), odd]).unwrap_err();
    assert!(err.to_string().contains(".radar"), "{err}");
}

#[test]
fn the_described_pipeline_unwraps() {
    let p = pipeline! { sample: double, collate: default };
    let (inner, description) = p.clone().into_parts();
    assert_eq!(&description, p.graph());
    assert_eq!(run(&inner, vec![1i64]).unwrap(), array![2i64]);
}

#[test]
fn the_first_example_of_the_docs() {
    use adl::prelude::*;

    #[transform]
    fn double(x: i64) -> i64 {
        x * 2
    }

    #[transform(batch)]
    fn total(b: Array1<i64>) -> i64 {
        b.sum()
    }

    let pipe = pipeline! {
        sample: double -> |x: i64| x + 1,
        collate: default,
        batch: total,
    };
    assert_eq!(adl::pipeline::run(&pipe, vec![1, 2, 3]).unwrap(), 15);
    let plan = adl::graph::Planner.plan(pipe.graph()).unwrap();
    assert!(plan.to_dot().contains("double"));
}

/// `adl` under another path: `crate = path;` first.
mod renamed {
    pub(crate) use adl as engine_of_data;
}

#[test]
fn the_crate_path_can_be_given() {
    let p = adl::pipeline! {
        crate = renamed::engine_of_data;
        sample: |x: i64| x * 3,
        collate: default,
    };
    assert_eq!(
        adl::pipeline::run(&p, vec![1, 2]).unwrap(),
        ndarray::Array1::from(vec![3i64, 6])
    );
    assert!(p.graph().check().is_empty());
}

#[test]
fn arrows_inside_closure_parameter_types_are_not_chain_arrows() {
    fn plus_one(x: i64) -> i64 {
        x + 1
    }
    // The `->` of `fn(i64) -> i64` stands at the level of the chain,
    // between the closure's `|`s.
    let p = adl::pipeline! {
        sample: |f: fn(i64) -> i64| f(2) -> |x: i64| x * 10,
        collate: default,
    };
    let raws: Vec<fn(i64) -> i64> = vec![plus_one, plus_one];
    assert_eq!(
        adl::pipeline::run(&p, raws).unwrap(),
        ndarray::Array1::from(vec![30i64, 30])
    );
}

/// A context that records the id of every node it enters, running
/// everything in order on the calling thread.
#[derive(Default)]
struct Recording {
    entered: std::sync::Mutex<Vec<adl::exec::NodeId>>,
}

impl Recording {
    /// The names of the nodes entered since the last call, by their ids in
    /// `d.nodes()`.
    fn take<'d>(&self, d: &'d Description) -> Vec<&'d str> {
        let nodes = d.nodes();
        std::mem::take(&mut *self.entered.lock().unwrap())
            .into_iter()
            .map(|id| nodes[id.index()].name.as_ref())
            .collect()
    }
}

impl adl::exec::Context for Recording {
    fn join_dyn(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        a();
        b();
    }

    fn enter(&self, node: adl::exec::NodeId) -> Option<std::time::Instant> {
        self.entered.lock().unwrap().push(node);
        None
    }

    fn leave(&self, _node: adl::exec::NodeId, _entered: Option<std::time::Instant>) {}

    fn rng(&self, node: adl::exec::NodeId) -> adl::exec::SampleRng {
        adl::exec::SampleRng::new(0, 0, 0, node)
    }

    fn sample_index(&self) -> Option<usize> {
        None
    }
}

#[test]
fn every_node_runs_tagged_with_its_index_in_the_description() {
    let p = pipeline! {
        pre: |i: i64| frame(i),
        Frame {
            radar: { sample: |r: Radar| r.range -> scale(2.0), collate: Sum, batch: |s: f32| s + 1.0 },
            label: { sample: double, collate: default, batch: |b: Array1<i64>| b.sum() },
        },
        post: |b| b,
    };
    let d = p.graph();
    assert_eq!(
        d.nodes()
            .iter()
            .map(|n| n.name.as_ref())
            .collect::<Vec<_>>(),
        [
            "closure", "closure", "scale", "Sum", "closure", "double", "default", "closure",
            "closure"
        ]
    );
    let cx = Recording::default();
    let samples = vec![p.sample_in(&cx, 1).unwrap(), p.sample_in(&cx, 2).unwrap()];
    // Per sample: pre, then each branch's sample nodes.
    let per_sample = ["closure", "closure", "scale", "double"];
    assert_eq!(cx.take(d), [per_sample, per_sample].concat());
    let collated = p.collate_in(&cx, samples).unwrap();
    assert_eq!(cx.take(d), ["Sum", "default"]);
    let batch = p.batch_in(&cx, collated).unwrap();
    assert_eq!(cx.take(d), ["closure", "closure", "closure"]);
    assert_eq!(batch.radar, 7.0);
    assert_eq!(batch.label, 6);

    // Names repeat ("closure"): the ids themselves are each node's place.
    for _ in 0..2 {
        p.sample_in(&cx, 3).unwrap();
    }
    let ids: Vec<u32> = std::mem::take(&mut *cx.entered.lock().unwrap())
        .into_iter()
        .map(|id| id.0)
        .collect();
    assert_eq!(ids, [0, 1, 2, 5, 0, 1, 2, 5]);
    let samples = vec![p.sample(1).unwrap()];
    let collated = p.collate_in(&cx, samples).unwrap();
    p.batch_in(&cx, collated).unwrap();
    let ids: Vec<u32> = std::mem::take(&mut *cx.entered.lock().unwrap())
        .into_iter()
        .map(|id| id.0)
        .collect();
    assert_eq!(ids, [3, 6, 4, 7, 8]);
}

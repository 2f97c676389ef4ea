//! A pipeline composed at run time over samples of any shape, run as the
//! loader runs it: sample steps under their keys, the stack, batch steps;
//! errors that say where; and the loader over it.

use std::sync::Arc;

use adl_core::description::{NodeInfo, Stage};
use adl_core::transform::ImageLayout;
use adl_core::{Error, InMemory, Pipeline, Result, Transform};
use adl_graph::loader::Loader;
use adl_ops::kernel::{Normalize, U8ToF32};
use adl_value::{AnyArray, Node, Path, Step, Value, ValuePipeline, stack};
use ndarray::{ArrayD, IxDyn};

/// A sample: a `[2, 3, 1]` uint8 image of `i`s and a float `t`.
fn sample(i: u8) -> Value {
    let image = ArrayD::from_elem(IxDyn(&[2, 3, 1]), i);
    Value::Map(vec![
        (Arc::from("camera"), Value::Array(AnyArray::U8(image))),
        (
            Arc::from("t"),
            Value::Array(AnyArray::F64(ArrayD::from_elem(IxDyn(&[]), f64::from(i)))),
        ),
    ])
}

fn key(keys: &str) -> Path {
    Path::parse(keys).unwrap()
}

fn step(step: Step) -> (NodeInfo, Node) {
    (step.info(), Node::Step(step))
}

/// The camera flipped (never: p = 0), to float, normalised by 2 and 1.
fn camera_pipeline() -> ValuePipeline {
    let flip = Step::Flip {
        p: 0.0,
        layout: ImageLayout::Hwc,
    };
    ValuePipeline::new(
        vec![(key("camera"), vec![step(flip)])],
        vec![(
            key("camera"),
            vec![
                step(Step::ToFloat(U8ToF32::divide(1.0))),
                step(Step::Normalize(Normalize::per_channel(
                    vec![2.0],
                    vec![1.0],
                ))),
            ],
        )],
    )
    .unwrap()
}

fn array(value: &Value, key: &str) -> AnyArray {
    match value {
        Value::Map(items) => match &items.iter().find(|(k, _)| &**k == key).unwrap().1 {
            Value::Array(a) => a.clone(),
            other => panic!("{key}: {}", other.kind()),
        },
        other => panic!("{}", other.kind()),
    }
}

#[test]
fn samples_are_transformed_stacked_and_batched_under_their_keys() {
    let pipeline = camera_pipeline();
    assert!(pipeline.is_native());
    let samples: Vec<Value> = (0..3)
        .map(|i| pipeline.sample(sample(i)).unwrap())
        .collect();
    let batch = pipeline.batch(pipeline.collate(samples).unwrap()).unwrap();
    let AnyArray::F32(camera) = array(&batch, "camera") else {
        panic!("float32 after ToFloat");
    };
    assert_eq!(camera.shape(), &[3, 2, 3, 1]);
    assert_eq!(camera[[2, 0, 0, 0]], 0.0, "(2 - 2) / 1");
    assert_eq!(camera[[0, 1, 2, 0]], -2.0);
    let AnyArray::F64(t) = array(&batch, "t") else {
        panic!("t stays float64");
    };
    assert_eq!(t.as_slice().unwrap(), &[0.0, 1.0, 2.0]);
    assert_eq!(
        pipeline.branches(),
        [(
            "camera".to_owned(),
            vec!["random_flip".to_owned()],
            vec!["u8_to_f32".to_owned(), "normalize".to_owned()]
        )]
    );
    assert!(pipeline.description().unwrap().check().is_empty());
}

#[test]
fn a_sample_that_does_not_fit_is_named_with_where_and_both_shapes() {
    let mut odd = sample(1);
    if let Value::Map(items) = &mut odd {
        items[0].1 = Value::Array(AnyArray::U8(ArrayD::zeros(IxDyn(&[2, 2, 1]))));
    }
    let err = stack(vec![sample(0), odd], adl_exec::Buffers::none()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Collate { .. }), "{text}");
    assert!(text.contains("[\"camera\"]"), "{text}");
    assert!(
        text.contains("shape [2, 2, 1] where the first sample's has shape [2, 3, 1]"),
        "{text}"
    );
    assert!(stack(Vec::new(), adl_exec::Buffers::none()).is_err());
}

#[test]
fn a_step_given_what_it_does_not_take_says_so_naming_the_key() {
    let pipeline = ValuePipeline::new(
        Vec::new(),
        vec![(key("t"), vec![step(Step::ToFloat(U8ToF32::divide(255.0)))])],
    )
    .unwrap();
    let samples = (0..2).map(sample).collect();
    let batch = pipeline.collate(samples).unwrap();
    let text = pipeline.batch(batch).unwrap_err().to_string();
    assert!(text.contains("sample[\"t\"]"), "{text}");
    assert!(text.contains("it takes a uint8 array"), "{text}");
    let missing =
        ValuePipeline::new(vec![(key("lidar"), vec![step(Step::Decode)])], Vec::new()).unwrap();
    let text = missing.sample(sample(0)).unwrap_err().to_string();
    assert!(text.contains("there is no `lidar`"), "{text}");
}

#[test]
fn a_key_inside_another_and_a_broken_rule_are_refused() {
    let decode = || vec![step(Step::Decode)];
    let err = ValuePipeline::new(
        vec![(key("imu"), decode()), (key("imu/acc"), decode())],
        Vec::new(),
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("which is inside it"), "{err}");
    // A batch kernel among the sample steps breaks the stages' rule.
    let err = ValuePipeline::new(
        vec![(
            key("camera"),
            vec![step(Step::ToFloat(U8ToF32::divide(1.0)))],
        )],
        Vec::new(),
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("composition rules"), "{err}");
}

/// A node of the program's own: doubles float64 values.
struct Double;

impl Transform<Value> for Double {
    type Output = Value;
    fn apply(&self, input: Value) -> Result<Value> {
        match input {
            Value::Array(AnyArray::F64(a)) => Ok(Value::Array(AnyArray::F64(a * 2.0))),
            other => Err(Error::invalid("double", other.kind())),
        }
    }
}

#[test]
fn the_loader_runs_it_with_a_node_of_the_programs_own() {
    let info = NodeInfo::new("double", Stage::Sample);
    let pipeline = ValuePipeline::new(
        vec![(key("t"), vec![(info, Node::Other(Arc::new(Double)))])],
        Vec::new(),
    )
    .unwrap();
    assert!(!pipeline.is_native());
    let data: InMemory<Value> = (0..8).map(sample).collect();
    let loader = Loader::new(data, pipeline)
        .batch_size(4)
        .workers(2)
        .build()
        .unwrap();
    let ts: Vec<f64> = loader
        .epoch(0)
        .flat_map(|b| {
            let AnyArray::F64(t) = array(&b.unwrap().into_inner(), "t") else {
                panic!("float64");
            };
            t.into_iter().collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(ts, (0..8).map(|i| 2.0 * f64::from(i)).collect::<Vec<_>>());
}

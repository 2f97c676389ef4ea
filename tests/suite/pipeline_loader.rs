//! Pipelines written with `pipeline!` as a training loader uses them:
//! random augmentations (a `#[transform]` node that takes the generator,
//! and `random(|x, rng| ...)`) and a pipeline returned from a function,
//! with a batch struct of the user's own, run by `adl::graph::loader::Loader`.

use adl::description::{Body, Described, Description, NodeInfo};
use adl::exec::{Recycle, SampleRng};
use adl::graph::loader::Loader;
use adl::transform::random;
use adl::{InMemory, Pipeline, pipeline, transform};
use ndarray::{Array1, Array2, array};

/// One training sample: a camera row and a radar return.
#[derive(Debug, Clone)]
struct Frame {
    camera: Array1<f32>,
    radar: f32,
}

/// A batch of frames, named so that a function can return its pipeline.
#[derive(Debug, Clone, PartialEq, adl::Recycle)]
struct FrameBatch {
    camera: Array2<f32>,
    radar: Array1<f32>,
}

/// Brighten by a random amount in `[0, 1)`, drawn per sample.
#[transform]
fn jitter(camera: Array1<f32>, rng: &mut SampleRng) -> Array1<f32> {
    camera + rng.unit_f32()
}

/// Scale by a random gain in `[1, 1 + max)`, drawn per sample.
struct RandomGain {
    max: f32,
}

#[transform]
impl RandomGain {
    fn apply(&self, radar: f32, rng: &mut SampleRng) -> f32 {
        radar * (1.0 + self.max * rng.unit_f32())
    }
}

/// The pipeline of the docs' "A pipeline from a function", as written
/// there.
fn training_pipeline()
-> Described<impl Pipeline<Frame, Processed = FrameBatch> + Send + Sync + 'static> {
    pipeline! {
        Frame => FrameBatch {
            camera: {
                sample: jitter -> random(|camera, rng| camera * (0.5 + rng.unit_f32())),
                collate: default,
            },
            radar: {
                sample: RandomGain { max: 0.5 } -> random(|r: f32, rng: &mut SampleRng| r + rng.unit_f32()),
                collate: default,
            },
        }
    }
}

/// `count` frames that are all alike: whatever differs between their
/// samples was drawn.
fn alike(count: usize) -> Vec<Frame> {
    let frame = Frame {
        camera: array![1.0, 2.0, 3.0],
        radar: 1.0,
    };
    vec![frame; count]
}

/// Every batch of epoch `epoch` of a loader with `workers` workers.
fn epoch(workers: usize, epoch: u64) -> Vec<FrameBatch> {
    let dataset: InMemory<Frame> = alike(10).into_iter().collect();
    let loader = Loader::new(dataset, training_pipeline())
        .batch_size(4)
        .seed(7)
        .workers(workers)
        .build()
        .expect("a loader");
    loader
        .epoch(epoch)
        .map(|batch| batch.expect("a batch").into_inner())
        .collect()
}

#[test]
fn random_nodes_draw_the_same_for_the_same_seed_epoch_and_index_whatever_the_workers() {
    let sequential = epoch(0, 0);
    assert_eq!(sequential.len(), 3);
    assert_eq!(sequential[0].camera.dim(), (4, 3));
    assert_eq!(epoch(2, 0), sequential);
    assert_eq!(epoch(0, 0), sequential);
    // Another epoch draws again.
    assert_ne!(epoch(2, 1), sequential);
}

#[test]
fn random_nodes_draw_differently_for_each_sample() {
    let batches = epoch(2, 0);
    let rows: Vec<Vec<f32>> = batches
        .iter()
        .flat_map(|b| {
            b.camera
                .rows()
                .into_iter()
                .map(|r| r.to_vec())
                .collect::<Vec<_>>()
        })
        .collect();
    let radars: Vec<f32> = batches.iter().flat_map(|b| b.radar.to_vec()).collect();
    assert_eq!((rows.len(), radars.len()), (10, 10));
    for i in 0..10 {
        for j in 0..i {
            assert_ne!(rows[i], rows[j], "samples {i} and {j} drew alike");
            assert_ne!(radars[i], radars[j], "samples {i} and {j} drew alike");
        }
        // The draws stay in their ranges: brightened by [0, 1), scaled by
        // [0.5, 1.5); a gain of [1, 1.5), plus [0, 1).
        let first = rows[i][0];
        assert!((0.5..3.0).contains(&first), "{first}");
        assert!((1.0..2.5).contains(&radars[i]), "{}", radars[i]);
    }
}

fn names(nodes: &[NodeInfo]) -> Vec<&str> {
    nodes.iter().map(|n| n.name.as_ref()).collect()
}

fn sample_nodes(d: &Description) -> &[NodeInfo] {
    match &d.body {
        Body::Stages { sample, .. } => sample,
        Body::Parallel { .. } => panic!("expected stages"),
    }
}

#[test]
fn the_description_names_the_random_nodes() {
    let pipe = training_pipeline();
    let Body::Parallel { branches, .. } = &pipe.graph().body else {
        panic!("expected branches")
    };
    let (camera, radar) = (&branches[0].1, &branches[1].1);
    assert_eq!(names(sample_nodes(camera)), ["jitter", "random"]);
    assert_eq!(names(sample_nodes(radar)), ["random_gain", "random"]);
    let jitter = &sample_nodes(camera)[0];
    assert_eq!(
        jitter.doc,
        "Brighten by a random amount in `[0, 1)`, drawn per sample."
    );
    // A `random(..)` node's doc is its source text, as a closure's is.
    assert_eq!(
        sample_nodes(camera)[1].doc,
        "random(|camera, rng| camera * (0.5 + rng.unit_f32()))"
    );
    assert_eq!(pipe.graph().check(), vec![]);
}

#[test]
fn the_randomness_example_of_the_docs_runs() {
    let pipe = pipeline! {
        sample: jitter                                     // Array1<f32> -> Array1<f32>
            -> random(|x, rng| x * (0.5 + rng.unit_f32())) // inline: its input inferred
            -> |x| x.sum()
            -> RandomGain { max: 0.5 },
        collate: default,
    };
    let sums = adl::pipeline::run(&pipe, vec![array![1.0f32, 2.0], array![1.0, 2.0]]).unwrap();
    assert_eq!(sums.len(), 2);
    // `run` numbers its samples: two samples alike draw differently.
    assert_ne!(sums[0], sums[1]);
}

#[test]
fn each_random_node_draws_from_its_own_generator() {
    // Two nodes alike draw differently: the generator is the node's.
    let pipe = pipeline! {
        sample: adl::transform::random(|_: u8, rng: &mut SampleRng| rng.next_u64())
            -> random(|first, rng| (first, rng.next_u64())),
        collate: |pairs: Vec<(u64, u64)>| pairs,
    };
    let dataset: InMemory<u8> = vec![0; 6].into_iter().collect();
    let loader = Loader::new(dataset, pipe)
        .batch_size(3)
        .workers(1)
        .build()
        .expect("a loader");
    for batch in loader.epoch(0) {
        for &(first, second) in batch.expect("a batch").iter() {
            assert_ne!(first, second);
        }
    }
}

#[test]
fn a_node_that_takes_the_generator_draws_from_its_context() {
    use adl::Transform;
    use adl::exec::Sequential;
    let at = |index| Sequential::new().seeded(3, 0).at(index);
    let node = jitter {};
    let ones = || array![1.0f32, 1.0];
    assert_eq!(
        node.apply_in(&at(4), ones()).unwrap(),
        node.apply_in(&at(4), ones()).unwrap()
    );
    assert_ne!(
        node.apply_in(&at(4), ones()).unwrap(),
        node.apply_in(&at(5), ones()).unwrap()
    );
    // Plainly, it draws from the generator of seed 0, epoch 0, sample 0.
    assert_eq!(
        node.apply(ones()).unwrap(),
        node.apply_in(&Sequential::new(), ones()).unwrap()
    );
    // And it is still a function.
    let mut rng = SampleRng::new(0, 0, 0, adl::exec::NodeId(0));
    assert_eq!(jitter(ones(), &mut rng), node.apply(ones()).unwrap());
}

#[test]
fn a_named_batch_struct_is_the_batch_and_recycles() {
    fn assert_recycles<B: Recycle>(_: &B) {}
    let pipe = training_pipeline();
    let batch: FrameBatch = adl::pipeline::run(&pipe, alike(2)).unwrap();
    assert_recycles(&batch);
    assert_eq!(batch.camera.dim(), (2, 3));
    assert_eq!(batch.radar.len(), 2);
}

/// A generic batch struct, and `batch:` nodes after the merge, which take
/// it.
#[derive(Debug, Clone, PartialEq)]
struct Pair<C, R> {
    camera: C,
    radar: R,
}

#[transform(batch)]
fn total(b: Pair<Array2<f32>, Array1<f32>>) -> f32 {
    b.camera.sum() + b.radar.sum()
}

#[test]
fn a_generic_batch_struct_takes_the_branches_types() {
    let pipe = pipeline! {
        Frame => Pair {
            radar: { collate: default },
            camera: { collate: default },
        },
        batch: |b| b -> total,
    };
    let frames = vec![
        Frame {
            camera: array![1.0, 2.0],
            radar: 3.0,
        };
        2
    ];
    assert_eq!(adl::pipeline::run(&pipe, frames).unwrap(), 12.0);
}

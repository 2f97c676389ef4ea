//! Snapshots of the DOT export (`tests/snapshots/`). To update after a
//! deliberate change: `INSTA_UPDATE=always cargo test -p adl-graph --test
//! dot`, then review the diff of the `.snap` files.

use adl_core::description::Description;
use adl_graph::{DeviceFacts, GraphBuilder, Planner, Settings};

mod common;

use common::{Frame, FrameBatch, Raw, Tensor, batch, collate, sample};

struct Radar;
struct RadarBatch;
struct Lidar;
struct LidarBatch;

fn dot(description: &Description) -> String {
    Planner
        .plan(description)
        .expect("a sound pipeline")
        .to_dot()
}

/// The DOT of `description` scheduled with 2 workers and a GPU.
fn dot_on_gpu(description: &Description) -> String {
    let settings = Settings::default()
        .workers(2)
        .device(DeviceFacts::named("GPU 0"), "the first GPU");
    Planner
        .schedule(description, &settings)
        .expect("a sound pipeline")
        .to_dot()
}

#[test]
fn linear() {
    let description = GraphBuilder::new()
        .sample(sample("decode").typed::<Raw, Frame>())
        .sample(
            sample("flip")
                .typed::<Frame, Frame>()
                .with_doc("Mirror the image left to right."),
        )
        .collate(collate("default").typed::<Frame, FrameBatch>())
        .batch(batch("to_tensor").typed::<FrameBatch, Tensor>())
        .build();
    insta::assert_snapshot!(dot(&description));
}

#[test]
fn pre_and_post() {
    let description = GraphBuilder::new()
        .pre(sample("decode").typed::<Raw, Frame>())
        .sample(sample("flip").typed::<Frame, Frame>())
        .collate(collate("default").typed::<Frame, FrameBatch>())
        .post(batch("to_tensor").typed::<FrameBatch, Tensor>())
        .build();
    insta::assert_snapshot!(dot(&description));
}

#[test]
fn parallel_two_branches() {
    let description = GraphBuilder::parallel()
        .pre(sample("decode"))
        .branch(
            "radar",
            GraphBuilder::new()
                .sample(sample("crop").typed::<Radar, Radar>())
                .collate(collate("default").typed::<Radar, RadarBatch>()),
        )
        .branch(
            "lidar",
            GraphBuilder::new()
                .sample(sample("voxelize").typed::<Lidar, Lidar>())
                .collate(collate("default").typed::<Lidar, LidarBatch>()),
        )
        .post(batch("log"))
        .build();
    insta::assert_snapshot!(dot(&description));
}

#[test]
fn nested_branches() {
    let leaf = |name: &'static str| {
        GraphBuilder::new()
            .sample(sample(name))
            .collate(collate("default"))
            .batch(batch("normalize"))
    };
    let description = GraphBuilder::parallel()
        .branch("imu", leaf("integrate"))
        .branch(
            "camera",
            GraphBuilder::parallel()
                .pre(sample("debayer"))
                .branch("left", leaf("undistort"))
                .branch("right", leaf("undistort")),
        )
        .build();
    insta::assert_snapshot!(dot(&description));
}

#[test]
fn opencl_batch_node() {
    let description = GraphBuilder::new()
        .sample(sample("decode").typed::<Raw, Frame>())
        .collate(collate("default").typed::<Frame, FrameBatch>())
        .batch(batch("to_tensor").typed::<FrameBatch, Tensor>())
        .batch(
            batch("normalize")
                .typed::<Tensor, Tensor>()
                .with_kernel("__kernel void normalize(__global float* x) {}"),
        )
        .build();
    insta::assert_snapshot!(dot_on_gpu(&description));
    // Without a device, the kernel runs its Rust body on the workers.
    let on_cpu = dot(&description);
    assert!(
        on_cpu.contains("normalize\\n[kernel: Rust body]"),
        "{on_cpu}"
    );
    assert!(!on_cpu.contains("cluster_batch_opencl"), "{on_cpu}");
}

/// A broken pipeline can still be drawn (`Planner::draft`): the misplaced
/// node and the mismatched edge are red; names are escaped.
#[test]
fn broken_draft_with_odd_names() {
    let description = GraphBuilder::new()
        .sample(sample("decode").typed::<Raw, Frame>())
        .sample(batch("say \"hi\"\\n").typed::<FrameBatch, Tensor>())
        .collate(collate("default"))
        .build();
    insta::assert_snapshot!(Planner.draft(&description).to_dot());
}

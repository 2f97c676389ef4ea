//! Snapshots of the DOT export (`tests/snapshots/`). To update after a
//! deliberate change: `INSTA_UPDATE=always cargo test -p adl-graph --test
//! dot`, then review the diff of the `.snap` files.

use adl_core::description::Description;
use adl_graph::{DeviceFacts, GraphBuilder, Planner, Settings};

mod common;

use common::{Frame, FrameBatch, Raw, Tensor, batch, collate, sample};

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
    let description = common::linear();
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
    let description = common::two_branches();
    insta::assert_snapshot!(dot(&description));
}

#[test]
fn nested_branches() {
    let description = common::nested_branches();
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

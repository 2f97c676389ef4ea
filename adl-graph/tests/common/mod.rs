//! Helpers shared by the planner's integration tests.

use adl_core::description::{Description, NodeInfo, Stage};
use adl_graph::GraphBuilder;

/// Stand-in sample and batch types: only their names and `TypeId`s matter.
pub(crate) struct Raw;
/// A decoded sample.
pub(crate) struct Frame;
/// A batch of frames.
pub(crate) struct FrameBatch;
/// A tensor on the device.
pub(crate) struct Tensor;

/// A sample node.
pub(crate) fn sample(name: &'static str) -> NodeInfo {
    NodeInfo::new(name, Stage::Sample)
}
/// A collate node.
pub(crate) fn collate(name: &'static str) -> NodeInfo {
    NodeInfo::new(name, Stage::Collate)
}
/// A batch node.
pub(crate) fn batch(name: &'static str) -> NodeInfo {
    NodeInfo::new(name, Stage::Batch)
}

/// A radar sample and its batch, a lidar sample and its batch.
pub(crate) struct Radar;
/// A batch of radar samples.
pub(crate) struct RadarBatch;
/// A lidar sample.
pub(crate) struct Lidar;
/// A batch of lidar samples.
pub(crate) struct LidarBatch;

/// Decode, flip (with a doc), the default collate, to a tensor: the
/// pictures' linear pipeline.
#[allow(dead_code)]
pub(crate) fn linear() -> Description {
    GraphBuilder::new()
        .sample(sample("decode").typed::<Raw, Frame>())
        .sample(
            sample("flip")
                .typed::<Frame, Frame>()
                .with_doc("Mirror the image left to right."),
        )
        .collate(collate("default").typed::<Frame, FrameBatch>())
        .batch(batch("to_tensor").typed::<FrameBatch, Tensor>())
        .build()
}

/// A radar branch and a lidar branch, after a decode and before a log.
#[allow(dead_code)]
pub(crate) fn two_branches() -> Description {
    GraphBuilder::parallel()
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
        .build()
}

/// Branches within a branch: an IMU beside a camera of two sides.
#[allow(dead_code)]
pub(crate) fn nested_branches() -> Description {
    let leaf = |name: &'static str| {
        GraphBuilder::new()
            .sample(sample(name))
            .collate(collate("default"))
            .batch(batch("normalize"))
    };
    GraphBuilder::parallel()
        .branch("imu", leaf("integrate"))
        .branch(
            "camera",
            GraphBuilder::parallel()
                .pre(sample("debayer"))
                .branch("left", leaf("undistort"))
                .branch("right", leaf("undistort")),
        )
        .build()
}

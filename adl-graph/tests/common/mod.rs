//! Helpers shared by the planner's integration tests.

use adl_core::description::{NodeInfo, Stage};

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

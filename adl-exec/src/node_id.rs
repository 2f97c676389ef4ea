//! [`NodeId`]: a node's position in its pipeline, as a launch and the
//! statistics name it.

/// A node's position in its pipeline: its index in the pipeline's
/// description (`adl::description::Description::nodes`), which `pipeline!`
/// passes to every node it wraps in an `adl::exec::Tagged`, and which a
/// [`Launch`](crate::Launch) carries so that its device time is counted
/// on its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index as a `usize`.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

//! The kernel side of a [`Tagged`] node: a tagged kernel node is still a
//! kernel node, its launches and members carrying its id and name. (That
//! it is still a `BlockKernel` is said beside `Tagged`, in adl-core: both
//! that trait and the type are foreign here.)

use super::{BlockInfo, BlockKernel, KernelNode, Lanewise, Launch, Member};
use adl_core::Result;
use adl_core::pipeline::Tagged;

/// A tagged kernel node's launches carry its id and name, so that its
/// device time is counted on it and its errors name it.
impl<T: KernelNode> KernelNode for Tagged<T> {
    type In = T::In;
    type Out = T::Out;

    fn launches(&self) -> Vec<Launch> {
        let mut launches = self.inner().launches();
        for launch in &mut launches {
            launch.id = Some(self.id());
            launch.node = self.label();
        }
        launches
    }

    fn members(&self, into: &mut Vec<Member>) {
        let start = into.len();
        self.inner().members(into);
        for member in &mut into[start..] {
            member.id = Some(self.id());
        }
    }

    fn check(&self, shape: &[usize]) -> Result<()> {
        self.inner().check(shape)
    }

    fn block_kernels<'a>(&'a self, into: &mut Vec<&'a dyn BlockKernel>) -> bool {
        self.inner().block_kernels(into)
    }
}

/// A tagged elementwise node is still elementwise, so that `pipeline!`
/// fuses it with its neighbours into one loop.
impl<T: Lanewise> Lanewise for Tagged<T> {
    type Lane = T::Lane;

    fn lane(&self, block: BlockInfo) -> Option<T::Lane> {
        self.inner().lane(block)
    }

    fn reverses(&self, block: BlockInfo) -> bool {
        self.inner().reverses(block)
    }
}

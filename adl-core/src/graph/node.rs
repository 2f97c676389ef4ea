use std::any::TypeId;
use std::borrow::Cow;

use super::{Device, Stage};

/// A type as the graph knows it: its name (for people) and its `TypeId`
/// (for the planner's type check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypeInfo {
    /// `std::any::type_name` of the type.
    pub name: &'static str,
    /// Its `TypeId`.
    pub id: TypeId,
}

impl TypeInfo {
    /// The [`TypeInfo`] of `T`.
    pub fn of<T: ?Sized + 'static>() -> Self {
        TypeInfo {
            name: std::any::type_name::<T>(),
            id: TypeId::of::<T>(),
        }
    }

    /// The name as a user writes it: without module paths
    /// (`my_crate::frame::Frame` is `Frame`), ndarray arrays by their
    /// aliases (`ArrayBase<OwnedRepr<u8>, Dim<[usize; 3]>, u8>` is
    /// `Array3<u8>`).
    pub fn short_name(&self) -> String {
        super::type_name::short_type_name(self.name)
    }
}

/// What the graph knows about one node: recorded by `#[transform]` (and by
/// `pipeline!` for collates and closures).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeInfo {
    /// The node's name (the function's, or `name = "..."`).
    pub name: Cow<'static, str>,
    /// The stage the node declares.
    pub stage: Stage,
    /// Its input type, where known.
    pub input: Option<TypeInfo>,
    /// Its output type, where known.
    pub output: Option<TypeInfo>,
    /// The OpenCL kernel source of a batch node that has one (for a
    /// built-in kernel, its expression).
    pub kernel: Option<Cow<'static, str>>,
    /// Whether its kernel is elementwise and fuses with its neighbours'
    /// (the built-in kernels; see [`kernel`](crate::kernel)).
    pub fusable: bool,
    /// The node's doc comment.
    pub doc: Cow<'static, str>,
}

impl NodeInfo {
    /// A node called `name` of `stage`, with no types, kernel or doc yet.
    pub fn new(name: impl Into<Cow<'static, str>>, stage: Stage) -> Self {
        NodeInfo {
            name: name.into(),
            stage,
            input: None,
            output: None,
            kernel: None,
            fusable: false,
            doc: Cow::Borrowed(""),
        }
    }

    /// With input type `In` and output type `Out`.
    pub fn typed<In: ?Sized + 'static, Out: ?Sized + 'static>(mut self) -> Self {
        self.input = Some(TypeInfo::of::<In>());
        self.output = Some(TypeInfo::of::<Out>());
        self
    }

    /// With an OpenCL kernel.
    pub fn with_kernel(mut self, source: impl Into<Cow<'static, str>>) -> Self {
        self.kernel = Some(source.into());
        self
    }

    /// Marked as an elementwise kernel that fuses with its neighbours.
    pub fn fusable(mut self) -> Self {
        self.fusable = true;
        self
    }

    /// With a doc comment.
    pub fn with_doc(mut self, doc: impl Into<Cow<'static, str>>) -> Self {
        self.doc = doc.into();
        self
    }

    /// Where the node runs: OpenCL if it has a kernel, else the CPU.
    pub fn device(&self) -> Device {
        if self.kernel.is_some() {
            Device::OpenCl
        } else {
            Device::Cpu
        }
    }
}

/// A pipeline node with its metadata: what `#[transform]` generates, and
/// what `pipeline!` reads to describe the graph.
///
/// ```
/// use adl::graph::{Node, NodeInfo, Stage};
///
/// struct Flip;
/// impl Node for Flip {
///     type Input = Vec<u8>;
///     type Output = Vec<u8>;
///     fn info(&self) -> NodeInfo {
///         NodeInfo::new("flip", Stage::Sample).typed::<Vec<u8>, Vec<u8>>()
///     }
/// }
/// assert_eq!(Flip.info().name, "flip");
/// ```
pub trait Node {
    /// What the node takes.
    type Input;
    /// What it gives.
    type Output;

    /// The node's metadata.
    fn info(&self) -> NodeInfo;
}

/// The metadata of a node value (`pipeline!` calls this on each node).
pub fn info_of<N: Node + ?Sized>(node: &N) -> NodeInfo {
    node.info()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names() {
        assert_eq!(TypeInfo::of::<u8>().short_name(), "u8");
        assert_eq!(
            TypeInfo::of::<ndarray::Array2<f32>>().short_name(),
            "Array2<f32>"
        );
    }
}

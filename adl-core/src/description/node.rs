use std::any::TypeId;
use std::borrow::Cow;

use super::Stage;
use adl_rules::fusion::Fusion;

use adl_exec::ElementType;

/// A type as the graph knows it: its name (for people) and its `TypeId`
/// (for the planner's type check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
/// `pipeline!` for collates and closures). Built with [`NodeInfo::new`]
/// and its `with_` methods.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeInfo {
    /// The node's name (the function's, or `name = "..."`).
    pub name: Cow<'static, str>,
    /// The stage the node declares.
    pub stage: Stage,
    /// Its input type, where known.
    pub input: Option<TypeInfo>,
    /// Its output type, where known.
    pub output: Option<TypeInfo>,
    /// The kernel of a batch node that has one: it runs on an OpenCL
    /// device where the loader has one, else as its Rust body.
    pub kernel: Option<KernelInfo>,
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
            doc: Cow::Borrowed(""),
        }
    }

    /// With input type `In` and output type `Out`.
    pub fn typed<In: ?Sized + 'static, Out: ?Sized + 'static>(mut self) -> Self {
        self.input = Some(TypeInfo::of::<In>());
        self.output = Some(TypeInfo::of::<Out>());
        self
    }

    /// With an OpenCL kernel of its own (a user's: [`Fusion::Own`]).
    pub fn with_kernel(self, source: impl Into<Cow<'static, str>>) -> Self {
        self.with_kernel_info(KernelInfo::new(source, Fusion::Own))
    }

    /// With the kernel `kernel` describes.
    pub fn with_kernel_info(mut self, kernel: KernelInfo) -> Self {
        self.kernel = Some(kernel);
        self
    }

    /// With a doc comment.
    pub fn with_doc(mut self, doc: impl Into<Cow<'static, str>>) -> Self {
        self.doc = doc.into();
        self
    }

    /// How its kernel combines with its neighbours', if it has one.
    pub fn fusion(&self) -> Option<Fusion> {
        self.kernel.as_ref().map(|k| k.fusion)
    }
}

/// What the graph knows of a batch node's kernel: its source, how it
/// combines with its neighbours' kernels, and the element types it reads
/// and writes (a device without `double` cannot run an `f64` kernel).
///
/// ```
/// use adl::description::{KernelInfo, NodeInfo, Stage};
/// use adl::kernel::{ElementType, Fusion};
///
/// let scale = NodeInfo::new("scale", Stage::Batch).with_kernel_info(
///     KernelInfo::new("v * 2.0f", Fusion::Map).elements(ElementType::F32, ElementType::F32),
/// );
/// assert_eq!(scale.fusion(), Some(Fusion::Map));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KernelInfo {
    /// The OpenCL C source of a user's kernel, or a built-in kernel's
    /// expression.
    pub source: Cow<'static, str>,
    /// How it combines with its neighbours' kernels.
    pub fusion: Fusion,
    /// The element types it reads and writes, where known.
    pub elements: Option<(ElementType, ElementType)>,
}

impl KernelInfo {
    /// A kernel of `source` that combines with its neighbours as
    /// `fusion` says, its element types not known.
    pub fn new(source: impl Into<Cow<'static, str>>, fusion: Fusion) -> Self {
        KernelInfo {
            source: source.into(),
            fusion,
            elements: None,
        }
    }

    /// Reading `input` and writing `output` elements.
    pub fn elements(mut self, input: ElementType, output: ElementType) -> Self {
        self.elements = Some((input, output));
        self
    }
}

/// A pipeline node with its metadata: what `#[transform]` generates, and
/// what `pipeline!` reads to describe the graph.
///
/// ```
/// use adl::description::{Node, NodeInfo, Stage};
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

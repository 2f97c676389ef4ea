//! The built-in batch kernels: elementwise nodes with an OpenCL kernel and
//! a Rust body that gives the same bits. Each is generic over the array's
//! dimension `D` (inferred from the node before it).

/// The impls every elementwise built-in kernel node shares, from its
/// name, element types and doc: `KernelNode` (one map launch of its
/// `expr()`, itself as its block form, and its `check_shape`), `Node`,
/// `BatchNode` and `Takes`.
macro_rules! elementwise_node {
    ($ty:ident, $name:literal, $input:ty => $output:ty, $doc:literal) => {
        impl<D> crate::kernel::KernelNode for $ty<D> {
            type In = $input;
            type Out = $output;

            fn launches(&self) -> Vec<crate::kernel::Launch> {
                // SAFETY: `expr()` is arithmetic on `v` and `c` with
                // constants written by `cl_f32` (bit patterns): it reads
                // and writes no memory and ends.
                vec![unsafe {
                    crate::kernel::Launch::map(
                        $name,
                        <$input as crate::kernel::Element>::TYPE,
                        <$output as crate::kernel::Element>::TYPE,
                        self.expr(),
                    )
                }]
            }

            fn members(&self, into: &mut Vec<crate::kernel::Member>) {
                into.push(crate::kernel::Member {
                    id: None,
                    fusion: crate::kernel::Fusion::Map,
                });
            }

            fn check(&self, shape: &[usize]) -> crate::Result<()> {
                self.check_shape(shape)
            }

            fn block_kernels<'a>(
                &'a self,
                into: &mut Vec<&'a dyn crate::kernel::BlockKernel>,
            ) -> bool {
                into.push(self);
                true
            }
        }

        impl<D: ndarray::Dimension + 'static> crate::description::Node for $ty<D> {
            type Input = ndarray::Array<$input, D>;
            type Output = ndarray::Array<$output, D>;

            fn info(&self) -> crate::description::NodeInfo {
                crate::description::NodeInfo::new($name, crate::description::Stage::Batch)
                    .typed::<ndarray::Array<$input, D>, ndarray::Array<$output, D>>()
                    .with_kernel_info(
                        crate::description::KernelInfo::new(self.expr(), crate::kernel::Fusion::Map)
                            .elements(
                                <$input as crate::kernel::Element>::TYPE,
                                <$output as crate::kernel::Element>::TYPE,
                            ),
                    )
                    .with_doc($doc)
            }
        }

        impl<D> crate::description::BatchNode for $ty<D> {
            type Node = Self;
        }
        impl<D: ndarray::Dimension> crate::description::Takes<ndarray::Array<$input, D>> for $ty<D> {}
        impl<D: ndarray::RemoveAxis> crate::description::Takes<crate::collate::Rows<$input, D>>
            for $ty<D>
        {
        }

        /// Rows still in their table: read where they lie by the kernel
        /// (or the fused chain it starts), copied into an array first for
        /// the Rust body alone.
        impl<D: ndarray::RemoveAxis> crate::Transform<crate::collate::Rows<$input, D>> for $ty<D> {
            type Output = ndarray::Array<$output, D>;

            fn apply(
                &self,
                input: crate::collate::Rows<$input, D>,
            ) -> crate::Result<ndarray::Array<$output, D>> {
                crate::Transform::<ndarray::Array<$input, D>>::apply(self, input.to_array()?)
            }

            fn apply_in(
                &self,
                cx: &dyn crate::exec::Context,
                input: crate::collate::Rows<$input, D>,
            ) -> crate::Result<ndarray::Array<$output, D>> {
                crate::kernel::run(self, cx, input, |input| {
                    let array = input.to_array_in(cx.buffers())?;
                    crate::Transform::<ndarray::Array<$input, D>>::apply(self, array)
                })
            }
        }
    };
    (
        $ty:ident, $name:literal, $input:ty => $output:ty, $doc:literal,
        lane($lthis:ident, $lblock:ident) -> $lane:ty $lane_body:block
        $(, otherwise($this:ident, $values:ident, $out:ident, $block:ident) $body:block)?
    ) => {
        elementwise_node!($ty, $name, $input => $output, $doc);

        impl<D> crate::kernel::Lanewise for $ty<D> {
            type Lane = $lane;

            fn lane(&self, block: crate::kernel::BlockInfo) -> Option<$lane> {
                #[inline(always)]
                fn lane_of<D>($lthis: &$ty<D>, $lblock: crate::kernel::BlockInfo) -> Option<$lane> {
                    $lane_body
                }
                lane_of(self, block)
            }
        }

        // SAFETY: with a lane, `run_lane` writes every element of the
        // output (`same_len` checked that it has as many as the input);
        // every `otherwise` body given to this arm writes each element of
        // `$out` once (a loop over `$out` zipped with `$values`) before it
        // returns `Ok`, and writes only values; `run_rows` is
        // `lanewise_rows`, which writes every byte of its output.
        unsafe impl<D> crate::kernel::BlockKernel for $ty<D> {
            fn input(&self) -> crate::kernel::ElementType {
                <$input as crate::kernel::Element>::TYPE
            }

            fn output(&self) -> crate::kernel::ElementType {
                <$output as crate::kernel::Element>::TYPE
            }

            fn run_block(
                &self,
                input: &[u8],
                output: &mut [std::mem::MaybeUninit<u8>],
                block: crate::kernel::BlockInfo,
            ) -> adl_kernel::Result<()> {
                let (values, out) = adl_kernel::same_len(
                    adl_kernel::typed::<$input>(input)?,
                    adl_kernel::typed_mut::<$output>(output)?,
                )?;
                if let Some(lane) = crate::kernel::Lanewise::lane(self, block) {
                    adl_kernel::run_lane(lane, values, out, None);
                    return Ok(());
                }
                $(
                    // The loop is a function inlined into `widest`'s copies
                    // for each vector unit: a closure holding it could be
                    // left out of line (LLVM's choice, by its size) and
                    // compiled for the baseline.
                    #[inline(always)]
                    fn body<D>(
                        $this: &$ty<D>,
                        $values: &[$input],
                        $out: &mut [std::mem::MaybeUninit<$output>],
                        $block: crate::kernel::BlockInfo,
                    ) -> adl_kernel::Result<()> {
                        $body
                    }
                    /// The loop and its arguments, run by `widest`.
                    struct Block<'a, D> {
                        this: &'a $ty<D>,
                        values: &'a [$input],
                        out: &'a mut [std::mem::MaybeUninit<$output>],
                        block: crate::kernel::BlockInfo,
                    }
                    impl<D> adl_kernel::Loop for Block<'_, D> {
                        type Out = adl_kernel::Result<()>;
                        #[inline(always)]
                        fn run(self) -> adl_kernel::Result<()> {
                            body(self.this, self.values, self.out, self.block)
                        }
                    }
                    return adl_kernel::widest(Block {
                        this: self,
                        values,
                        out,
                        block,
                    });
                )?
                #[allow(unreachable_code)]
                Err(adl_kernel::KernelError::internal("kernel::builtin", format_args!("{}: {}", $name, format!("no element-by-element form for a block of {} elements", values.len()))))
            }

            fn run_rows(
                &self,
                blocks: crate::kernel::ScatteredBlocks<'_>,
                output: &mut [std::mem::MaybeUninit<u8>],
                block: crate::kernel::BlockInfo,
            ) -> adl_kernel::Result<()> {
                crate::kernel::lanes::lanewise_rows(self, blocks, output, block)
            }
        }
    };
}

mod affine;
mod clamp;
mod flip;
mod normalize;
mod to_f32;

pub use affine::Affine;
pub use clamp::Clamp;
pub use flip::FlipByFlag;
pub use normalize::Normalize;
pub use to_f32::U8ToF32;

use adl_kernel::{Buffers, Element};
use ndarray::{Array, Dimension};

use crate::{Error, Result};

/// The shape variables of the [kernel ABI](super#the-kernel-abi), for a
/// batch of `shape`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// Elements in the batch.
    pub(crate) n: usize,
    /// Elements per sample.
    pub(crate) per_sample: usize,
    /// The length of axis 1 (1 for fewer axes).
    pub(crate) channels: usize,
    /// Elements per channel of a sample: the product of axes 2.. (1 for
    /// fewer axes).
    pub(crate) inner: usize,
    /// The length of the last axis of a sample (1 for a batch of scalars).
    pub(crate) last: usize,
}

impl Geometry {
    /// The geometry of a batch of `shape`.
    pub(crate) fn of(shape: &[usize]) -> Self {
        let n = shape.iter().product();
        let per_sample = shape.iter().skip(1).product();
        Geometry {
            n,
            per_sample,
            channels: if shape.len() >= 2 { shape[1] } else { 1 },
            inner: shape.iter().skip(2).product(),
            last: if shape.len() >= 2 {
                shape[shape.len() - 1]
            } else {
                1
            },
        }
    }
}

/// The elements of `array` in row-major order, in place when it is already
/// row-major (the usual case after collation).
fn row_major<T: Element, D: Dimension>(array: Array<T, D>) -> Array<T, D> {
    if array.is_standard_layout() {
        array
    } else {
        array.as_standard_layout().into_owned()
    }
}

/// Apply `f` to every element of `array`, in place, in one flat loop the
/// compiler can vectorise.
fn map_in_place<T: Element, D: Dimension>(array: Array<T, D>, f: impl Fn(T) -> T) -> Array<T, D> {
    let mut array = row_major(array);
    // Not through `widest`: a closure called from a function compiled for
    // other target features is not inlined into it, and the loop would run
    // one element at a time.
    if let Some(values) = array.as_slice_mut() {
        for v in values {
            *v = f(*v);
        }
    }
    array
}

/// `f` of every element of `array`, into a new array (its memory from
/// `buffers`), in one flat loop.
fn map_into<T: Element, U: Element, D: Dimension>(
    array: &Array<T, D>,
    node: &str,
    buffers: Buffers<'_>,
    f: impl Fn(T) -> U,
) -> Result<Array<U, D>> {
    let standard = array.as_standard_layout();
    let Some(values) = standard.as_slice() else {
        return Err(Error::internal(
            "kernel::builtin",
            format_args!(
                "{}: {}",
                node, "a row-major copy of the batch is not contiguous"
            ),
        ));
    };
    let mut out: Vec<U> = buffers.take(values.len());
    out.extend(values.iter().map(|&v| f(v)));
    Array::from_shape_vec(array.raw_dim(), out)
        .map_err(|e| Error::internal("kernel::builtin", format_args!("{}: {}", node, e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_of_common_shapes() {
        let g = Geometry::of(&[2, 3, 4, 5]);
        assert_eq!(
            (g.n, g.per_sample, g.channels, g.inner, g.last),
            (120, 60, 3, 20, 5)
        );
        let g = Geometry::of(&[7, 64]);
        assert_eq!(
            (g.n, g.per_sample, g.channels, g.inner, g.last),
            (448, 64, 64, 1, 64)
        );
        let g = Geometry::of(&[9]);
        assert_eq!(
            (g.n, g.per_sample, g.channels, g.inner, g.last),
            (9, 1, 1, 1, 1)
        );
    }
}

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

            fn check(&self, shape: &[usize]) -> adl_core::Result<()> {
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

        impl<D: ndarray::Dimension + 'static> adl_core::description::Node for $ty<D> {
            type Input = ndarray::Array<$input, D>;
            type Output = ndarray::Array<$output, D>;

            fn info(&self) -> adl_core::description::NodeInfo {
                adl_core::description::NodeInfo::new($name, adl_core::description::Stage::Batch)
                    .typed::<ndarray::Array<$input, D>, ndarray::Array<$output, D>>()
                    .with_kernel_info(
                        adl_core::description::KernelInfo::new(self.expr(), crate::kernel::Fusion::Map)
                            .elements(
                                <$input as crate::kernel::Element>::TYPE,
                                <$output as crate::kernel::Element>::TYPE,
                            ),
                    )
                    .with_doc($doc)
            }
        }

        impl<D> adl_core::description::BatchNode for $ty<D> {
            type Node = Self;
        }
        impl<D: ndarray::Dimension> adl_core::description::Takes<ndarray::Array<$input, D>> for $ty<D> {}
        impl<D: ndarray::RemoveAxis> adl_core::description::Takes<adl_core::collate::Rows<$input, D>>
            for $ty<D>
        {
        }

        /// Rows still in their table: read where they lie by the kernel
        /// (or the fused chain it starts), copied into an array first for
        /// the Rust body alone.
        impl<D: ndarray::RemoveAxis> adl_core::Transform<adl_core::collate::Rows<$input, D>> for $ty<D> {
            type Output = ndarray::Array<$output, D>;

            fn apply(
                &self,
                input: adl_core::collate::Rows<$input, D>,
            ) -> adl_core::Result<ndarray::Array<$output, D>> {
                adl_core::Transform::<ndarray::Array<$input, D>>::apply(self, input.to_array()?)
            }

            fn apply_in(
                &self,
                cx: &dyn adl_exec::Context,
                input: adl_core::collate::Rows<$input, D>,
            ) -> adl_core::Result<ndarray::Array<$output, D>> {
                crate::kernel::run(self, cx, input, |input| {
                    let array = input.to_array_in(cx.buffers())?;
                    adl_core::Transform::<ndarray::Array<$input, D>>::apply(self, array)
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
            ) -> adl_exec::Result<()> {
                let (values, out) = adl_exec::same_len(
                    adl_exec::typed::<$input>(input)?,
                    adl_exec::typed_mut::<$output>(output)?,
                )?;
                if let Some(lane) = crate::kernel::Lanewise::lane(self, block) {
                    adl_exec::run_lane(lane, values, out, None);
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
                    ) -> adl_exec::Result<()> {
                        $body
                    }
                    /// The loop and its arguments, run by `widest`.
                    struct Block<'a, D> {
                        this: &'a $ty<D>,
                        values: &'a [$input],
                        out: &'a mut [std::mem::MaybeUninit<$output>],
                        block: crate::kernel::BlockInfo,
                    }
                    impl<D> adl_exec::Loop for Block<'_, D> {
                        type Out = adl_exec::Result<()>;
                        #[inline(always)]
                        fn run(self) -> adl_exec::Result<()> {
                            body(self.this, self.values, self.out, self.block)
                        }
                    }
                    return adl_exec::widest(Block {
                        this: self,
                        values,
                        out,
                        block,
                    });
                )?
                #[allow(unreachable_code)]
                Err(adl_exec::KernelError::internal("kernel::builtin", format_args!("{}: {}", $name, format!("no element-by-element form for a block of {} elements", values.len()))))
            }

            fn run_rows(
                &self,
                blocks: crate::kernel::ScatteredBlocks<'_>,
                output: &mut [std::mem::MaybeUninit<u8>],
                block: crate::kernel::BlockInfo,
            ) -> adl_exec::Result<()> {
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

use adl_exec::{Buffers, Element};
use ndarray::{Array, Dimension};

use adl_core::{Error, Result};

pub(crate) use adl_exec::Geometry;

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

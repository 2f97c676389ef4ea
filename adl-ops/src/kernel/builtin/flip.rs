use std::marker::PhantomData;

use adl_exec::{
    BlockInfo, BlockKernel, Element, ElementType, Same, ScatteredBlocks, same_len, typed, typed_mut,
};
use ndarray::{Array, Array1, Dimension, RemoveAxis};

use adl_core::collate::Rows;

use adl_core::description::{BatchNode, Node, NodeInfo, Stage, Takes};
use adl_exec::Context;
use std::mem::MaybeUninit;

use crate::kernel::Launch;
use crate::kernel::lanes::{Lanewise, lanewise_rows};
use crate::kernel::node::{KernelNode, run};
use adl_core::{Error, Result, Transform};

/// Horizontal flip by a per-sample flag, as a batch kernel: the last axis
/// of every sample whose flag is set is reversed (`out[..., w] =
/// in[..., W - 1 - w]`). It takes the batch with its flags, `(Array<T, D>,
/// Array1<bool>)`, and gives the batch.
///
/// ```
/// use adl::{Transform, kernel::FlipByFlag};
/// use ndarray::array;
///
/// let flip = FlipByFlag::new();
/// let out = flip.apply((array![[1u8, 2, 3], [4, 5, 6]], array![true, false]))?;
/// assert_eq!(out, array![[3u8, 2, 1], [4, 5, 6]]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct FlipByFlag<T = f32, D = ndarray::Ix4> {
    types: PhantomData<fn() -> (T, D)>,
}

impl<T, D> Clone for FlipByFlag<T, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, D> Copy for FlipByFlag<T, D> {}

impl<T, D> Default for FlipByFlag<T, D> {
    fn default() -> Self {
        FlipByFlag { types: PhantomData }
    }
}

impl<T, D> FlipByFlag<T, D> {
    /// The flip.
    pub fn new() -> Self {
        Self::default()
    }
}

const INDEX: &str = "(flags[sample] ? i - w + (last - 1 - w) : i)";

impl<T: Element, D: Dimension> Transform<(Array<T, D>, Array1<bool>)> for FlipByFlag<T, D> {
    type Output = Array<T, D>;

    fn apply(&self, (array, flags): (Array<T, D>, Array1<bool>)) -> Result<Array<T, D>> {
        let batch = array.shape().first().copied().unwrap_or(0);
        if array.ndim() == 0 || flags.len() != batch {
            return Err(Error::invalid(
                "flip_by_flag",
                format!(
                    "{} flags for a batch of shape {:?}: one flag per sample is needed",
                    flags.len(),
                    array.shape()
                ),
            ));
        }
        let mut array = super::row_major(array);
        let g = super::Geometry::of(array.shape());
        if let Some(values) = array.as_slice_mut()
            && g.per_sample > 0
        {
            for (sample, &flag) in values.chunks_mut(g.per_sample).zip(&flags) {
                if flag {
                    for row in sample.chunks_mut(g.last.max(1)) {
                        row.reverse();
                    }
                }
            }
        }
        Ok(array)
    }

    fn apply_in(
        &self,
        cx: &dyn Context,
        input: (Array<T, D>, Array1<bool>),
    ) -> Result<Array<T, D>> {
        run(self, cx, input, |input| self.apply(input))
    }
}

/// Rows still in their table, with their flags: read where they lie by the
/// kernel (or the fused chain it starts), copied into an array first for
/// the Rust body alone.
impl<T: Element, D: RemoveAxis> Transform<(Rows<T, D>, Array1<bool>)> for FlipByFlag<T, D> {
    type Output = Array<T, D>;

    fn apply(&self, (rows, flags): (Rows<T, D>, Array1<bool>)) -> Result<Array<T, D>> {
        self.apply((rows.to_array()?, flags))
    }

    fn apply_in(&self, cx: &dyn Context, input: (Rows<T, D>, Array1<bool>)) -> Result<Array<T, D>> {
        run(self, cx, input, |(rows, flags)| {
            self.apply((rows.to_array_in(cx.buffers())?, flags))
        })
    }
}

impl<T: Element, D> KernelNode for FlipByFlag<T, D> {
    type In = T;
    type Out = T;

    fn launches(&self) -> Vec<Launch> {
        // SAFETY: `INDEX` is `i` itself or its mirror within its row
        // (`i - w + (last - 1 - w)`, with `0 <= w < last`): an element of
        // the same sample; it reads `flags[sample]` alone.
        vec![unsafe { Launch::gather("flip_by_flag", T::TYPE, INDEX) }]
    }

    fn members(&self, into: &mut Vec<crate::kernel::Member>) {
        into.push(crate::kernel::Member {
            id: None,
            fusion: crate::kernel::Fusion::Gather,
        });
    }

    fn block_kernels<'a>(&'a self, into: &mut Vec<&'a dyn BlockKernel>) -> bool {
        into.push(self);
        true
    }
}

/// A flip only moves elements: it fuses into the loop of the elementwise
/// nodes around it, which read each flagged row from its end.
impl<T: Element, D> Lanewise for FlipByFlag<T, D> {
    type Lane = Same<T>;

    fn lane(&self, _block: BlockInfo) -> Option<Same<T>> {
        Some(Same::new())
    }

    fn reverses(&self, block: BlockInfo) -> bool {
        block.flag && block.last > 1
    }
}

impl<T: Element, D: Dimension + 'static> Node for FlipByFlag<T, D> {
    type Input = (Array<T, D>, Array1<bool>);
    type Output = Array<T, D>;

    fn info(&self) -> NodeInfo {
        NodeInfo::new("flip_by_flag", Stage::Batch)
            .typed::<(Array<T, D>, Array1<bool>), Array<T, D>>()
            .with_kernel_info(
                adl_core::description::KernelInfo::new(
                    format!("in[{INDEX}]"),
                    crate::kernel::Fusion::Gather,
                )
                .elements(T::TYPE, T::TYPE),
            )
            .with_doc("Horizontal flip by a per-sample flag (built-in kernel).")
    }
}

impl<T, D> BatchNode for FlipByFlag<T, D> {
    type Node = Self;
}
impl<T: Element, D: Dimension> Takes<(Array<T, D>, Array1<bool>)> for FlipByFlag<T, D> {}
impl<T: Element, D: RemoveAxis> Takes<(Rows<T, D>, Array1<bool>)> for FlipByFlag<T, D> {}

// SAFETY: `run_block` writes every output element: the loops below cover
// the whole output (`same_len` checks that input and output have as many
// elements); so does `run_rows` (see `lanewise_rows`).
unsafe impl<T: Element, D> BlockKernel for FlipByFlag<T, D> {
    fn input(&self) -> ElementType {
        T::TYPE
    }

    fn output(&self) -> ElementType {
        T::TYPE
    }

    fn run_block(
        &self,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
        block: BlockInfo,
    ) -> adl_exec::Result<()> {
        let (input, output) = same_len(typed::<T>(input)?, typed_mut::<T>(output)?)?;
        if !block.flag || block.last <= 1 {
            for (o, v) in output.iter_mut().zip(input) {
                o.write(*v);
            }
            return Ok(());
        }
        for (o, i) in output.chunks_mut(block.last).zip(input.chunks(block.last)) {
            for (o, v) in o.iter_mut().zip(i.iter().rev()) {
                o.write(*v);
            }
        }
        Ok(())
    }

    fn run_rows(
        &self,
        blocks: ScatteredBlocks<'_>,
        output: &mut [MaybeUninit<u8>],
        block: BlockInfo,
    ) -> adl_exec::Result<()> {
        lanewise_rows(self, blocks, output, block)
    }
}

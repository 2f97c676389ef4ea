//! [`Launch`]: one kernel of a batch node, as data an accelerator (adl's
//! `adl::kernel::Accelerator`, the OpenCL executor) compiles and runs.

use std::borrow::Cow;

use adl_rules::fusion::Fusion;

use crate::element::ElementType;
use crate::node_id::NodeId;

/// What a launch computes, for every element `i` of the batch (its flat,
/// row-major index).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Op {
    /// `out[i] = expr`, an OpenCL C expression of `v` (the input element)
    /// and `c` (its index along axis 1, the channel; 0 for a batch of
    /// scalars). Consecutive maps fuse into one kernel.
    Map {
        /// The expression.
        expr: String,
    },
    /// `out[i] = in[index]`, an OpenCL C expression of `i` (the element's
    /// flat index), `w` (its index along the last axis), `last` (that
    /// axis's length), `sample` (its sample) and `flags` (one `uchar` per
    /// sample): a permutation inside each sample (a flip). It fuses as the
    /// first step of a kernel.
    Gather {
        /// The source index.
        index: String,
    },
    /// A whole kernel of the user's (`#[transform(batch, unsafe(opencl = ...))]`),
    /// with the kernel ABI (in `adl::kernel`'s docs). It is not fused; its
    /// neighbours' data stays on the device.
    Custom {
        /// The OpenCL C source.
        source: Cow<'static, str>,
        /// The `__kernel` function to run.
        entry: Cow<'static, str>,
        /// The node's own arguments, after the ABI's.
        args: Vec<KernelArg>,
    },
}

/// One kernel of a batch node: what it computes, on which element types,
/// for which node.
///
/// A launch is OpenCL C that an accelerator (`adl::kernel::Accelerator`) runs
/// in this process's memory where the device is the CPU, with nothing to
/// check what it reads or writes: its constructors are `unsafe`, and its
/// element types and work are read-only once made, so that a launch is
/// always one whose maker vouched for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// The node's name (for errors and the build log).
    pub node: Cow<'static, str>,
    /// The node's id in its pipeline, where `pipeline!` tagged it (for the
    /// statistics).
    pub id: Option<NodeId>,
    /// The element type read.
    input: ElementType,
    /// The element type written.
    output: ElementType,
    /// What it computes.
    op: Op,
}

impl Launch {
    /// An elementwise launch (see [`Op::Map`]).
    ///
    /// # Safety
    ///
    /// `expr` is an OpenCL C expression of `v` (an `input` element) and `c`
    /// (its channel) alone, with a value of the `output` type: it reads and
    /// writes no memory, and it neither loops forever nor calls functions
    /// that do. The device runs it unchecked, in this process's memory on
    /// a CPU device.
    pub unsafe fn map(
        node: impl Into<Cow<'static, str>>,
        input: ElementType,
        output: ElementType,
        expr: impl Into<String>,
    ) -> Self {
        Launch {
            node: node.into(),
            id: None,
            input,
            output,
            op: Op::Map { expr: expr.into() },
        }
    }

    /// A gathering launch (see [`Op::Gather`]); input and output types are
    /// the same.
    ///
    /// # Safety
    ///
    /// `index` is an OpenCL C expression of `i`, `w`, `last`, `sample` and
    /// `flags` whose value is an element of the same sample (from
    /// `i - w` to `i - w + last - 1` where `last` is the last axis), and it
    /// reads and writes no memory besides `flags[sample]`. The device reads
    /// the input at that index unchecked.
    pub unsafe fn gather(
        node: impl Into<Cow<'static, str>>,
        element: ElementType,
        index: impl Into<String>,
    ) -> Self {
        Launch {
            node: node.into(),
            id: None,
            input: element,
            output: element,
            op: Op::Gather {
                index: index.into(),
            },
        }
    }

    /// A user's kernel (see [`Op::Custom`]).
    ///
    /// # Safety
    ///
    /// `source` defines `__kernel void <entry>(...)` with the
    /// kernel ABI's arguments (in `adl::kernel`'s docs) followed by
    /// `args`, in that order and of those types, and the kernel reads and
    /// writes only within the buffers it is given (the input's and
    /// output's `n` elements, one flag per sample, each array argument's
    /// own length), and ends. The device runs it unchecked, in
    /// this process's memory on a CPU device.
    pub unsafe fn custom(
        node: impl Into<Cow<'static, str>>,
        input: ElementType,
        output: ElementType,
        source: impl Into<Cow<'static, str>>,
        entry: impl Into<Cow<'static, str>>,
        args: Vec<KernelArg>,
    ) -> Self {
        Launch {
            node: node.into(),
            id: None,
            input,
            output,
            op: Op::Custom {
                source: source.into(),
                entry: entry.into(),
                args,
            },
        }
    }

    /// The element type read.
    #[inline]
    pub fn input(&self) -> ElementType {
        self.input
    }

    /// The element type written.
    #[inline]
    pub fn output(&self) -> ElementType {
        self.output
    }

    /// What it computes.
    #[inline]
    pub fn op(&self) -> &Op {
        &self.op
    }

    /// How it combines with its neighbours' launches (see
    /// [`Fusion`] and [`groups`](adl_rules::fusion::groups)).
    #[inline]
    pub fn fusion(&self) -> Fusion {
        match self.op {
            Op::Map { .. } => Fusion::Map,
            Op::Gather { .. } => Fusion::Gather,
            Op::Custom { .. } => Fusion::Own,
        }
    }
}

/// A node's own argument to its kernel, after the ABI's: a scalar, or an
/// array passed as a `__global const` pointer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum KernelArg {
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// `int`.
    I32(i32),
    /// `uint`.
    U32(u32),
    /// `long`.
    I64(i64),
    /// `ulong`.
    U64(u64),
    /// `__global const float*`.
    F32s(Vec<f32>),
    /// `__global const int*`.
    I32s(Vec<i32>),
    /// `__global const uint*`.
    U32s(Vec<u32>),
}

macro_rules! kernel_scalar_from {
    ($($t:ty => $v:ident);*) => {$(
        impl From<$t> for KernelArg {
            fn from(x: $t) -> Self { KernelArg::$v(x) }
        }
        impl From<&$t> for KernelArg {
            fn from(x: &$t) -> Self { KernelArg::$v(*x) }
        }
    )*};
}
kernel_scalar_from!(f64 => F64; i64 => I64; u64 => U64);

macro_rules! kernel_arg_from {
    ($($t:ty => $v:ident, $vs:ident);*) => {$(
        kernel_scalar_from!($t => $v);
        impl From<Vec<$t>> for KernelArg {
            fn from(x: Vec<$t>) -> Self { KernelArg::$vs(x) }
        }
        impl From<&Vec<$t>> for KernelArg {
            fn from(x: &Vec<$t>) -> Self { KernelArg::$vs(x.clone()) }
        }
        impl From<&[$t]> for KernelArg {
            fn from(x: &[$t]) -> Self { KernelArg::$vs(x.to_vec()) }
        }
        impl<const N: usize> From<[$t; N]> for KernelArg {
            fn from(x: [$t; N]) -> Self { KernelArg::$vs(x.to_vec()) }
        }
        impl<const N: usize> From<&[$t; N]> for KernelArg {
            fn from(x: &[$t; N]) -> Self { KernelArg::$vs(x.to_vec()) }
        }
    )*};
}
kernel_arg_from!(f32 => F32, F32s; i32 => I32, I32s; u32 => U32, U32s);

/// `x` as an exact OpenCL C expression (`as_float(0x3ef851ecu)`): the same
/// bits on every compiler, with no decimal parsing in between.
pub fn cl_f32(x: f32) -> String {
    format!("as_float(0x{:08x}u)", x.to_bits())
}

/// `values[c]` as an exact OpenCL C expression of `c`: a chain of
/// selections (`values.len()` is small: channels).
pub fn cl_f32_by_channel(values: &[f32]) -> String {
    match values {
        [] => "0.0f".to_owned(),
        [one] => cl_f32(*one),
        [rest @ .., last] => {
            let mut expr = cl_f32(*last);
            for (c, v) in rest.iter().enumerate().rev() {
                expr = format!("(c == {c}ul ? {} : {expr})", cl_f32(*v));
            }
            expr
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_bit_exact() {
        assert_eq!(cl_f32(0.485), "as_float(0x3ef851ecu)");
        assert_eq!(
            cl_f32_by_channel(&[1.0, 2.0, 3.0]),
            "(c == 0ul ? as_float(0x3f800000u) : (c == 1ul ? as_float(0x40000000u) : as_float(0x40400000u)))"
        );
    }
}

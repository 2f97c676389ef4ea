use std::marker::PhantomData;

use adl_exec::Buffers;
use ndarray::{Array, Dimension};

use adl_exec::Context;

use crate::kernel::cl_f32;
use crate::kernel::node::run;
use adl_core::{Result, Transform};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Scale {
    Divide(f32),
    Multiply(f32),
}

/// Bytes to floats with a scale, as a batch kernel: `f32(v) / d`
/// ([`divide`](U8ToF32::divide), as torchvision's `ToTensor` does with 255)
/// or `f32(v) * s` ([`multiply`](U8ToF32::multiply)). The two differ in the
/// last bit for some values: pick the one your reference uses.
///
/// ```
/// use adl::{Transform, kernel::U8ToF32};
/// use ndarray::array;
///
/// let to_unit = U8ToF32::divide(255.0);
/// let out = to_unit.apply(array![[0u8, 51, 255]])?;
/// assert_eq!(out, array![[0.0f32, 0.2, 1.0]]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct U8ToF32<D = ndarray::Ix4> {
    scale: Scale,
    dim: PhantomData<fn() -> D>,
}

impl<D> Clone for U8ToF32<D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D> Copy for U8ToF32<D> {}

impl<D> U8ToF32<D> {
    /// `f32(v) / divisor`.
    pub fn divide(divisor: f32) -> Self {
        U8ToF32 {
            scale: Scale::Divide(divisor),
            dim: PhantomData,
        }
    }

    /// `f32(v) * factor`.
    pub fn multiply(factor: f32) -> Self {
        U8ToF32 {
            scale: Scale::Multiply(factor),
            dim: PhantomData,
        }
    }

    /// The floats of `input`, their memory from `buffers`.
    fn convert<E: Dimension>(
        &self,
        input: &Array<u8, E>,
        buffers: Buffers<'_>,
    ) -> Result<Array<f32, E>> {
        match self.scale {
            Scale::Divide(d) => super::map_into(input, "u8_to_f32", buffers, |v| f32::from(v) / d),
            Scale::Multiply(s) => {
                super::map_into(input, "u8_to_f32", buffers, |v| f32::from(v) * s)
            }
        }
    }

    /// Any shape will do.
    fn check_shape(&self, _shape: &[usize]) -> Result<()> {
        Ok(())
    }

    fn expr(&self) -> String {
        match self.scale {
            Scale::Divide(d) => format!("(float)v / {}", cl_f32(d)),
            Scale::Multiply(s) => format!("(float)v * {}", cl_f32(s)),
        }
    }
}

impl<D: Dimension> Transform<Array<u8, D>> for U8ToF32<D> {
    type Output = Array<f32, D>;

    fn apply(&self, input: Array<u8, D>) -> Result<Array<f32, D>> {
        self.convert(&input, Buffers::none())
    }

    /// The floats' memory comes from the context's pool.
    fn apply_in(&self, cx: &dyn Context, input: Array<u8, D>) -> Result<Array<f32, D>> {
        run(self, cx, input, |input| self.convert(&input, cx.buffers()))
    }
}

elementwise_node!(
    U8ToF32,
    "u8_to_f32",
    u8 => f32,
    "Bytes to floats with a scale (built-in kernel).",
    lane(this, _block) -> ToF32Lane {
        Some(match this.scale {
            Scale::Divide(d) => ToF32Lane { scale: d, divide: true },
            Scale::Multiply(s) => ToF32Lane { scale: s, divide: false },
        })
    }
);

/// [`U8ToF32`]'s work on one element (see [`Lanewise`](crate::kernel::Lanewise)).
#[derive(Debug, Clone, Copy)]
pub struct ToF32Lane {
    scale: f32,
    divide: bool,
}

impl crate::kernel::Lane for ToF32Lane {
    type In = u8;
    type Out = f32;

    #[inline(always)]
    fn apply(self, v: u8) -> f32 {
        if self.divide {
            f32::from(v) / self.scale
        } else {
            f32::from(v) * self.scale
        }
    }
}

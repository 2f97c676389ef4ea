use std::marker::PhantomData;

use ndarray::{Array, Dimension};

use adl_exec::Context;

use crate::kernel::cl_f32;
use crate::kernel::node::run;
use adl_core::{Result, Transform};

/// An affine map, as a batch kernel: `v * scale + offset`, multiply then
/// add, each rounded (never fused into one multiply-add).
///
/// ```
/// use adl::{Transform, kernel::Affine};
/// use ndarray::array;
///
/// let out = Affine::new(2.0, -1.0).apply(array![[0.0f32, 0.5, 1.0]])?;
/// assert_eq!(out, array![[-1.0f32, 0.0, 1.0]]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct Affine<D = ndarray::Ix4> {
    scale: f32,
    offset: f32,
    dim: PhantomData<fn() -> D>,
}

impl<D> Clone for Affine<D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D> Copy for Affine<D> {}

impl<D> Affine<D> {
    /// `v * scale + offset`.
    pub fn new(scale: f32, offset: f32) -> Self {
        Affine {
            scale,
            offset,
            dim: PhantomData,
        }
    }

    /// Any shape will do.
    fn check_shape(&self, _shape: &[usize]) -> Result<()> {
        Ok(())
    }

    fn expr(&self) -> String {
        format!("v * {} + {}", cl_f32(self.scale), cl_f32(self.offset))
    }
}

impl<D: Dimension> Transform<Array<f32, D>> for Affine<D> {
    type Output = Array<f32, D>;

    fn apply(&self, input: Array<f32, D>) -> Result<Array<f32, D>> {
        let (scale, offset) = (self.scale, self.offset);
        Ok(super::map_in_place(input, |v| v * scale + offset))
    }

    fn apply_in(&self, cx: &dyn Context, input: Array<f32, D>) -> Result<Array<f32, D>> {
        run(self, cx, input, |input| self.apply(input))
    }
}

elementwise_node!(
    Affine,
    "affine",
    f32 => f32,
    "An affine map, v * scale + offset (built-in kernel).",
    lane(this, _block) -> AffineLane {
        Some(AffineLane {
            scale: this.scale,
            offset: this.offset,
        })
    }
);

/// [`Affine`]'s work on one element (see [`Lanewise`](crate::kernel::Lanewise)).
#[derive(Debug, Clone, Copy)]
pub struct AffineLane {
    scale: f32,
    offset: f32,
}

impl crate::kernel::Lane for AffineLane {
    type In = f32;
    type Out = f32;

    #[inline(always)]
    fn apply(self, v: f32) -> f32 {
        v * self.scale + self.offset
    }
}

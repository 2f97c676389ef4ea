use std::marker::PhantomData;

use ndarray::{Array, Dimension};

use adl_exec::Context;

use crate::kernel::cl_f32;
use crate::kernel::node::run;
use adl_core::{Result, Transform};

/// Clamp to `[low, high]`, as a batch kernel: `v < low ? low : (v > high ?
/// high : v)` (a NaN stays NaN).
///
/// ```
/// use adl::{Transform, kernel::Clamp};
/// use ndarray::array;
///
/// let out = Clamp::new(0.0, 1.0).apply(array![[-0.5f32, 0.25, 3.0]])?;
/// assert_eq!(out, array![[0.0f32, 0.25, 1.0]]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct Clamp<D = ndarray::Ix4> {
    low: f32,
    high: f32,
    dim: PhantomData<fn() -> D>,
}

impl<D> Clone for Clamp<D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D> Copy for Clamp<D> {}

impl<D> Clamp<D> {
    /// Clamp to `[low, high]`.
    pub fn new(low: f32, high: f32) -> Self {
        Clamp {
            low,
            high,
            dim: PhantomData,
        }
    }

    /// Any shape will do.
    fn check_shape(&self, _shape: &[usize]) -> Result<()> {
        Ok(())
    }

    fn expr(&self) -> String {
        let (low, high) = (cl_f32(self.low), cl_f32(self.high));
        format!("(v < {low} ? {low} : (v > {high} ? {high} : v))")
    }
}

impl<D: Dimension> Transform<Array<f32, D>> for Clamp<D> {
    type Output = Array<f32, D>;

    fn apply(&self, input: Array<f32, D>) -> Result<Array<f32, D>> {
        let (low, high) = (self.low, self.high);
        Ok(super::map_in_place(input, |v| {
            if v < low {
                low
            } else if v > high {
                high
            } else {
                v
            }
        }))
    }

    fn apply_in(&self, cx: &dyn Context, input: Array<f32, D>) -> Result<Array<f32, D>> {
        run(self, cx, input, |input| self.apply(input))
    }
}

elementwise_node!(
    Clamp,
    "clamp",
    f32 => f32,
    "Clamp to a range (built-in kernel).",
    lane(this, _block) -> ClampLane {
        Some(ClampLane {
            low: this.low,
            high: this.high,
        })
    }
);

/// [`Clamp`]'s work on one element (see [`Lanewise`](crate::kernel::Lanewise)).
#[derive(Debug, Clone, Copy)]
pub struct ClampLane {
    low: f32,
    high: f32,
}

impl crate::kernel::Lane for ClampLane {
    type In = f32;
    type Out = f32;

    #[inline(always)]
    fn apply(self, v: f32) -> f32 {
        if v < self.low {
            self.low
        } else if v > self.high {
            self.high
        } else {
            v
        }
    }
}

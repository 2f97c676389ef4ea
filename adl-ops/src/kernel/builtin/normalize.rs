use std::marker::PhantomData;
use std::sync::Arc;

use ndarray::{Array, Dimension};

use adl_exec::Context;

use crate::kernel::cl_f32_by_channel;
use crate::kernel::node::run;
use adl_core::{Error, Result, Transform};

/// Per-channel normalisation, as a batch kernel: `(v - mean[c]) / std[c]`,
/// subtract then divide, `c` the index along axis 1 (`[batch, channel,
/// ...]`). One mean and std for all channels is given as one value each.
///
/// ```
/// use adl::{Transform, kernel::Normalize};
/// use ndarray::array;
///
/// let normalize = Normalize::per_channel([1.0, 10.0], [2.0, 5.0]);
/// let out = normalize.apply(array![[3.0f32, 20.0], [1.0, 0.0]])?;
/// assert_eq!(out, array![[1.0f32, 2.0], [0.0, -2.0]]);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug)]
pub struct Normalize<D = ndarray::Ix4> {
    mean: Arc<[f32]>,
    std: Arc<[f32]>,
    dim: PhantomData<fn() -> D>,
}

impl<D> Clone for Normalize<D> {
    fn clone(&self) -> Self {
        Normalize {
            mean: Arc::clone(&self.mean),
            std: Arc::clone(&self.std),
            dim: PhantomData,
        }
    }
}

impl<D> Normalize<D> {
    /// With one mean and one std per channel (or one of each for all).
    pub fn per_channel(mean: impl Into<Vec<f32>>, std: impl Into<Vec<f32>>) -> Self {
        Normalize {
            mean: mean.into().into(),
            std: std.into().into(),
            dim: PhantomData,
        }
    }

    /// The means.
    pub fn mean(&self) -> &[f32] {
        &self.mean
    }

    /// The standard deviations.
    pub fn std(&self) -> &[f32] {
        &self.std
    }

    fn expr(&self) -> String {
        format!(
            "(v - {}) / {}",
            cl_f32_by_channel(&self.mean),
            cl_f32_by_channel(&self.std)
        )
    }

    fn check_shape(&self, shape: &[usize]) -> Result<()> {
        if self.mean.len() != self.std.len() || self.mean.is_empty() {
            return Err(Error::invalid(
                "normalize",
                format!(
                    "{} means and {} stds; give one of each per channel",
                    self.mean.len(),
                    self.std.len()
                ),
            ));
        }
        let channels = super::Geometry::of(shape).channels;
        if self.mean.len() != 1 && self.mean.len() != channels {
            return Err(Error::invalid(
                "normalize",
                format!(
                    "{} means for a batch of shape {shape:?} with {channels} channels (axis 1)",
                    self.mean.len()
                ),
            ));
        }
        Ok(())
    }
}

impl<D: Dimension> Transform<Array<f32, D>> for Normalize<D> {
    type Output = Array<f32, D>;

    fn apply(&self, input: Array<f32, D>) -> Result<Array<f32, D>> {
        self.check_shape(input.shape())?;
        if let ([m], [s]) = (&*self.mean, &*self.std) {
            let (m, s) = (*m, *s);
            return Ok(super::map_in_place(input, |v| (v - m) / s));
        }
        let mut array = super::row_major(input);
        let g = super::Geometry::of(array.shape());
        let rank = array.ndim();
        if let Some(values) = array.as_slice_mut() {
            adl_exec::widest(InPlace {
                mean: &self.mean,
                std: &self.std,
                values,
                rank,
                g,
            });
        }
        Ok(array)
    }

    fn apply_in(&self, cx: &dyn Context, input: Array<f32, D>) -> Result<Array<f32, D>> {
        run(self, cx, input, |input| self.apply(input))
    }
}

/// The per-channel loop of [`Normalize`]'s Rust body, over a whole
/// row-major batch in place (a `Loop`, compiled for the
/// widest vector unit).
struct InPlace<'a> {
    mean: &'a [f32],
    std: &'a [f32],
    values: &'a mut [f32],
    rank: usize,
    g: super::Geometry,
}

impl adl_exec::Loop for InPlace<'_> {
    type Out = ();

    #[inline(always)]
    fn run(self) {
        let InPlace {
            mean,
            std,
            values,
            rank,
            g,
        } = self;
        if rank == 2 {
            // [batch, features]: the channel is the feature.
            for row in values.chunks_mut(g.channels.max(1)) {
                for ((v, m), s) in row.iter_mut().zip(mean).zip(std) {
                    *v = (*v - m) / s;
                }
            }
        } else {
            for (k, plane) in values.chunks_mut(g.inner.max(1)).enumerate() {
                let c = k % g.channels.max(1);
                let (m, s) = (mean[c], std[c]);
                for v in plane {
                    *v = (*v - m) / s;
                }
            }
        }
    }
}

elementwise_node!(
    Normalize,
    "normalize",
    f32 => f32,
    "Per-channel normalisation (built-in kernel).",
    lane(this, block) -> NormalizeLane {
        let at = |v: &[f32], c: usize| v.get(if v.len() == 1 { 0 } else { c % v.len().max(1) }).copied();
        if block.channel_per_element && this.mean.len() > 1 {
            // Each feature of a row has its own mean: done below.
            return None;
        }
        let c = if block.channel_per_element { 0 } else { block.channel };
        Some(NormalizeLane {
            mean: at(&this.mean, c)?,
            std: at(&this.std, c)?,
        })
    },
    otherwise(this, values, out, _block) {
        if this.mean.len() != out.len() || this.std.len() != out.len() {
            return Err(adl_exec::KernelError::internal("kernel::normalize", format!("normalize: {} means for a row of {} features", this.mean.len(), out.len())));
        }
        let features = out.iter_mut().zip(values).zip(this.mean.iter().zip(&*this.std));
        for ((o, &v), (m, s)) in features {
            o.write((v - m) / s);
        }
        Ok(())
    }
);

/// [`Normalize`]'s work on one element of a channel (see
/// [`Lanewise`](crate::kernel::Lanewise)).
#[derive(Debug, Clone, Copy)]
pub struct NormalizeLane {
    mean: f32,
    std: f32,
}

impl crate::kernel::Lane for NormalizeLane {
    type In = f32;
    type Out = f32;

    #[inline(always)]
    fn apply(self, v: f32) -> f32 {
        (v - self.mean) / self.std
    }
}

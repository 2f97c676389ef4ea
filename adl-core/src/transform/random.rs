use crate::{Result, Transform};
use adl_exec::{Context, NodeId, SampleRng, Sequential};

/// A transform that draws random numbers: see [`random`].
#[derive(Debug, Clone, Copy)]
pub struct Random<F>(F);

/// A transform `f(input, &mut rng)` that draws from the per-sample random
/// generator of its execution context ([`Context::rng`]): in a loader, the
/// generator of (seed, epoch, sample index, node), so an augmentation is
/// reproducible and does not depend on how many threads run it.
///
/// Inside a `pipeline!` node (a [`Tagged`](crate::pipeline::Tagged) one), the
/// generator is that node's. Written as a node in `pipeline!`,
/// `random(|x, rng| ...)` is one: a [`RandomFn`](crate::transform::RandomFn),
/// named `random`, its closure's input inferred from the node before it
/// (see the DSL's "Randomness"; a `#[transform]` sample node may take
/// `rng: &mut SampleRng` after its input to the same effect). Applied plainly ([`apply`](Transform::apply),
/// outside any context) it draws from the generator of seed 0, epoch 0,
/// sample 0 — the same numbers every call; run it in a context (a loader,
/// or [`run`](crate::pipeline::run), which numbers the samples of its
/// batch) for per-sample draws.
///
/// ```
/// use adl::{Transform, exec::{Sequential, SampleRng}, transform::random};
///
/// let jitter = random(|x: f32, rng: &mut SampleRng| x + rng.unit_f32() - 0.5);
/// let a = jitter.apply_in(&Sequential::new().seeded(1, 0).at(5), 10.0)?;
/// let b = jitter.apply_in(&Sequential::new().seeded(1, 0).at(5), 10.0)?;
/// assert_eq!(a, b);                                  // same seed, epoch, index
/// assert!((9.5..10.5).contains(&a));
/// # Ok::<(), adl::Error>(())
/// ```
pub fn random<F>(f: F) -> Random<F> {
    Random(f)
}

impl<In, Out, F> Transform<In> for Random<F>
where
    F: Fn(In, &mut SampleRng) -> Out,
{
    type Output = Out;

    fn apply(&self, input: In) -> Result<Out> {
        self.apply_in(&Sequential::new(), input)
    }

    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<Out> {
        let mut rng = cx.rng(NodeId(0));
        Ok((self.0)(input, &mut rng))
    }
}

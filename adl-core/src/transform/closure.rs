//! Closures written inline in `pipeline!` as nodes: [`SampleFn`] and
//! [`BatchFn`] give a closure the identity of a node of the stage it
//! stands in, and [`RandomFn`] gives one to `random(|x, rng| ...)`.

use std::fmt;
use std::marker::PhantomData;

use super::Random;
use crate::description::{BatchNode, Node, NodeInfo, SampleNode, Stage, Takes};
use crate::{Result, Transform};
use adl_exec::{Context, SampleRng};

macro_rules! closure_node {
    ($(#[$doc:meta])* $name:ident, $stage:ident, $marker:ident) => {
        $(#[$doc])*
        pub struct $name<F, In, Out> {
            f: F,
            source: &'static str,
            types: PhantomData<fn(In) -> Out>,
        }

        impl<F, In, Out> $name<F, In, Out>
        where
            F: Fn(In) -> Out,
        {
            /// The closure `f` as a node; `source` is its text, kept as
            /// the node's doc.
            pub fn new(f: F, source: &'static str) -> Self {
                $name { f, source, types: PhantomData }
            }

            /// The closure `f` as a node after `before`: its input type is
            /// `before`'s output, so `f` needs no type annotations.
            pub fn after<A>(_before: &A, f: F, source: &'static str) -> Self
            where
                A: Node<Output = In> + ?Sized,
            {
                Self::new(f, source)
            }
        }

        impl<F, In, Out> $name<F, In, Out> {
            /// The closure's text, as written in `pipeline!`.
            pub fn source(&self) -> &'static str {
                self.source
            }
        }

        impl<F: Clone, In, Out> Clone for $name<F, In, Out> {
            fn clone(&self) -> Self {
                $name { f: self.f.clone(), source: self.source, types: PhantomData }
            }
        }

        impl<F, In, Out> fmt::Debug for $name<F, In, Out> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.source).finish()
            }
        }

        impl<F: Fn(In) -> Out, In, Out> Transform<In> for $name<F, In, Out> {
            type Output = Out;

            #[inline]
            fn apply(&self, input: In) -> Result<Out> {
                Ok((self.f)(input))
            }
        }

        impl<F, In: 'static, Out: 'static> Node for $name<F, In, Out> {
            type Input = In;
            type Output = Out;

            fn info(&self) -> NodeInfo {
                NodeInfo::new("closure", Stage::$stage)
                    .typed::<In, Out>()
                    .with_doc(self.source)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, In, Out> $marker for $name<F, In, Out> {
            type Node = Self;
        }

        #[diagnostic::do_not_recommend]
        impl<F, In, Out> Takes<In> for $name<F, In, Out> {}
    };
}

closure_node!(
    /// A closure standing under `sample:` (or `pre:`) in `pipeline!`: a
    /// sample node named `closure`, whose doc is its source text.
    ///
    /// ```
    /// use adl::{Transform, description::{Node, Stage}, transform::SampleFn};
    ///
    /// let inc = SampleFn::new(|x: i64| x + 1, "|x: i64| x + 1");
    /// assert_eq!(inc.apply(1)?, 2);
    /// assert_eq!(inc.info().stage, Stage::Sample);
    /// # Ok::<(), adl::Error>(())
    /// ```
    SampleFn,
    Sample,
    SampleNode
);

closure_node!(
    /// A closure standing under `batch:` (or `post:`) in `pipeline!`: a
    /// batch node named `closure`, whose doc is its source text.
    ///
    /// ```
    /// use adl::{Transform, description::{Node, Stage}, transform::BatchFn};
    ///
    /// let sum = BatchFn::new(|v: Vec<i64>| v.iter().sum::<i64>(), "sum");
    /// assert_eq!(sum.apply(vec![1, 2])?, 3);
    /// assert_eq!(sum.info().stage, Stage::Batch);
    /// # Ok::<(), adl::Error>(())
    /// ```
    BatchFn,
    Batch,
    BatchNode
);

/// `random(|x, rng| ...)` standing under `sample:` (or `pre:`) in
/// `pipeline!`: a sample node named `random`, whose doc is its source
/// text, that runs the closure with its per-sample generator (see
/// [`random`](crate::transform::random)). In a pipeline every node is
/// [`Tagged`](crate::pipeline::Tagged), so the generator is this node's own for
/// (seed, epoch, sample index): the same draws whatever thread runs it.
///
/// `pipeline!` passes the path of `random` as the call names it, so that it
/// resolves where the pipeline is written, and the closure apart, so that
/// its parameter types are inferred from the node before it.
///
/// ```
/// use adl::{Transform, exec::{SampleRng, Sequential}, transform::random};
/// use adl::description::{Node, Stage};
/// use adl::transform::RandomFn;
///
/// let jitter = RandomFn::new(
///     random,
///     |x: f32, rng: &mut SampleRng| x + rng.unit_f32(),
///     "random(|x: f32, rng: &mut SampleRng| x + rng.unit_f32())",
/// );
/// let at = |index| Sequential::new().seeded(7, 0).at(index);
/// assert_eq!(jitter.apply_in(&at(3), 1.0)?, jitter.apply_in(&at(3), 1.0)?);
/// assert_ne!(jitter.apply_in(&at(3), 1.0)?, jitter.apply_in(&at(4), 1.0)?);
/// assert_eq!(jitter.info().name, "random");
/// assert_eq!(jitter.info().stage, Stage::Sample);
/// # Ok::<(), adl::Error>(())
/// ```
pub struct RandomFn<F, In, Out> {
    random: Random<F>,
    source: &'static str,
    types: PhantomData<fn(In) -> Out>,
}

impl<F, In, Out> RandomFn<F, In, Out>
where
    F: Fn(In, &mut SampleRng) -> Out,
{
    /// `random(f)` as a node: `random` is
    /// [`transform::random`](crate::transform::random) (as a function
    /// pointer), `source` the call's text, kept as the node's doc.
    pub fn new(random: fn(F) -> Random<F>, f: F, source: &'static str) -> Self {
        RandomFn {
            random: random(f),
            source,
            types: PhantomData,
        }
    }

    /// [`new`](RandomFn::new) after `before`: the closure's input type is
    /// `before`'s output, so `f` needs no type annotations.
    pub fn after<A>(_before: &A, random: fn(F) -> Random<F>, f: F, source: &'static str) -> Self
    where
        A: Node<Output = In> + ?Sized,
    {
        Self::new(random, f, source)
    }
}

impl<F, In, Out> RandomFn<F, In, Out> {
    /// The call's text, as written in `pipeline!`.
    pub fn source(&self) -> &'static str {
        self.source
    }
}

impl<F: Clone, In, Out> Clone for RandomFn<F, In, Out> {
    fn clone(&self) -> Self {
        RandomFn {
            random: self.random.clone(),
            source: self.source,
            types: PhantomData,
        }
    }
}

impl<F, In, Out> fmt::Debug for RandomFn<F, In, Out> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RandomFn").field(&self.source).finish()
    }
}

impl<F, In, Out> Transform<In> for RandomFn<F, In, Out>
where
    F: Fn(In, &mut SampleRng) -> Out,
{
    type Output = Out;

    /// The closure with the generator of seed 0, epoch 0, sample 0 (see
    /// [`random`](crate::transform::random)).
    #[inline]
    fn apply(&self, input: In) -> Result<Out> {
        self.random.apply(input)
    }

    /// The closure with the context's generator for this node.
    #[inline]
    fn apply_in(&self, cx: &dyn Context, input: In) -> Result<Out> {
        self.random.apply_in(cx, input)
    }
}

impl<F, In: 'static, Out: 'static> Node for RandomFn<F, In, Out> {
    type Input = In;
    type Output = Out;

    fn info(&self) -> NodeInfo {
        NodeInfo::new("random", Stage::Sample)
            .typed::<In, Out>()
            .with_doc(self.source)
    }
}

#[diagnostic::do_not_recommend]
impl<F, In, Out> SampleNode for RandomFn<F, In, Out> {
    type Node = Self;
}

#[diagnostic::do_not_recommend]
impl<F, In, Out> Takes<In> for RandomFn<F, In, Out> {}

//! Closures written inline in `pipeline!` as nodes: [`SampleFn`] and
//! [`BatchFn`] give a closure the identity of a node of the stage it
//! stands in.

use std::fmt;
use std::marker::PhantomData;

use super::{BatchNode, Node, NodeInfo, SampleNode, Stage, Takes};
use crate::{Result, Transform};

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
        impl<F, In, Out> $marker for $name<F, In, Out> {}

        #[diagnostic::do_not_recommend]
        impl<F, In, Out> Takes<In> for $name<F, In, Out> {}
    };
}

closure_node!(
    /// A closure standing under `sample:` (or `pre:`) in `pipeline!`: a
    /// sample node named `closure`, whose doc is its source text.
    ///
    /// ```
    /// use adl::{Transform, graph::{Node, SampleFn, Stage}};
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
    /// use adl::{Transform, graph::{BatchFn, Node, Stage}};
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

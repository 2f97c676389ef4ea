//! Transforms and their composition.
//!
//! A [`Transform`](crate::Transform) is any step `In → Out`; every closure
//! or function `Fn(In) -> Out` is one. This module composes them:
//!
//! | composition | built with | result |
//! |---|---|---|
//! | sequential | [`a.then(b)`](TransformExt::then), [`Then::new`] | `a`, then `b` on its output |
//! | identity | [`Identity`] | the input, unchanged (the empty sequence) |
//! | fallible step | [`fallible(f)`](fallible) for `Fn(In) -> Result<Out, E>` | `f`'s errors as [`Error::Transform`](crate::Error::Transform) |
//! | named step | [`named("flip", t)`](named), [`t.named("flip")`](TransformExt::named) | `t`, its errors naming the step |
//! | parallel, by key | [`ParallelTransforms`] over [`Keyed`] samples | one transform per key |
//! | parallel, typed | a tuple `(t0, t1, ...)` over a tuple sample | one transform per element |
//! | random | [`random(f)`](random) for `Fn(In, &mut SampleRng) -> Out` | `f` with the per-sample generator of its context |
//! | type-erased | [`BoxedTransform`], [`t.boxed()`](TransformExt::boxed) | any transform `In → Out` |
//!
//! An image array's [`ImageLayout`] (`[H, W, C]` or `[C, H, W]`) is named
//! here too: it is what an image sensor decodes into. The operations on
//! images (`RandomResizedCrop`, `RandomFlip`, `resized_crop`,
//! `resized_area`) are the operations crate's (`adl-ops`), with the batch
//! kernels; the facade names them in `adl::transform` beside these.
//!
//! # Parallel composition
//!
//! A tuple of up to 8 transforms is a transform of the tuple of their
//! inputs: `(t0, t1).apply((a, b))` is `(t0.apply(a)?, t1.apply(b)?)`. An
//! error of element `i` is named `.i`.
//!
//! ```
//! use adl::Transform;
//!
//! let both = (|x: i64| x + 1, |s: &str| s.len());
//! assert_eq!(both.apply((1, "four"))?, (2, 4));
//! # Ok::<(), adl::Error>(())
//! ```
//!
//! # What does not compose: collates
//!
//! A [`Collate`](crate::Collate) never composes sequentially: samples are
//! aggregated into a batch once. The types say so: a collate is not a
//! transform, so it has no `then`, and [`Then`] of two collates is not a
//! transform (nor a collate) and fits no pipeline stage. Collates compose
//! only in parallel, through
//! [`ParallelPipelines`](crate::pipeline::ParallelPipelines) or tuples of
//! pipelines.
//!
//! ```compile_fail
//! use adl::{Collate, collate::DefaultCollate, transform::TransformExt};
//!
//! // error: `DefaultCollate` is not a transform, so it has no `then`
//! let twice = DefaultCollate.then(DefaultCollate);
//! ```

mod boxed;
mod closure;
mod fallible;
mod identity;
mod image_layout;
mod keyed;
mod named;
mod parallel;
mod random;
mod then;
mod tuple;

pub use boxed::BoxedTransform;
pub use closure::{BatchFn, RandomFn, SampleFn};
pub use fallible::{TryFn, fallible};
pub use identity::Identity;
pub use image_layout::ImageLayout;
pub(crate) use keyed::key_columns;
pub use keyed::{Keyed, MissingKey};
pub use named::{Named, named};
pub use parallel::ParallelTransforms;
pub use random::{Random, random};
pub use then::{Then, TransformExt};

pub(crate) use named::label;

//! Pipelines: the three stages `sample` → `collate` → `batch`, and their
//! composition.
//!
//! | pipeline | built with | what it does |
//! |---|---|---|
//! | three stages | [`Stages::new()`](Stages::new)`.with_sample(t).with_collate(c).with_batch(b)` | `t` per sample, `c` once, `b` per batch; identity defaults |
//! | pre-composed | [`Stages::pre`], [`Pre`] (`p.pre(t)` on every pipeline of this module) | `t` before the sample stage |
//! | post-composed | [`Stages::post`], [`Post`] (`p.post(t)`) | `t` after the batch stage |
//! | parallel, by key | [`ParallelPipelines`] over [`Keyed`](crate::transform::Keyed) samples | one pipeline (and collate) per key |
//! | parallel, typed | a tuple `(p0, p1, ...)` over a tuple sample | one pipeline (and collate) per element |
//! | sequences | [`SequencePipeline`] | a pipeline at every step of equal-length sequences, time-major batches |
//! | type-erased | [`BoxedPipeline`]; `Box<P>`, `Arc<P>`, `&P` | any pipeline |
//!
//! Collates: [`IdentityCollate`] (the default: the `Vec` of samples),
//! [`collate_fn`] (a function of the whole batch),
//! [`DefaultCollate`](crate::collate::DefaultCollate) (PyTorch
//! `default_collate` semantics), and tuples of collates for tuple samples.
//! [`run`] runs a pipeline on one batch.
//!
//! # No sequential composition of collates or pipelines
//!
//! Samples are aggregated into a batch exactly once, so a pipeline has
//! exactly one [`Collate`](crate::Collate), and neither collates nor
//! pipelines compose sequentially. In the types: a collate is not a
//! transform (no `then`), `Stages::with_collate` exists only while the
//! collate is the default, and `pre`/`post` take transforms, not pipelines.
//! Both compose only in parallel.
//!
//! ```compile_fail
//! use adl::pipeline::{Pre, Stages, run};
//!
//! // error: a pipeline is not a transform, so it cannot precede another
//! let twice = Pre::new(Stages::new(), Stages::new());
//! run(&twice, vec![1, 2, 3]).unwrap();
//! ```
//!
//! # Parallel composition
//!
//! A tuple of up to 8 pipelines is a pipeline of tuples: element `i` of each
//! sample goes through pipeline `i`, and is collated by its collate. Errors
//! of element `i` are named `.i`.
//!
//! ```
//! use adl::{collate::DefaultCollate, pipeline::{Stages, run}};
//! use ndarray::array;
//!
//! let p = (
//!     Stages::new().with_sample(|x: f32| x / 2.0).with_collate(DefaultCollate),
//!     Stages::new().with_sample(|s: &str| s.to_uppercase()),
//! );
//! let (x, names) = run(&p, vec![(1.0, "a"), (3.0, "b")])?;
//! assert_eq!(x, array![0.5f32, 1.5]);
//! assert_eq!(names, vec!["A", "B"]);
//! # Ok::<(), adl::Error>(())
//! ```

use crate::Error;
use crate::transform::label;

/// Inherent `pre` and `post` for a pipeline type of this module.
macro_rules! compose_methods {
    ($ty:ident < $($g:ident),+ >) => {
        impl<$($g),+> $ty<$($g),+> {
            /// Pre-composition: `transform`, then this pipeline (see
            /// [`Pre`](crate::pipeline::Pre)).
            pub fn pre<T>(self, transform: T) -> $crate::pipeline::Pre<T, Self> {
                $crate::pipeline::Pre::new(transform, self)
            }

            /// Post-composition: this pipeline, then `transform` on its
            /// processed batches (see [`Post`](crate::pipeline::Post)).
            pub fn post<T>(self, transform: T) -> $crate::pipeline::Post<Self, T> {
                $crate::pipeline::Post::new(self, transform)
            }
        }
    };
}

mod boxed;
mod branches;
mod collate_fn;
mod compose;
mod identity_collate;
mod parallel;
mod run;
mod sequence;
mod stages;
mod tagged;
mod tuple;
pub(crate) mod witness;

pub use boxed::BoxedPipeline;
pub use branches::{Branch, BranchNames, KeyedBranches, NoBranch, SameBranches};
pub use collate_fn::{CollateFn, collate_fn};
pub use compose::{Post, Pre};
pub use identity_collate::IdentityCollate;
pub use parallel::ParallelPipelines;
pub use run::run;
pub use sequence::SequencePipeline;
pub use stages::Stages;
pub use tagged::Tagged;

/// An error of the collate stage of branch `path` (`.0`, `[3]`,
/// `["image"]`): a collate error gets `path` prefixed to its path, any
/// other is named `name`.
pub(crate) fn in_branch(error: Error, path: &str, name: &str) -> Error {
    match error {
        e @ Error::Collate { .. } => e.within(path),
        other => label(other, name),
    }
}

/// The result a branch left in its slot after [`join_each`](adl_exec::join_each): every slot is
/// filled unless a context broke its contract, which is reported as an
/// error rather than a panic.
pub(crate) fn filled<T>(slot: Option<crate::Result<T>>) -> crate::Result<T> {
    slot.unwrap_or_else(|| {
        Err(crate::Error::invalid(
            "execution context",
            "a parallel branch was not run (Context::join_dyn must run both closures)",
        ))
    })
}

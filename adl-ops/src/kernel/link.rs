//! How `pipeline!` links consecutive batch nodes: [`Link`] picks, by
//! method resolution on the node types, [`FusedLanes`] for two
//! [`Lanewise`] kernel nodes, [`Fused`] for two kernel nodes, else
//! [`Then`]; [`Rest`] and [`End`] build a stage's runs from its end.

use std::marker::PhantomData;

use super::lanes::{FusedLanes, Lanewise};
use super::node::{Fused, KernelNode};
use adl_core::transform::Then;
use adl_core::{Result, Transform};
use adl_exec::Context;

/// Picks how `pipeline!` links two consecutive batch nodes: [`Fused`] when
/// both are kernel nodes whose element types meet, else [`Then`]. The
/// choice is made where the node types are known, by method resolution
/// (see [`LinkKernels`] and [`LinkOther`]).
#[doc(hidden)]
pub struct Link<A, B>(PhantomData<fn() -> (A, B)>);

impl<A, B> Link<A, B> {
    /// The link of `first` and `second` (only their types matter).
    #[doc(hidden)]
    pub fn of(_first: &A, _second: &B) -> Self {
        Link(PhantomData)
    }
}

// The three kinds of link are tried in this order by method resolution
// on `&&Link`: an impl for `&Link` is found first (by value), then one for
// `&&Link` (by reference), then one for `Link` (after a dereference).

/// Chosen for two [`Lanewise`] kernel nodes.
#[doc(hidden)]
pub trait LinkLanes {
    /// [`FuseLanes`].
    fn kind(&self) -> FuseLanes {
        FuseLanes
    }
}

impl<A: Lanewise, B: Lanewise<In = A::Out>> LinkLanes for &Link<A, B> {}

/// Chosen for two kernel nodes.
#[doc(hidden)]
pub trait LinkKernels {
    /// [`FuseThem`].
    fn kind(&self) -> FuseThem {
        FuseThem
    }
}

impl<A: KernelNode, B: KernelNode<In = A::Out>> LinkKernels for &&Link<A, B> {}

/// Chosen for any other pair.
#[doc(hidden)]
pub trait LinkOther {
    /// [`ChainThem`].
    fn kind(&self) -> ChainThem {
        ChainThem
    }
}

impl<A, B> LinkOther for Link<A, B> {}

// A batch stage is linked from its end: `pipeline!` keeps the run of
// kernel nodes being built (`head`) and what follows it (`rest`, linked
// already), and for each step before them asks, by the kinds below,
// whether the step joins the run (`step`), or the run is done and the step
// starts a new one. So every run of consecutive kernel nodes becomes one
// chain, whatever stands after it: the chains that
// `adl_rules::fusion::groups` groups, as the plan does.

/// Link as [`FusedLanes`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct FuseLanes;

impl FuseLanes {
    /// `FusedLanes::new(first, second)`.
    #[doc(hidden)]
    pub fn link<A, B>(self, first: A, second: B) -> FusedLanes<A, B> {
        FusedLanes::new(first, second)
    }

    /// `step` joins the run `head`; `rest` follows.
    #[doc(hidden)]
    pub fn step<S, H, R>(self, step: S, head: H, rest: R) -> (FusedLanes<S, H>, R) {
        (FusedLanes::new(step, head), rest)
    }
}

/// Link as [`Fused`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct FuseThem;

impl FuseThem {
    /// `Fused::new(first, second)`.
    #[doc(hidden)]
    pub fn link<A, B>(self, first: A, second: B) -> Fused<A, B> {
        Fused::new(first, second)
    }

    /// `step` joins the run `head`; `rest` follows.
    #[doc(hidden)]
    pub fn step<S, H, R>(self, step: S, head: H, rest: R) -> (Fused<S, H>, R) {
        (Fused::new(step, head), rest)
    }
}

/// Link as [`Then`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct ChainThem;

impl ChainThem {
    /// `Then::new(first, second)`.
    #[doc(hidden)]
    pub fn link<A, B>(self, first: A, second: B) -> Then<A, B> {
        Then::new(first, second)
    }

    /// The run `head` is done (it goes before `rest`); `step` starts the
    /// next one.
    #[doc(hidden)]
    pub fn step<S, H, R: Rest<H>>(self, step: S, head: H, rest: R) -> (S, R::Before) {
        (step, rest.before(head))
    }
}

/// The end of a batch stage being linked: nothing follows yet.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct End;

/// What follows a run of a batch stage being linked: [`End`] or the
/// [`Then`] chain of the runs after it.
#[doc(hidden)]
pub trait Rest<H> {
    /// `head`, then this.
    type Before;
    /// `head`, then this (a run done in the middle of the stage).
    fn before(self, head: H) -> Self::Before;
    /// The whole stage: `head`, then this.
    type Stage;
    /// The whole stage, `head` being its first run.
    fn stage(self, head: H) -> Self::Stage;
}

impl<H> Rest<H> for End {
    type Before = Then<H, End>;
    fn before(self, head: H) -> Then<H, End> {
        Then::new(head, End)
    }
    type Stage = H;
    fn stage(self, head: H) -> H {
        head
    }
}

impl<H, A, B> Rest<H> for Then<A, B> {
    type Before = Then<H, Then<A, B>>;
    fn before(self, head: H) -> Self::Before {
        Then::new(head, self)
    }
    type Stage = Then<H, Then<A, B>>;
    fn stage(self, head: H) -> Self::Stage {
        Then::new(head, self)
    }
}

/// The end of a stage passes its input on.
impl<T> Transform<T> for End {
    type Output = T;

    #[inline]
    fn apply(&self, input: T) -> Result<T> {
        Ok(input)
    }

    #[inline]
    fn apply_in(&self, _cx: &dyn Context, input: T) -> Result<T> {
        Ok(input)
    }
}

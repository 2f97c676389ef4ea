//! Compile-time checks that `pipeline!` emits, spanned at the user's
//! token: each is a function whose bounds are the rule, so a broken rule is
//! a rustc error with the rule's message (see [`Rule`](super::Rule)).

use super::{BatchNode, CollateNode, Node, SampleNode, Takes, TakesField};

/// `node` may stand under `sample:` (rule `batch_node_in_sample`).
pub fn assert_sample_node<N: SampleNode + ?Sized>(_node: &N) {}

/// `node` may stand under `batch:` (rule `sample_node_in_batch`).
pub fn assert_batch_node<N: BatchNode + ?Sized>(_node: &N) {}

/// `next` takes what `before` gives (rule `type_mismatch`).
pub fn assert_feeds<A: Node + ?Sized, B: Takes<A::Output> + ?Sized>(_before: &A, _next: &B) {}

/// `next` may stand under `sample:` (rule `batch_node_in_sample`) and
/// takes what `before` gives (rule `type_mismatch`). Its input is checked
/// through [`SampleNode::Node`], so where `next` is no sample node that
/// is the one error: the type of what it takes is not asked.
pub fn assert_sample_feeds<A: Node + ?Sized, B: SampleNode + ?Sized>(_before: &A, _next: &B)
where
    B::Node: Takes<A::Output>,
{
}

/// `next` may stand under `batch:` (rule `sample_node_in_batch`) and takes
/// what `before` gives (rule `type_mismatch`), as one check: see
/// [`assert_sample_feeds`].
pub fn assert_batch_feeds<A: Node + ?Sized, B: BatchNode + ?Sized>(_before: &A, _next: &B)
where
    B::Node: Takes<A::Output>,
{
}

/// `next`, the first node of a branch, takes the field `field` gives
/// (rule `field_type_mismatch`).
pub fn assert_takes_field<F: Node + ?Sized, B: TakesField<F::Output> + ?Sized>(
    _field: &F,
    _next: &B,
) {
}

/// `collate` collates the samples `before` gives (rule `not_a_collate`).
pub fn assert_collate_after<A: Node + ?Sized, C: CollateNode<A::Output> + ?Sized>(
    _before: &A,
    _collate: &C,
) {
}

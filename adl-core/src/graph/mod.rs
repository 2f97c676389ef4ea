//! What a pipeline looks like as a graph, and the composition rules that
//! every pipeline obeys: the data shared by the `pipeline!` macro (which
//! checks them at compile time) and the planner in `adl-graph` (which
//! checks them again at run time and draws the graph).
//!
//! - [`Stage`]: the three stages of the specification, and [`Device`].
//! - [`Rule`]: every composition rule, with its message, in one table
//!   ([`rules`](self::Rule::ALL)), and the [`Violation`]s that
//!   [`Description::check`] and the planner report. The table and the one
//!   checker of the rules live in `adl-rules` (a crate with no dependency,
//!   shared with the macros); this module adds the marker traits
//!   ([`SampleNode`], [`BatchNode`], [`Takes`], [`CollateNode`]) whose
//!   compile errors are the rules' messages.
//! - [`NodeInfo`] and [`Node`]: what `#[transform]` records about a node
//!   (name, stage, input and output types, kernel, doc).
//! - [`Description`]: a whole pipeline (pre, sample, collate, batch, post,
//!   parallel branches) as nested data, built by `pipeline!` or by hand.
//! - [`Described`]: what `pipeline!` returns, a typed pipeline with its
//!   description; and what its expansion is built from: closure nodes
//!   ([`SampleFn`], [`BatchFn`], [`RandomFn`]), parallel branches ([`Branch`],
//!   [`KeyedBranches`]). (The type witnesses and compile-time checks the
//!   expansion also calls are in the hidden `adl::__private`, not API.)

pub(crate) mod assert;
mod branches;
mod closure;
mod described;
pub(crate) mod description;
pub(crate) mod node;
mod rule;
mod type_name;
pub(crate) mod witness;

pub use adl_rules::{Device, Rule, Section, Stage, Violation};
pub use branches::{Branch, BranchNames, KeyedBranches, NoBranch, SameBranches};
pub use closure::{BatchFn, RandomFn, SampleFn};
pub use described::Described;
pub use description::{Body, Description};
pub use node::{KernelInfo, Node, NodeInfo, TypeInfo};
pub use rule::{BatchNode, CollateNode, SampleNode, Takes, TakesField};

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
//!   description.
//!
//! What runs is not here: the closure nodes of the expansion
//! ([`SampleFn`](crate::transform::SampleFn),
//! [`BatchFn`](crate::transform::BatchFn),
//! [`RandomFn`](crate::transform::RandomFn)) are transforms, and what runs
//! parallel branches ([`Branch`](crate::pipeline::Branch),
//! [`KeyedBranches`](crate::pipeline::KeyedBranches)) and types them is a
//! pipeline's. This module depends on the specification's traits alone,
//! and on neither of those modules (`tests/suite/architecture.rs` checks it).
//! The compile-time checks the expansion calls are in the hidden
//! `adl::__private`, not API.

pub(crate) mod assert;
mod described;
pub(crate) mod node;
mod rule;
pub(crate) mod tree;
pub(crate) mod type_name;

pub use adl_rules::{Device, Rule, Section, Stage, Violation};
pub use described::Described;
pub use node::{KernelInfo, Node, NodeInfo, TypeInfo};
pub use rule::{BatchNode, CollateNode, SampleNode, Takes, TakesField};
pub use tree::{Body, Description};

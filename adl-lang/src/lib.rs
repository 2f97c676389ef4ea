//! # adl-lang
//!
//! The language of adl's DSL as a normal library, with no runtime: the
//! composition rules as data in one table ([`Rule`], [`rule_table!`]), the
//! stages ([`Stage`], [`Section`], [`Device`]), and the one checker of the
//! rules ([`check`]) that `pipeline!`, `Description::check` and the
//! planner share, each locating its findings its own way (a token, a node
//! path).
//!
//! The macros' phases are here too, one module per macro, each a plain
//! function from tokens to tokens (`expand`), parse, check and generate
//! within it, testable and snapshotted in-process: [`pipeline`],
//! [`transform`], [`collate`] (`#[derive(Collate)]`), [`recycle`]
//! (`#[derive(Recycle)]`), [`sensor_set`] (`#[derive(SensorSet)]`).
//! Errors are spanned at the user's token and emitted as
//! `compile_error!`.
//!
//! `adl-core` re-exports the rules and stages in `adl::graph`; the
//! proc-macro crate `adl-macros` holds only the macros' entry points, so
//! that no runtime crate is built for the compiler host.

mod diagnostic;
mod rule;
mod stage;
#[cfg(test)]
mod test_support;

pub mod check;
pub mod collate;
pub mod pipeline;
pub mod recycle;
pub mod sensor_set;
pub mod transform;

pub use check::{
    MAY_END, MAY_FOLLOW, PLACEMENT, Place, TypeKey, check_level, check_path, check_steps,
    may_follow, placement,
};
pub use rule::{Rule, Violation};
pub use stage::{Device, Section, Stage};

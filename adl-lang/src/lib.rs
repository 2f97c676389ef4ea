//! # adl-lang
//!
//! The language of adl's DSL as a normal library, with no runtime. The
//! composition rules, the stages and the one checker of the rules are
//! `adl-rules` (no dependency, shared with the runtime); this crate locates
//! the checker's findings at the user's tokens.
//!
//! The macros' phases are here, one module per macro, each a plain
//! function from tokens to tokens (`expand`), parse, check and generate
//! within it, testable and snapshotted in-process: [`pipeline`],
//! [`transform`], [`collate`] (`#[derive(Collate)]`), [`recycle`]
//! (`#[derive(Recycle)]`), [`sensor_set`] (`#[derive(SensorSet)]`).
//! Errors are spanned at the user's token and emitted as
//! `compile_error!`.
//!
//! The proc-macro crate `adl-macros` holds only the macros' entry points,
//! so that no runtime crate is built for the compiler host, and the
//! runtime builds none of this crate's parsing.

mod diagnostic;
mod site;
#[cfg(test)]
mod test_support;

pub mod collate;
pub mod pipeline;
pub mod recycle;
pub mod sensor_set;
pub mod transform;

use adl_rules::{Rule, Section, Stage, check};

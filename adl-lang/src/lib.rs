//! # adl-lang
//!
//! The language of adl's DSL as a normal library, with no runtime: the
//! composition rules as data in one table ([`Rule`], [`rule_table!`]), the
//! stages ([`Stage`], [`Section`], [`Device`]), and the one checker of the
//! rules ([`check`]) that `pipeline!`, `Description::check` and the
//! planner share, each locating its findings its own way (a token, a node
//! path).
//!
//! `adl-core` re-exports all of it in `adl::graph`; the proc-macro crate
//! `adl-macros` holds only the macros' entry points.

mod rule;
mod stage;

pub mod check;

pub use check::{
    MAY_END, MAY_FOLLOW, PLACEMENT, Place, TypeKey, check_level, check_path, check_steps,
    may_follow, placement,
};
pub use rule::{Rule, Violation};
pub use stage::{Device, Section, Stage};

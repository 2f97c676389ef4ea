//! # adl-rules
//!
//! adl's composition rules as data, with no dependency: the one table of
//! rules ([`Rule`], [`rule_table!`]), the stages ([`Stage`], [`Section`],
//! [`Device`]), the one checker of the rules ([`check`]) and the one rule
//! of which batch kernels run as one ([`fusion`]).
//!
//! Two kinds of user share it, so that a rule is written once:
//!
//! - at compile time, `adl-lang` (the DSL's library, behind the proc
//!   macros), which locates findings at the user's tokens;
//! - at run time, `adl-core` (`Description::check`, and the marker traits
//!   generated from the table) and the engine `adl-graph` (the planner),
//!   which locate them at node paths such as `pipeline/radar/flip`.
//!
//! The runtime therefore builds no parser: `syn`, `quote` and `proc-macro2`
//! are dependencies of the macros alone.
//!
//! Users of adl meet these items as `adl::description::{Rule, Violation, Stage,
//! Section, Device}`; the checker's tables and walk are this crate's own
//! API for adl's other crates, not part of the facade.
//!
//! ```
//! use adl_rules::{Rule, Stage, check::check_path};
//!
//! let twice = check_path("pipe", &[("a", Stage::Collate), ("b", Stage::Collate)]);
//! assert_eq!(twice[0].rule, Rule::CollateOnce);
//! ```

mod rule;
mod stage;

pub mod check;
pub mod fusion;

pub use rule::{Rule, Violation};
pub use stage::{Device, Section, Stage};

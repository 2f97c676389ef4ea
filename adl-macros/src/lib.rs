//! # adl-macros
//!
//! The procedural macros of adl, re-exported by the facade crate `adl`:
//! `#[transform]` (typed transform nodes), `pipeline!` (sample → collate →
//! batch pipelines with parallel branches, checked at compile time) and
//! `#[derive(Collate)]`.
//!
//! This crate stays thin, in the style of serde_derive: each entry point
//! parses, checks against the composition rules kept as data in `adl-core`,
//! and generates, each phase a plain function on `proc_macro2` types.
//! Errors are spanned at the user's token and emitted as `compile_error!`.
//!
//! No macro is exported yet: they arrive with the DSL work (issue 4).

//! # adl-macros
//!
//! The procedural macros of adl, re-exported by the facade crate `adl`:
//! `#[derive(Collate)]` today; `#[transform]` (typed transform nodes) and
//! `pipeline!` (sample → collate → batch pipelines with parallel branches,
//! checked at compile time) with the DSL work.
//!
//! This crate stays thin, in the style of serde_derive: each entry point
//! parses, checks and generates, each phase a plain function on
//! `proc_macro2` types, so that the phases can be tested and snapshotted
//! in-process. Errors are spanned at the user's token and emitted as
//! `compile_error!`.

use proc_macro::TokenStream;

mod collate;

/// Derive `adl::collate::Collatable` for a struct: `Frame` gets a
/// `FrameBatch` with one batch per field, and collates field by field.
///
/// Field attributes pick another strategy for one field:
/// - `#[collate(list)]`: keep the values in a `Vec`;
/// - `#[collate(concat)]`: concatenate arrays along their first axis;
/// - `#[collate(pad)]`: pad arrays ragged along their first axis to the
///   longest, with lengths and a mask (`adl::collate::Padded`).
///
/// Struct attributes: `#[collate(derive(Debug, Clone))]` derives those
/// traits on the batch type; `#[collate(crate = "path")]` names the `adl`
/// crate when it is re-exported under another path.
///
/// ```ignore
/// #[derive(Collate)]
/// struct Frame { image: Array3<u8>, label: i64, #[collate(list)] name: String }
/// // FrameBatch { image: Array4<u8>, label: Array1<i64>, name: Vec<String> }
/// ```
#[proc_macro_derive(Collate, attributes(collate))]
pub fn derive_collate(input: TokenStream) -> TokenStream {
    collate::expand(input.into()).into()
}

//! `pipeline!`: parse, check, generate, each phase a plain function on
//! `proc_macro2` types (see `docs/dsl.md` for the language).
//!
//! - `parse`: tokens → syntax tree (`parse::Body`), with a spanned
//!   error for each piece that does not parse.
//! - `check`: syntax tree → model (`check::Level`), with a spanned
//!   error for each broken rule of `adl_lang::Rule` (re-exported as `adl::description::Rule`) that the tokens
//!   show; the model is repaired so that generation can go on.
//! - `generate`: model → a block that evaluates to
//!   `adl::description::Described<P>`, after the `compile_error!`s, with the
//!   assertions that let rustc report the type-level rules.

mod check;
mod generate;
mod parse;
#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

/// Expand `pipeline! { ... }`. An optional first entry `crate = path;`
/// names the `adl` crate when it is re-exported or renamed.
///
/// The expansion reads nothing but its tokens: a bare name is a node type
/// (`name {}`), and where it is something else (a plain `fn`, a local
/// variable) rustc's own name-resolution error, at that name, says so
/// (see `docs/dsl.md`, "A bare name that is not a node").
pub fn expand(input: TokenStream) -> TokenStream {
    let (krate, tokens, mut errors) = parse::crate_path(input);
    let (body, parse_errors) = parse::parse(tokens);
    errors.extend(parse_errors);
    let (level, rule_errors) = check::check(&body);
    errors.extend(rule_errors);
    generate::generate(&level, &errors, &krate)
}

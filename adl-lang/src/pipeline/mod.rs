//! `pipeline!`: parse, check, generate, each phase a plain function on
//! `proc_macro2` types (see `docs/dsl.md` for the language).
//!
//! - `parse`: tokens → syntax tree (`parse::Body`), with a spanned
//!   error for each piece that does not parse.
//! - `names`: what the file around the call says a bare name is (a
//!   plain function, a local variable), for the two mistakes that rustc
//!   would otherwise report as name-resolution errors.
//! - `check`: syntax tree → model (`check::Level`), with a spanned
//!   error for each broken rule of `adl_lang::Rule` (re-exported as `adl::graph::Rule`) that the tokens
//!   show; the model is repaired so that generation can go on.
//! - `generate`: model → a block that evaluates to
//!   `adl::graph::Described<P>`, after the `compile_error!`s, with the
//!   assertions that let rustc report the type-level rules.

mod check;
mod generate;
mod names;
mod parse;
#[cfg(test)]
mod tests;

pub use names::SourceIndex;
use proc_macro2::TokenStream;

/// Expand `pipeline! { ... }`. An optional first entry `crate = path;`
/// names the `adl` crate when it is re-exported or renamed.
pub fn expand(input: TokenStream) -> TokenStream {
    expand_in(input, || None)
}

/// [`expand`] a call written in a file that `file` indexes (called only
/// when the call has a bare name the index could say something about): a
/// bare name that the file shows to be a plain function or a local
/// variable is then an error in the library's words (rules
/// `plain_function_node`, `node_in_variable`), not rustc's
/// name-resolution error.
pub fn expand_in(
    input: TokenStream,
    file: impl FnOnce() -> Option<std::sync::Arc<SourceIndex>>,
) -> TokenStream {
    let (krate, tokens, mut errors) = parse::crate_path(input.clone());
    let (mut body, parse_errors) = parse::parse(tokens);
    errors.extend(parse_errors);
    if names::has_bare_names(&body)
        && let Some(file) = file()
    {
        let names = file.names_of(&input);
        // `::adl` (the default) is written as users write it.
        let krate_text = check::text_of(&krate);
        let krate_text = krate_text.strip_prefix("::").unwrap_or(&krate_text);
        names::reword(&mut body, &names, krate_text, &mut errors);
    }
    let (level, rule_errors) = check::check(&body);
    errors.extend(rule_errors);
    generate::generate(&level, &errors, &krate)
}

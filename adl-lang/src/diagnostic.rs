//! Errors in our words: every error of `#[transform]` and `pipeline!` is a
//! [`Rule`] of adl-core's table, rendered with its message and help,
//! spanned at the user's token, and collected so that one expansion reports
//! them all.

use std::fmt::Display;

use crate::Rule;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// The text of an error: the rule's message with its placeholders filled
/// from `args`, then its help.
fn message(rule: Rule, args: &[(&str, &str)]) -> String {
    format!(
        "{}\n\n= help: {}",
        rule.render(args),
        rule.render_help(args)
    )
}

/// A compile error for `rule` at `span`.
pub(crate) fn rule_error(span: Span, rule: Rule, args: &[(&str, &str)]) -> syn::Error {
    syn::Error::new(span, message(rule, args))
}

/// A `transform_signature` or `transform_option` error (those rules'
/// message is the problem itself) at `span`.
pub(crate) fn problem(rule: Rule, span: Span, problem: impl Display) -> syn::Error {
    rule_error(span, rule, &[("problem", &problem.to_string())])
}

/// [`problem`] over `tokens`, underlined from their first to their last
/// token.
pub(crate) fn problem_at(rule: Rule, tokens: impl ToTokens, problem: impl Display) -> syn::Error {
    syn::Error::new_spanned(tokens, message(rule, &[("problem", &problem.to_string())]))
}

/// [`problem_at`] with `help` in place of the rule's help, for a problem
/// whose fix the rule's help does not show.
pub(crate) fn problem_at_with_help(
    rule: Rule,
    tokens: impl ToTokens,
    problem: impl Display,
    help: &str,
) -> syn::Error {
    syn::Error::new_spanned(
        tokens,
        format!(
            "{}\n\n= help: {help}",
            rule.render(&[("problem", &problem.to_string())])
        ),
    )
}

/// Every error found so far, in the order found.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    /// Record one error.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    /// Record the error of `result`, if any, and give back its value.
    pub(crate) fn take<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    /// All errors as `compile_error!`s (empty when there are none).
    pub(crate) fn to_compile_errors(&self) -> TokenStream {
        self.0.iter().map(syn::Error::to_compile_error).collect()
    }
}

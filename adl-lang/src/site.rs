//! [`Token`]: where the macros' findings of the one checker point.

use proc_macro2::Span;

use crate::check::Place;

/// The token of the macro's input where a node, a branch or a parallel form
/// is written: the [`Place`] of the checker's findings for `pipeline!`
/// (the planner's is a node path).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token(pub(crate) Span);

impl Place for Token {
    fn node(&self, _name: &str, site: &Self) -> Self {
        *site
    }
    fn branch(&self, _name: &str, site: &Self) -> Self {
        *site
    }
    fn form(&self, site: &Self) -> Self {
        *site
    }
    /// Spans have no equality: a finding repeats another about the same
    /// step (a node before a split, on every branch's path).
    fn repeats(&self, _other: &Self, same_source: bool) -> bool {
        same_source
    }
    fn path_text(&self, branches: &[String]) -> String {
        if branches.is_empty() {
            "this pipeline".to_owned()
        } else {
            format!("branch `{}`", branches.join("/"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_macro_names_paths_by_branch() {
        let token = Token(Span::call_site());
        assert_eq!(token.path_text(&[]), "this pipeline");
        assert_eq!(
            token.path_text(&["radar".to_owned(), "range".to_owned()]),
            "branch `radar/range`"
        );
    }
}

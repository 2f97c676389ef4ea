//! Names: what the file around a `pipeline!` says a bare name is, so that
//! two mistakes that rustc reports as name-resolution errors
//! (`error[E0574]: expected struct, variant or union type, found ...`) are
//! reported in the library's words instead, and repaired so that no other
//! error follows:
//!
//! - a plain `fn` (no `#[transform]`) used as a node: rule
//!   `plain_function_node`, repaired as the closure its help suggests;
//! - a node value in a local variable written bare (`norm` for `(norm)`):
//!   rule `node_in_variable`, repaired as the value.
//!
//! A procedural macro sees only its own tokens. The entry point reads the
//! file it is called from (`proc_macro::Span::local_file`, Rust 1.88) and
//! hands it to [`SourceIndex::parse`]: the file's `pipeline!` calls, each
//! with what its bare names are where it stands (Rust's scoping: modules,
//! blocks, `let`s before the call, parameters, closures, match arms; a
//! function's locals end at a nested `fn`).
//!
//! The index is conservative: a name has a meaning only where rustc is
//! certain to refuse the node type `name {}`. A name is left to rustc
//! (its own words, as before) wherever anything could make it a type: an
//! item of that name other than a plain function anywhere in the file, a
//! `use` of that name anywhere in the file, a generic parameter of that
//! name, a glob import or an item-making macro in a scope the call sees,
//! or a function of that name with attributes (`#[transform]` among them).
//! Where the file cannot be read or parsed, or the call is not found in it
//! (written by another macro), nothing changes.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Expr, ExprPath, Pat};

use super::check::text_of;
use super::parse::{Body, Entry};
use crate::Rule;
use crate::diagnostic::rule_error;

/// What a source file says about the bare names of each of its
/// `pipeline!` calls. Built once per file by the macro's entry point
/// ([`SourceIndex::parse`]) and handed to
/// [`expand_in`](super::expand_in) for each call in it.
#[derive(Debug, Clone, Default)]
pub struct SourceIndex {
    calls: Vec<Call>,
}

/// One `pipeline!` call of the file.
#[derive(Debug, Clone)]
struct Call {
    /// The call's tokens, flattened (see [`leaves`]).
    leaves: Vec<String>,
    /// Its identifiers that have a certain meaning where it stands.
    names: Names,
}

/// Bare names with a certain meaning where a call stands.
pub(crate) type Names = HashMap<String, Meaning>;

/// What a bare name certainly is where a call stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Meaning {
    /// A local variable (a `let`, a parameter, a closure's parameter, a
    /// pattern's binding).
    Local,
    /// A function without attributes (so without `#[transform]`).
    PlainFn(FnShape),
}

/// The parameters of a plain function, to write the closure that wraps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FnShape {
    /// Each parameter: a name for it and its type, as written.
    params: Vec<(String, String)>,
    /// Whether that closure compiles as written: no generics, no `impl`
    /// or `_` types, not `async` or `unsafe`, no receiver.
    wrappable: bool,
}

impl FnShape {
    /// The closure that makes the function `name` a node: it takes the
    /// node's one input (a tuple when the function takes more or fewer
    /// than one), e.g. `|x: i64| plain(x)`; without types where they
    /// cannot be written (`|x| generic(x)`).
    fn closure(&self, name: &str) -> String {
        let args: Vec<&str> = self.params.iter().map(|(n, _)| n.as_str()).collect();
        let call = format!("{name}({})", args.join(", "));
        match self.params.as_slice() {
            [(arg, _)] if !self.wrappable => format!("|{arg}| {call}"),
            [(arg, ty)] => format!("|{arg}: {ty}| {call}"),
            _ if !self.wrappable => format!("|({})| {call}", args.join(", ")),
            params => {
                let tys: Vec<&str> = params.iter().map(|(_, t)| t.as_str()).collect();
                format!("|({}): ({})| {call}", args.join(", "), tys.join(", "))
            }
        }
    }

    fn of(sig: &syn::Signature) -> FnShape {
        let mut wrappable = sig.generics.params.is_empty()
            && sig.asyncness.is_none()
            && sig.unsafety.is_none()
            && sig.variadic.is_none();
        let mut params = Vec::new();
        for (i, arg) in sig.inputs.iter().enumerate() {
            match arg {
                syn::FnArg::Receiver(_) => wrappable = false,
                syn::FnArg::Typed(typed) => {
                    let name = match &*typed.pat {
                        Pat::Ident(p) if p.subpat.is_none() => p.ident.to_string(),
                        _ => format!("arg{i}"),
                    };
                    let mut unwritable = Unwritable(false);
                    unwritable.visit_type(&typed.ty);
                    wrappable &= !unwritable.0;
                    params.push((name, text_of(&*typed.ty)));
                }
            }
        }
        FnShape { params, wrappable }
    }
}

/// Whether a type cannot be written as a closure parameter's type.
struct Unwritable(bool);

impl Visit<'_> for Unwritable {
    fn visit_type(&mut self, ty: &syn::Type) {
        match ty {
            syn::Type::ImplTrait(_) | syn::Type::Infer(_) | syn::Type::Macro(_) => self.0 = true,
            _ => visit::visit_type(self, ty),
        }
    }

    fn visit_lifetime(&mut self, lifetime: &syn::Lifetime) {
        self.0 |= lifetime.ident != "static";
    }
}

impl SourceIndex {
    /// Index the `pipeline!` calls of a file's source. `None` when it
    /// does not parse (then every name is left to rustc).
    pub fn parse(source: &str) -> Option<SourceIndex> {
        let file = syn::parse_file(source).ok()?;
        Some(SourceIndex {
            calls: scope::calls_of(&file),
        })
    }

    /// How many `pipeline!` calls the file has (nested in other macros'
    /// tokens included).
    pub fn calls(&self) -> usize {
        self.calls.len()
    }

    /// The meanings of the bare names of the call whose tokens are
    /// `input`. A call written twice with the same tokens keeps only the
    /// meanings both places agree on; a call not in the file has none.
    pub(crate) fn names_of(&self, input: &TokenStream) -> Names {
        let wanted = leaves(input.clone());
        let mut matching = self.calls.iter().filter(|call| call.leaves == wanted);
        let Some(first) = matching.next() else {
            return Names::new();
        };
        let mut names = first.names.clone();
        for other in matching {
            names.retain(|name, meaning| other.names.get(name) == Some(meaning));
        }
        names
    }
}

/// Put the library's words on the bare names of `body` that `names` gives
/// a meaning: one error each, and the node repaired so that no other error
/// follows (a local becomes the value `(name)`; a plain function of one
/// parameter the closure that the help suggests; one of more or fewer
/// parameters is left out of the chain, and a stage it leaves empty is
/// left out too, as if not written).
pub(crate) fn reword(body: &mut Body, names: &Names, errors: &mut Vec<syn::Error>) {
    if names.is_empty() {
        return;
    }
    body.entries.retain_mut(|entry| match entry {
        // A bare path under `collate:` is a value already.
        Entry::Stage(stage) if stage.keyword == "collate" => true,
        Entry::Stage(stage) => {
            let written = stage.nodes.len();
            stage
                .nodes
                .retain_mut(|node| reword_node(node, names, errors) == Repair::Keep);
            written == 0 || !stage.nodes.is_empty()
        }
        Entry::Parallel(parallel) => {
            for branch in &mut parallel.branches {
                reword(&mut branch.body, names, errors);
            }
            true
        }
    });
}

/// What becomes of a node after [`reword_node`].
#[derive(Debug, PartialEq, Eq)]
enum Repair {
    /// It stays in the chain (as written, or repaired).
    Keep,
    /// It is left out of the chain.
    Drop,
}

fn reword_node(node: &mut Expr, names: &Names, errors: &mut Vec<syn::Error>) -> Repair {
    let ident = match &*node {
        Expr::Path(ExprPath {
            attrs,
            qself: None,
            path,
        }) if attrs.is_empty() => match path.get_ident() {
            Some(ident) => ident.clone(),
            None => return Repair::Keep,
        },
        _ => return Repair::Keep,
    };
    let name = ident.to_string();
    match names.get(&name) {
        Some(Meaning::Local) => {
            errors.push(rule_error(
                ident.span(),
                Rule::NodeInVariable,
                &[("name", &name)],
            ));
            *node = Expr::Paren(syn::ExprParen {
                attrs: Vec::new(),
                paren_token: syn::token::Paren(ident.span()),
                expr: Box::new(node.clone()),
            });
            Repair::Keep
        }
        Some(Meaning::PlainFn(shape)) => {
            let closure = shape.closure(&name);
            errors.push(rule_error(
                ident.span(),
                Rule::PlainFunctionNode,
                &[("name", &name), ("closure", &closure)],
            ));
            if shape.params.len() != 1 {
                // Its one input is not what the node before it gives
                // (that is the mistake): left out, the chain goes on.
                return Repair::Drop;
            }
            if let Some(repaired) = parse_at(&closure, ident.span()) {
                *node = repaired;
            }
            Repair::Keep
        }
        None => Repair::Keep,
    }
}

/// `text` as an expression whose every token is at `span`.
fn parse_at(text: &str, span: Span) -> Option<Expr> {
    let tokens: TokenStream = text.parse().ok()?;
    syn::parse2(respan(tokens, span)).ok()
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(group) => {
                let mut new =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                new.set_span(span);
                TokenTree::Group(new)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// A token stream as the texts of its leaves and delimiters, so that a
/// call's tokens as the macro receives them and as the file's parse gives
/// them compare equal whatever their spacing and spans.
fn leaves(tokens: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    push_leaves(tokens, &mut out);
    out
}

fn push_leaves(tokens: TokenStream, out: &mut Vec<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                if !open.is_empty() {
                    out.push(open.to_owned());
                }
                push_leaves(group.stream(), out);
                if !close.is_empty() {
                    out.push(close.to_owned());
                }
            }
            TokenTree::Ident(ident) => out.push(ident.to_string()),
            TokenTree::Punct(punct) => out.push(punct.as_char().to_string()),
            TokenTree::Literal(literal) => out.push(literal.to_string()),
        }
    }
}

mod scope;
#[cfg(test)]
mod tests;

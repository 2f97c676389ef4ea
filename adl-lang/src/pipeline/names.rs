//! Names: what the file around a `pipeline!` says a bare name is, so that
//! two mistakes that rustc reports as name-resolution errors
//! (`error[E0574]: expected struct, variant or union type, found ...`) are
//! reported in the library's words instead, and repaired so that the
//! expansion goes on:
//!
//! - a plain `fn` (no `#[transform]`) used as a node: rule
//!   `plain_function_node`, repaired as the closure its help suggests
//!   ([`closure`]);
//! - a node value in a local variable written bare (`norm` for `(norm)`):
//!   rule `node_in_variable`, repaired as the value.
//!
//! A procedural macro sees only its own tokens. The entry point reads the
//! file it is called from (`proc_macro::Span::local_file`, Rust 1.88) and
//! hands it to [`SourceIndex::parse`]: the file's `pipeline!` calls, each
//! with what its bare names are where it stands ([`scope`]: Rust's
//! scoping of modules, blocks, `let`s before the call, parameters,
//! closures, match arms; a function's locals end at a nested `fn`).
//!
//! The index is conservative: a name has a meaning only where rustc is
//! certain to refuse the node type `name {}`, and is otherwise left to
//! rustc (its own words, as before). See [`scope`] for what leaves a name
//! to rustc. Where the file cannot be read or parsed, or the call is not
//! written in it as the macro receives it, nothing changes.

use std::collections::HashMap;
use std::collections::hash_map::Entry as Slot;

use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::{Expr, ExprPath};

use super::generate::closure_node_type;
use super::parse::{Body, Entry};
use crate::diagnostic::rule_error;
use crate::{Rule, Section, Stage};

mod closure;
mod scope;
#[cfg(test)]
mod tests;

pub(crate) use closure::FnShape;

/// Files nesting brackets deeper than this are not indexed: the parse
/// recurses as deep, on the compiler's stack.
const DEEPEST_NESTING: usize = 128;

/// What a source file says about the bare names of each of its
/// `pipeline!` calls. Built once per file by the macro's entry point
/// ([`SourceIndex::parse`]) and handed to
/// [`expand_in`](super::expand_in) for each call in it.
#[derive(Debug)]
pub struct SourceIndex {
    /// By the call's flattened tokens (see [`leaves`]): the meanings its
    /// bare names have where it stands. Calls written alike keep the
    /// meanings they all agree on.
    calls: HashMap<Vec<String>, Names>,
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

impl SourceIndex {
    /// Files larger than this are not indexed (generated code, mostly):
    /// parsing them would cost more than the hint is worth.
    pub const LARGEST_FILE: usize = 1 << 20;

    /// Index the `pipeline!` calls of a file's source. `None` when it
    /// does not parse, or is too large or too deeply nested to parse
    /// cheaply (then every name is left to rustc).
    pub fn parse(source: &str) -> Option<SourceIndex> {
        if source.len() > Self::LARGEST_FILE || nesting(source) > DEEPEST_NESTING {
            return None;
        }
        let file = syn::parse_file(source).ok()?;
        let mut index = SourceIndex {
            calls: HashMap::new(),
        };
        for (leaves, names) in scope::calls_of(&file) {
            match index.calls.entry(leaves) {
                Slot::Vacant(slot) => {
                    slot.insert(names);
                }
                Slot::Occupied(mut slot) => {
                    slot.get_mut()
                        .retain(|name, meaning| names.get(name) == Some(meaning));
                }
            }
        }
        Some(index)
    }

    /// The meanings of the bare names of the call whose tokens are
    /// `input`; none for a call not written in the file as such.
    pub(crate) fn names_of(&self, input: &TokenStream) -> Names {
        self.calls
            .get(&leaves(input.clone()))
            .cloned()
            .unwrap_or_default()
    }
}

/// The deepest nesting of brackets in `source` (strings and comments
/// counted too: a bound, not a parse).
fn nesting(source: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for byte in source.bytes() {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A name as Rust compares names: `r#double` is `double`.
fn unraw(ident: &Ident) -> String {
    ident.unraw().to_string()
}

/// Whether `body` has a node that the index could say something about (a
/// bare name outside `collate:`): only then is the file worth reading.
pub(crate) fn has_bare_names(body: &Body) -> bool {
    body.entries.iter().any(|entry| match entry {
        Entry::Stage(stage) => {
            stage.keyword != "collate" && stage.nodes.iter().any(|n| bare_name(n).is_some())
        }
        Entry::Parallel(parallel) => parallel.branches.iter().any(|b| has_bare_names(&b.body)),
    })
}

/// The name of a node written as a bare identifier.
fn bare_name(node: &Expr) -> Option<&Ident> {
    match node {
        Expr::Path(ExprPath {
            attrs,
            qself: None,
            path,
        }) if attrs.is_empty() => path.get_ident(),
        _ => None,
    }
}

/// Put the library's words on the bare names of `body` that `names` gives
/// a meaning: one error each, and the node repaired so that the expansion
/// goes on (a local becomes the value `(name)`; a plain function of one
/// parameter the closure that the help suggests; one of more or fewer
/// parameters is left out of the chain, and so is one whose closure
/// cannot be typed before any node is kept (a collate or a keyed form with
/// no node before it gives a closure no input type either); a stage left empty
/// is left out too, as if not written). `krate` is the `adl` crate's path
/// as the help should write it.
pub(crate) fn reword(body: &mut Body, names: &Names, krate: &str, errors: &mut Vec<syn::Error>) {
    if !names.is_empty() {
        let mut first = true;
        reword_level(body, names, krate, &mut first, errors);
    }
}

fn reword_level(
    body: &mut Body,
    names: &Names,
    krate: &str,
    first: &mut bool,
    errors: &mut Vec<syn::Error>,
) {
    body.entries.retain_mut(|entry| match entry {
        // A bare path under `collate:` is a value already.
        Entry::Stage(stage) if stage.keyword == "collate" => true,
        Entry::Stage(stage) => {
            // The closure node type of the stage, as `generate` picks it.
            let stands_in = Section::from_keyword(&stage.keyword.to_string())
                .map_or(Stage::Sample, Section::stands_in);
            let wrapper = closure_node_type(stands_in);
            let at = Site {
                names,
                wrapper: format!("{krate}::graph::{wrapper}"),
            };
            let written = stage.nodes.len();
            stage.nodes.retain_mut(|node| {
                let repair = at.reword_node(node, *first, errors);
                *first &= repair == Repair::Drop;
                repair == Repair::Keep
            });
            written == 0 || !stage.nodes.is_empty()
        }
        Entry::Parallel(parallel) => {
            for branch in &mut parallel.branches {
                reword_level(&mut branch.body, names, krate, first, errors);
            }
            true
        }
    });
}

/// What becomes of a node after [`Site::reword_node`].
#[derive(Debug, PartialEq, Eq)]
enum Repair {
    /// It stays in the chain (as written, or repaired).
    Keep,
    /// It is left out of the chain.
    Drop,
}

/// Where nodes are reworded: the names, and the closure node type of the
/// stage (for the help of `node_in_variable`).
struct Site<'n> {
    names: &'n Names,
    wrapper: String,
}

impl Site<'_> {
    /// Reword one node; `first`: no node is kept before it (nothing gives
    /// a closure its input type).
    fn reword_node(&self, node: &mut Expr, first: bool, errors: &mut Vec<syn::Error>) -> Repair {
        let Some(ident) = bare_name(node).cloned() else {
            return Repair::Keep;
        };
        let name = unraw(&ident);
        match self.names.get(&name) {
            Some(Meaning::Local) => {
                let written = ident.to_string();
                errors.push(rule_error(
                    ident.span(),
                    Rule::NodeInVariable,
                    &[("name", &written), ("wrapper", &self.wrapper)],
                ));
                *node = Expr::Paren(syn::ExprParen {
                    attrs: Vec::new(),
                    paren_token: syn::token::Paren(ident.span()),
                    expr: Box::new(node.clone()),
                });
                Repair::Keep
            }
            Some(Meaning::PlainFn(shape)) => {
                let closure = shape.closure();
                errors.push(rule_error(
                    ident.span(),
                    Rule::PlainFunctionNode,
                    &[("name", &ident.to_string()), ("closure", &closure)],
                ));
                // More or fewer parameters than one: its one input is not
                // what the node before it gives (that is the mistake), so
                // it is left out and the chain goes on.
                if shape.arity() != 1 || (first && !shape.typed()) {
                    return Repair::Drop;
                }
                match parse_at(&closure, ident.span()) {
                    Some(repaired) => {
                        *node = repaired;
                        Repair::Keep
                    }
                    None => Repair::Drop,
                }
            }
            None => Repair::Keep,
        }
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
            TokenTree::Ident(ident) => out.push(unraw(&ident)),
            TokenTree::Punct(punct) => out.push(punct.as_char().to_string()),
            TokenTree::Literal(literal) => out.push(literal.to_string()),
        }
    }
}

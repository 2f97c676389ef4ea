//! Parse: the tokens of `pipeline! { ... }` into a syntax tree ([`Body`]),
//! keeping every entry that parses and collecting a spanned error for each
//! one that does not.
//!
//! The grammar (one level; branches nest it):
//!
//! ```text
//! body     := entry ("," entry)* ","?        |  keyed-branches
//! entry    := IDENT ":" chain?                 a stage: pre, sample, collate, batch, post
//!           | form                             a parallel form over the fields (or keys) of TYPE
//!           | "{" keyed-branches "}"           a parallel form over keys
//! form     := TYPE ("=>" TYPE)? "{" branches "}"   the sample type, and the batch struct's
//! chain    := node ("->" node)*
//! branches := branch ("," branch)* ","?
//! branch   := (IDENT | STRING) ":" value       the field or key, and its pipeline
//! value    := "{" body "}"  |  form
//! ```
//!
//! `=>` between the sample type and the batch struct reads as a match
//! arm does, "a `Frame` becomes a `FrameBatch`": it ends a type for syn
//! (so both types parse as written, generics included), and it cannot be
//! confused with a node, a stage or a branch. (`->` chains nodes; `as`
//! would read as a cast.)
//!
//! Nodes are Rust expressions. Since `a -> b` is no Rust expression (syn
//! would read `a - (>b)`), the chain arrows of a level are first rewritten
//! to `=>`, which ends an expression; the arrow of a closure's return type
//! (`|x: T| -> U { ... }`, right after a `|`) is kept.

use proc_macro2::{Delimiter, Punct, Spacing, Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitStr, Token, Type};

/// One level of a pipeline: the macro's body, or the body of a branch.
pub(crate) struct Body {
    /// Where a missing collate is reported: the macro call, or the braces
    /// of the branch.
    pub(crate) span: Span,
    /// The entries, in order.
    pub(crate) entries: Vec<Entry>,
}

/// One entry of a [`Body`].
pub(crate) enum Entry {
    /// `keyword: a -> b -> c`.
    Stage(StageEntry),
    /// `Frame { radar: { ... }, ... }` or `{ "radar": { ... }, ... }`.
    Parallel(Box<Parallel>),
}

/// `keyword: a -> b -> c` (the keyword is not checked yet).
pub(crate) struct StageEntry {
    /// The stage's name as written.
    pub(crate) keyword: Ident,
    /// The nodes of the chain, in order (empty: `keyword:` alone).
    pub(crate) nodes: Vec<Expr>,
}

/// A parallel form: one branch per field (or key) of the sample.
pub(crate) struct Parallel {
    /// The sample type, `Frame` in `Frame { ... }`; none for `{ "k": ... }`.
    pub(crate) ty: Option<Type>,
    /// The batch struct, `FrameBatch` in `Frame => FrameBatch { ... }`.
    pub(crate) batch: Option<Type>,
    /// The form's first token.
    pub(crate) span: Span,
    /// The braces around the branches.
    pub(crate) braces: Span,
    /// The branches, in order.
    pub(crate) branches: Vec<Branch>,
}

/// `name: { ... }` inside a parallel form.
pub(crate) struct Branch {
    /// The field or key; none when the branch has no name.
    pub(crate) name: Option<BranchName>,
    /// The branch's pipeline.
    pub(crate) body: Body,
    /// The branch's value, for errors about the branch as a whole.
    pub(crate) span: Span,
}

/// A branch's name.
pub(crate) enum BranchName {
    /// A field of the sample type: `radar:`.
    Field(Ident),
    /// A key of a keyed sample: `"radar":`.
    Key(LitStr),
}

impl BranchName {
    /// The name as text.
    pub(crate) fn text(&self) -> String {
        match self {
            BranchName::Field(ident) => ident.to_string(),
            BranchName::Key(lit) => lit.value(),
        }
    }

    /// The name's token.
    pub(crate) fn span(&self) -> Span {
        match self {
            BranchName::Field(ident) => ident.span(),
            BranchName::Key(lit) => lit.span(),
        }
    }
}

/// Parse the macro's input. Returns what parsed, and an error for each
/// piece that did not.
pub(crate) fn parse(input: TokenStream) -> (Body, Vec<syn::Error>) {
    let mut errors = Vec::new();
    let body = parse_level(input, Span::call_site(), &mut errors);
    (body, errors)
}

/// Split off an optional leading `crate = path;`: the path of the `adl`
/// crate (default `::adl`), the rest of the tokens, and an error if the
/// entry is malformed.
pub(crate) fn crate_path(input: TokenStream) -> (syn::Path, TokenStream, Vec<syn::Error>) {
    let default: syn::Path = syn::parse_quote!(::adl);
    let mut trees = input.clone().into_iter();
    let starts_with_crate = matches!(trees.next(), Some(TokenTree::Ident(i)) if i == "crate")
        && matches!(trees.next(), Some(TokenTree::Punct(p)) if p.as_char() == '=');
    if !starts_with_crate {
        return (default, input, Vec::new());
    }
    let parser = |stream: ParseStream| {
        stream.parse::<syn::Token![crate]>()?;
        stream.parse::<syn::Token![=]>()?;
        let path: syn::Path = stream.parse()?;
        stream.parse::<syn::Token![;]>()?;
        let rest: TokenStream = stream.parse()?;
        Ok((path, rest))
    };
    match parser.parse2(input) {
        Ok((path, rest)) => (path, rest, Vec::new()),
        Err(error) => (default, TokenStream::new(), vec![error]),
    }
}

/// Parse one level's tokens (its arrows not yet rewritten).
fn parse_level(tokens: TokenStream, span: Span, errors: &mut Vec<syn::Error>) -> Body {
    let mut entries = Vec::new();
    let parser = |input: ParseStream| {
        body(input, &mut entries, errors);
        Ok(())
    };
    // `body` consumes every token, so this cannot fail.
    let _ = parser.parse2(rewrite_arrows(tokens));
    Body { span, entries }
}

/// Rewrite the chain arrows `->` of one level (outside any group) to
/// `=>`, keeping their spans; an arrow right after `|` is a closure's
/// return type and stays.
fn rewrite_arrows(tokens: TokenStream) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    // Between a closure's two `|`, arrows belong to parameter types
    // (`|f: fn(i64) -> i64| ...`): the state resets at each entry (`,`).
    let mut in_closure_params = false;
    let mut iter = tokens.into_iter().peekable();
    while let Some(tree) = iter.next() {
        if let TokenTree::Punct(p) = &tree {
            match p.as_char() {
                '|' => in_closure_params = !in_closure_params,
                ',' => in_closure_params = false,
                _ => {}
            }
        }
        if let TokenTree::Punct(minus) = &tree
            && minus.as_char() == '-'
            && minus.spacing() == Spacing::Joint
            && !in_closure_params
            && let Some(TokenTree::Punct(gt)) = iter.peek()
            && gt.as_char() == '>'
            && !matches!(out.last(), Some(TokenTree::Punct(p)) if p.as_char() == '|')
        {
            let mut eq = Punct::new('=', Spacing::Joint);
            eq.set_span(minus.span());
            out.push(TokenTree::Punct(eq));
            continue; // the `>` follows as is
        }
        out.push(tree);
    }
    out.into_iter().collect()
}

/// Skip to the next `,` of this level (or its end), after an error.
fn skip_entry(input: ParseStream) {
    while !input.is_empty() && !input.peek(Token![,]) {
        let _ = input.parse::<TokenTree>();
    }
}

/// `body := entry ("," entry)* ","? | keyed-branches`.
fn body(input: ParseStream, entries: &mut Vec<Entry>, errors: &mut Vec<syn::Error>) {
    if input.peek(LitStr) {
        // The level is a keyed parallel form by itself: `"radar": { ... }`.
        let span = input.span();
        let branches = branches(input, errors);
        entries.push(Entry::Parallel(Box::new(Parallel {
            ty: None,
            batch: None,
            span,
            braces: span,
            branches,
        })));
        return;
    }
    entries.extend(separated(
        input,
        errors,
        entry,
        "expected `,` between two entries, or `->` between two nodes",
    ));
}

/// `item ("," item)* ","?`, with error recovery: an item that does not
/// parse, or a missing comma (reported with `missing_comma`), skips to the
/// next entry and parsing goes on.
fn separated<T>(
    input: ParseStream,
    errors: &mut Vec<syn::Error>,
    mut item: impl FnMut(ParseStream, &mut Vec<syn::Error>) -> syn::Result<T>,
    missing_comma: &str,
) -> Vec<T> {
    let mut out = Vec::new();
    while !input.is_empty() {
        match item(input, errors) {
            Ok(x) => out.push(x),
            Err(e) => {
                errors.push(e);
                skip_entry(input);
            }
        }
        if input.is_empty() {
            break;
        }
        if input.peek(Token![,]) {
            let _ = input.parse::<Token![,]>();
        } else {
            errors.push(input.error(missing_comma));
            skip_entry(input);
            let _ = input.parse::<Token![,]>();
        }
    }
    out
}

/// Whether the input starts with `ident :` (and not `ident ::`).
fn peek_named(input: ParseStream) -> bool {
    input.peek(Ident) && input.peek2(Token![:]) && !input.peek2(Token![::])
}

/// One entry of a body.
fn entry(input: ParseStream, errors: &mut Vec<syn::Error>) -> syn::Result<Entry> {
    if peek_named(input) {
        let keyword: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let nodes = if input.is_empty() || input.peek(Token![,]) {
            Vec::new()
        } else {
            chain(input)?
        };
        return Ok(Entry::Stage(StageEntry { keyword, nodes }));
    }
    if input.peek(syn::token::Brace) {
        let (group, span) = brace_group(input)?;
        let branches = nested_branches(group, errors);
        return Ok(Entry::Parallel(Box::new(Parallel {
            ty: None,
            batch: None,
            span,
            braces: span,
            branches,
        })));
    }
    let start = input.span();
    let ty: Type = input.parse().map_err(|_| {
        syn::Error::new(
            start,
            "expected a stage (`sample: ...`) or a parallel form (`Frame { field: { ... } }`, `{ \"key\": { ... } }`)",
        )
    })?;
    let batch = batch_struct(input, errors)?;
    if !input.peek(syn::token::Brace) {
        return Err(syn::Error::new(
            batch.as_ref().unwrap_or(&ty).span(),
            "expected a stage (`sample: ...`) or a parallel form: the sample type, then its branches in braces, `Frame { field: { ... } }`",
        ));
    }
    let (group, braces) = brace_group(input)?;
    let branches = nested_branches(group, errors);
    Ok(Entry::Parallel(Box::new(Parallel {
        ty: Some(ty),
        batch,
        span: start,
        braces,
        branches,
    })))
}

/// `=> TYPE` after a form's sample type: the batch struct, if named. A
/// `=>` right before the branches is reported, and the form read without
/// it.
fn batch_struct(input: ParseStream, errors: &mut Vec<syn::Error>) -> syn::Result<Option<Type>> {
    if !input.peek(Token![=>]) {
        return Ok(None);
    }
    let arrow: Token![=>] = input.parse()?;
    if input.peek(syn::token::Brace) {
        errors.push(syn::Error::new_spanned(
            arrow,
            "expected the batch struct after `=>`: `Frame => FrameBatch { ... }`",
        ));
        return Ok(None);
    }
    let start = input.span();
    input.parse().map(Some).map_err(|_| {
        syn::Error::new(
            start,
            "expected the batch struct after `=>`: `Frame => FrameBatch { ... }`",
        )
    })
}

/// `chain := node ("->" node)*` (arrows already rewritten to `=>`).
fn chain(input: ParseStream) -> syn::Result<Vec<Expr>> {
    let mut nodes = vec![node(input)?];
    while input.peek(Token![=>]) {
        input.parse::<Token![=>]>()?;
        nodes.push(node(input)?);
    }
    Ok(nodes)
}

/// One node: any Rust expression.
fn node(input: ParseStream) -> syn::Result<Expr> {
    if input.is_empty() || input.peek(Token![,]) || input.peek(Token![=>]) {
        return Err(input.error("expected a node after `->`"));
    }
    input.parse()
}

/// A `{ ... }` group, as its tokens and its span.
fn brace_group(input: ParseStream) -> syn::Result<(TokenStream, Span)> {
    match input.parse::<TokenTree>()? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => Ok((g.stream(), g.span())),
        other => Err(syn::Error::new(other.span(), "expected `{`")),
    }
}

/// The branches inside the braces of a parallel form.
fn nested_branches(tokens: TokenStream, errors: &mut Vec<syn::Error>) -> Vec<Branch> {
    let mut out = Vec::new();
    let parser = |input: ParseStream| {
        out = branches(input, errors);
        Ok(())
    };
    let _ = parser.parse2(tokens);
    out
}

/// `branches := branch ("," branch)* ","?`.
fn branches(input: ParseStream, errors: &mut Vec<syn::Error>) -> Vec<Branch> {
    separated(input, errors, branch, "expected `,` between two branches")
}

/// `branch := (IDENT | STRING) ":" value`, or a value without a name.
fn branch(input: ParseStream, errors: &mut Vec<syn::Error>) -> syn::Result<Branch> {
    let name = if peek_named(input) {
        let ident: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        Some(BranchName::Field(ident))
    } else if input.peek(LitStr) && input.peek2(Token![:]) {
        let lit: LitStr = input.parse()?;
        input.parse::<Token![:]>()?;
        Some(BranchName::Key(lit))
    } else {
        None
    };
    let span = input.span();
    let body = if input.peek(syn::token::Brace) {
        let (group, braces) = brace_group(input)?;
        parse_level(group, braces, errors)
    } else {
        let ty: Type = input.parse().map_err(|_| {
            let what = if name.is_some() {
                "expected the branch's pipeline: `{ sample: ..., collate: ..., batch: ... }`"
            } else {
                "expected a branch: `field: { sample: ..., collate: ..., batch: ... }`"
            };
            syn::Error::new(span, what)
        })?;
        let batch = batch_struct(input, errors)?;
        if !input.peek(syn::token::Brace) {
            return Err(syn::Error::new(
                batch.as_ref().unwrap_or(&ty).span(),
                "expected the branch's pipeline in braces, or a nested parallel form `Type { ... }`",
            ));
        }
        let (group, braces) = brace_group(input)?;
        let branches = nested_branches(group, errors);
        Body {
            span,
            entries: vec![Entry::Parallel(Box::new(Parallel {
                ty: Some(ty),
                batch,
                span,
                braces,
                branches,
            }))],
        }
    };
    Ok(Branch { name, body, span })
}

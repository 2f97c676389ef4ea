//! Check: the syntax tree against the composition rules of
//! `adl::graph::Rule` (the table of `adl-rules`) (everything that the tokens alone show), into
//! the model that [`generate`](super::generate) expands.
//!
//! Every broken rule is reported, spanned at the offending token, with the
//! rule's own message. The model is repaired as it goes (the first of two
//! collates is kept, a duplicate stage or branch is left out, a missing
//! collate becomes the identity collate) so that the expansion can still
//! be generated and an IDE keeps resolving names. What only types show (a
//! node's stage, neighbours' types) is left to the assertions that the
//! expansion emits.

use std::collections::HashMap;

use crate::Rule;
pub(crate) use crate::Section;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Type};

use super::parse::{Body, BranchName, Entry, Parallel};
use crate::Stage;
use crate::check::{self as rules, Core as WrittenCore, Finding, Step};
use crate::diagnostic::rule_error;
use crate::site::Token;

/// The pipeline as written, as the one checker of the composition rules
/// reads it (`crate::check`): nodes by the stage they stand in, located at
/// their tokens; types are left to rustc.
type Written = rules::Level<Token, ()>;

/// How a node is written, which says how it becomes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeKind {
    /// A bare path `flip`: a `#[transform]` node type, the value `flip {}`.
    Type,
    /// A closure: an anonymous node of the stage it stands in.
    Closure {
        /// Whether every parameter has a type annotation.
        typed: bool,
    },
    /// Any other expression, used as the node value (`normalize(0.5)`).
    Value,
}

/// One node, checked.
pub(crate) struct NodeRef {
    /// The node as written.
    pub(crate) expr: Expr,
    /// How it is written.
    pub(crate) kind: NodeKind,
    /// Where it is written.
    pub(crate) span: Span,
}

impl NodeRef {
    fn new(expr: Expr) -> Self {
        let kind = match &expr {
            Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => NodeKind::Type,
            Expr::Closure(c) => NodeKind::Closure {
                typed: c.inputs.iter().all(|p| matches!(p, syn::Pat::Type(_))),
            },
            _ => NodeKind::Value,
        };
        let span = expr.span();
        NodeRef { expr, kind, span }
    }
}

/// The collate of a level, checked.
pub(crate) struct CollateRef {
    /// The collate as written.
    pub(crate) expr: Expr,
    /// Its name in the description: `default`, or the expression's text.
    pub(crate) name: String,
    /// Where it is written.
    pub(crate) span: Span,
}

/// What a level collates with.
pub(crate) enum Core {
    /// `collate: c`.
    Collate(CollateRef),
    /// A parallel form: each branch collates.
    Parallel(ParallelModel),
    /// No collate (an error was reported): the identity collate stands in.
    Missing,
}

/// What a parallel form routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Routing {
    /// The fields of a struct sample.
    Fields,
    /// The keys of a keyed sample.
    Keys,
}

/// A parallel form, checked.
pub(crate) struct ParallelModel {
    /// The sample type, where written.
    pub(crate) ty: Option<Type>,
    /// Fields or keys.
    pub(crate) routing: Routing,
    /// The branches, each with its name's token (a field's ident, or the
    /// key as an ident-free span).
    pub(crate) branches: Vec<BranchModel>,
}

/// One branch, checked.
pub(crate) struct BranchModel {
    /// The field or key.
    pub(crate) name: String,
    /// The field's ident (fields only).
    pub(crate) field: Option<Ident>,
    /// The branch's pipeline.
    pub(crate) level: Level,
}

/// One level of the pipeline, checked: what the expansion builds.
pub(crate) struct Level {
    /// Nodes under `pre:`.
    pub(crate) pre: Vec<NodeRef>,
    /// Nodes under `sample:`.
    pub(crate) sample: Vec<NodeRef>,
    /// The collate, or the branches.
    pub(crate) core: Core,
    /// Nodes under `batch:`.
    pub(crate) batch: Vec<NodeRef>,
    /// Nodes under `post:`.
    pub(crate) post: Vec<NodeRef>,
    /// Nodes left out of the pipeline (under an unknown or repeated
    /// stage): still evaluated, so that their names resolve.
    pub(crate) unused: Vec<NodeRef>,
    /// Collates left out of the pipeline (a second collate): the same.
    pub(crate) unused_collates: Vec<CollateRef>,
}

/// Check the macro's body. Returns the model and every broken rule.
pub(crate) fn check(body: &Body) -> (Level, Vec<syn::Error>) {
    let mut errors = Vec::new();
    let (level, written) = level(body, None, &mut errors);
    // The composition rules (one collate per path, branches), by the
    // checker that `Description::check` and the planner use too.
    errors.extend(
        rules::check_level(&written, &Token(body.span))
            .into_iter()
            .map(finding_error),
    );
    (level, errors)
}

/// A finding of the checker as a compile error: its message, then the
/// rule's help.
fn finding_error(finding: Finding<Token>) -> syn::Error {
    syn::Error::new(
        finding.at.0,
        format!("{}\n\n= help: {}", finding.message, finding.rule.help()),
    )
}

/// A node as written, standing in `stands_in`: `default` is known to be a
/// collate (it stands nowhere else); other nodes' stages are rustc's to
/// check.
fn written_step(node: &NodeRef, stands_in: Stage) -> Step<Token, ()> {
    Step {
        name: text_of(&node.expr),
        is: is_default(node).then_some(Stage::Collate),
        stands_in,
        input: None,
        output: None,
        site: Token(node.span),
    }
}

/// The text of an expression, for names and docs: its tokens, spaced as
/// people write them (`collate_fn(stack::<f32>)`, `|x: i64| x + 1`).
pub(crate) fn text_of(tokens: &impl ToTokens) -> String {
    let mut out = String::new();
    write_tokens(tokens.to_token_stream(), &mut out);
    out
}

/// What the previous token was, for spacing.
#[derive(Clone, Copy, PartialEq)]
enum Prev {
    Start,
    Word,
    /// A punctuation character, and whether it joins the next one.
    Punct(char, bool),
    /// A `(...)` or `[...]` group.
    Call,
    /// A `{...}` group.
    Block,
}

fn write_tokens(tokens: TokenStream, out: &mut String) {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    let mut prev = Prev::Start;
    // Inside closure parameters `|...|`; depth of turbofish generics.
    let mut params = false;
    let mut generics = 0usize;
    let mut colons = false; // the previous two tokens were `::`
    for tree in tokens {
        let (text, this) = match &tree {
            TokenTree::Group(g) => {
                let mut inner = String::new();
                write_tokens(g.stream(), &mut inner);
                match g.delimiter() {
                    Delimiter::Parenthesis => (format!("({inner})"), Prev::Call),
                    Delimiter::Bracket => (format!("[{inner}]"), Prev::Call),
                    Delimiter::Brace if inner.is_empty() => ("{}".to_owned(), Prev::Block),
                    Delimiter::Brace => (format!("{{ {inner} }}"), Prev::Block),
                    Delimiter::None => (inner, Prev::Word),
                }
            }
            TokenTree::Ident(i) => (i.to_string(), Prev::Word),
            TokenTree::Literal(l) => (l.to_string(), Prev::Word),
            TokenTree::Punct(p) => (
                p.as_char().to_string(),
                Prev::Punct(p.as_char(), p.spacing() == Spacing::Joint),
            ),
        };
        let space = match (prev, this) {
            (Prev::Start, _) => false,
            (Prev::Punct(_, true), Prev::Punct(..)) => false,
            (_, Prev::Punct(',' | ';' | '.' | '?', _)) => false,
            (_, Prev::Punct(':', _)) => false,
            (Prev::Punct(':', _), _) if colons => false,
            (_, Prev::Punct('<', _)) if params || generics > 0 => false,
            (Prev::Punct('<', _), _) if generics > 0 => false,
            (_, Prev::Punct('>', _)) if generics > 0 => false,
            (Prev::Punct('.' | '&' | '!' | '#', _), _) => false,
            (Prev::Punct('|', _), _) if params => false,
            (_, Prev::Punct('|', _)) if params => false,
            (Prev::Word | Prev::Call | Prev::Punct('>', _), Prev::Call)
                if matches!(&tree, TokenTree::Group(_)) =>
            {
                false
            }
            _ => true,
        };
        if space {
            out.push(' ');
        }
        out.push_str(&text);
        // Track `::`, turbofish generics and closure parameters.
        match this {
            Prev::Punct('<', _) if colons || params || generics > 0 => generics += 1,
            Prev::Punct('>', _) if generics > 0 => generics -= 1,
            Prev::Punct('|', _) if params => params = false,
            Prev::Punct('|', joint)
                if !joint
                    && (prev == Prev::Start
                        || matches!(&prev, Prev::Word) && out.ends_with("move |")) =>
            {
                params = true
            }
            _ => {}
        }
        colons = matches!(this, Prev::Punct(':', _)) && matches!(prev, Prev::Punct(':', true));
        prev = this;
    }
}

/// The name of the collate `expr` in the description.
fn collate_name(expr: &Expr) -> String {
    text_of(expr)
}

/// The form `Frame { .. }` or `{ .. }`, as the rules name it.
fn form_text(parallel: &Parallel) -> String {
    match &parallel.ty {
        Some(ty) => format!("{} {{ .. }}", text_of(ty)),
        None => "{ .. }".to_owned(),
    }
}

/// Check one level: `path` names it (`None`: the whole pipeline). Gives
/// the repaired model and the level as written (for the rules checker).
fn level(body: &Body, path: Option<&str>, errors: &mut Vec<syn::Error>) -> (Level, Written) {
    let mut written = Written::default();
    let mut out = Level {
        pre: Vec::new(),
        sample: Vec::new(),
        core: Core::Missing,
        batch: Vec::new(),
        post: Vec::new(),
        unused: Vec::new(),
        unused_collates: Vec::new(),
    };
    let mut seen: HashMap<Section, Ident> = HashMap::new();
    // The latest section so far (by order), and how it was written.
    let mut latest: Option<(Section, String)> = None;
    // The first entry that collates: its name.
    let mut collated: Option<String> = None;
    let mut in_order = |section: Section, span: Span, errors: &mut Vec<syn::Error>| match &latest {
        Some((after, word)) if *after > section => {
            errors.push(rule_error(
                span,
                Rule::StageOrder,
                &[("stage", section.keyword()), ("after", word)],
            ));
        }
        _ => latest = Some((section, section.keyword().to_owned())),
    };
    // The stages this level writes: a misspelt stage is read as one of
    // the others only.
    let written_elsewhere: Vec<Section> = body
        .entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Stage(stage) => Section::from_keyword(&stage.keyword.to_string()),
            Entry::Parallel(_) => Some(Section::Collate),
        })
        .collect();
    for entry in &body.entries {
        match entry {
            Entry::Stage(stage) => {
                let given = stage.keyword.to_string();
                let nodes: Vec<NodeRef> = stage.nodes.iter().cloned().map(NodeRef::new).collect();
                // A misspelt stage is read as the stage it is closest to
                // (and not given otherwise): one mistake, one error, not
                // also the types that its nodes' absence would break.
                let mut guessed = false;
                let section = match Section::from_keyword(&given) {
                    Some(section) => section,
                    None => {
                        guessed = true;
                        let meant = closest_section(&given)
                            .filter(|s| !written_elsewhere.contains(s) && !seen.contains_key(s));
                        errors.push(unknown_stage(stage.keyword.span(), &given, meant));
                        match meant {
                            Some(meant) => meant,
                            None => {
                                // A `default` there was the collate: its
                                // absence is the same mistake.
                                written.collate_reported |= nodes.iter().any(is_default);
                                out.unused.extend(no_collates(nodes));
                                continue;
                            }
                        }
                    }
                };
                if seen.contains_key(&section) {
                    errors.push(if section == Section::Collate {
                        // Chaining collates is `collate_once`: the help
                        // says to keep one.
                        let args = [("stage", section.keyword())];
                        syn::Error::new(
                            stage.keyword.span(),
                            format!(
                                "{}\n\n= help: keep one `collate:`; a pipeline collates exactly once",
                                Rule::DuplicateStage.render(&args)
                            ),
                        )
                    } else {
                        rule_error(
                            stage.keyword.span(),
                            Rule::DuplicateStage,
                            &[("stage", section.keyword())],
                        )
                    });
                    // A repeated stage's nodes are chained after the
                    // first's (what the help says to write), except a
                    // second collate, which the first replaces.
                    match (written_nodes(&mut written, section), out.nodes(section)) {
                        (Some(steps), Some(model)) => {
                            steps.extend(
                                nodes
                                    .iter()
                                    .map(|node| written_step(node, section.stands_in())),
                            );
                            model.extend(no_collates(nodes));
                        }
                        // A second `collate:`: its collates are still
                        // evaluated, as collates.
                        _ => out
                            .unused_collates
                            .extend(nodes.into_iter().map(|node| CollateRef {
                                name: collate_name(&node.expr),
                                expr: node.expr,
                                span: node.span,
                            })),
                    }
                    continue;
                }
                seen.insert(section, stage.keyword.clone());
                // A guessed stage out of place is the same one mistake.
                if !guessed {
                    in_order(section, stage.keyword.span(), errors);
                }
                if nodes.is_empty() {
                    errors.push(rule_error(
                        stage.keyword.span(),
                        Rule::EmptyStage,
                        &[("stage", section.keyword())],
                    ));
                    written.collate_reported |= section == Section::Collate;
                    continue;
                }
                let steps = nodes
                    .iter()
                    .map(|node| written_step(node, section.stands_in()));
                match written_nodes(&mut written, section) {
                    Some(list) => list.extend(steps),
                    None => written.cores.extend(steps.map(WrittenCore::Collate)),
                }
                match out.nodes(section) {
                    Some(list) => list.extend(no_collates(nodes)),
                    None => {
                        let mut nodes = nodes.into_iter();
                        let first = nodes.next().expect("a non-empty stage");
                        let name = collate_name(&first.expr);
                        // A second collate is the checker's `collate_once`;
                        // the model keeps the first.
                        for extra in nodes {
                            let second = collate_name(&extra.expr);
                            out.unused_collates.push(CollateRef {
                                expr: extra.expr,
                                name: second,
                                span: extra.span,
                            });
                        }
                        match &collated {
                            Some(_) => {
                                out.unused_collates.push(CollateRef {
                                    expr: first.expr,
                                    name,
                                    span: first.span,
                                });
                            }
                            None => {
                                collated = Some(name.clone());
                                out.core = Core::Collate(CollateRef {
                                    expr: first.expr,
                                    name,
                                    span: first.span,
                                });
                            }
                        }
                    }
                }
            }
            Entry::Parallel(parallel) => {
                // The form stands where `collate:` would (each branch
                // collates): a second one is a second collate.
                let (model, branches) = parallel_form(parallel, path, errors);
                written.cores.push(WrittenCore::Parallel {
                    name: form_text(parallel),
                    site: Token(parallel.span),
                    body: Token(parallel.braces),
                    branches,
                });
                match &collated {
                    // The checker's `collate_once`; the model keeps the first.
                    Some(_) => {}
                    None => {
                        in_order(Section::Collate, parallel.span, errors);
                        collated = Some(form_text(parallel));
                        out.core = Core::Parallel(model);
                    }
                }
            }
        }
    }
    // No collate: the default collate stands in (what most pipelines
    // collate with), so that the batch nodes' types are what was meant.
    // A `default` written under another stage was that collate: its error
    // (`collate_out_of_place`) is the one mistake, not also a missing one.
    if collated.is_none() {
        let displaced = [&written.pre, &written.sample, &written.batch, &written.post]
            .into_iter()
            .flatten()
            .any(|step| step.is == Some(Stage::Collate));
        written.collate_reported |= displaced;
        out.core = Core::Collate(CollateRef {
            expr: syn::parse_quote_spanned!(body.span=> default),
            name: "default".to_owned(),
            span: body.span,
        });
    }
    (out, written)
}

/// The section a misspelt stage keyword is closest to: at most two edits
/// away, and closer than any other.
fn closest_section(given: &str) -> Option<Section> {
    let mut by_distance: Vec<(usize, Section)> = Section::ALL
        .into_iter()
        .map(|s| (edit_distance(given, s.keyword()), s))
        .collect();
    by_distance.sort();
    match by_distance.as_slice() {
        [(d, s), (next, _), ..] if *d <= 2 && d < next => Some(*s),
        _ => None,
    }
}

/// Levenshtein distance between two words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(previous + 1).min(row[j] + 1);
        }
    }
    row[b.len()]
}

/// The `unknown_stage` error, with the stage it was read as.
fn unknown_stage(span: Span, given: &str, meant: Option<Section>) -> syn::Error {
    let rule = Rule::UnknownStage;
    let args = [("given", given)];
    let help = match meant {
        Some(meant) => format!(
            "did you mean `{}:`? (read as such here) {}",
            meant.keyword(),
            rule.render_help(&args)
        ),
        None => rule.render_help(&args),
    };
    syn::Error::new(span, format!("{}\n\n= help: {help}", rule.render(&args)))
}

/// The written nodes of a stage other than `collate:`.
fn written_nodes(written: &mut Written, section: Section) -> Option<&mut Vec<Step<Token, ()>>> {
    match section {
        Section::Pre => Some(&mut written.pre),
        Section::Sample => Some(&mut written.sample),
        Section::Collate => None,
        Section::Batch => Some(&mut written.batch),
        Section::Post => Some(&mut written.post),
    }
}

impl Level {
    /// The nodes of a stage other than `collate:`.
    fn nodes(&mut self, section: Section) -> Option<&mut Vec<NodeRef>> {
        match section {
            Section::Pre => Some(&mut self.pre),
            Section::Sample => Some(&mut self.sample),
            Section::Collate => None,
            Section::Batch => Some(&mut self.batch),
            Section::Post => Some(&mut self.post),
        }
    }
}

/// The nodes of a stage other than `collate:`, without `default` (the
/// default collate, which can only stand under `collate:`: the checker's
/// `collate_out_of_place`, from the level as written).
fn no_collates(nodes: Vec<NodeRef>) -> Vec<NodeRef> {
    nodes.into_iter().filter(|node| !is_default(node)).collect()
}

/// Whether `node` is `default`, the default collate.
fn is_default(node: &NodeRef) -> bool {
    matches!(&node.expr, Expr::Path(p) if p.qself.is_none() && p.path.is_ident("default"))
}

/// A branch whose name does not fit its form (already an error), as
/// written: checked for its own rules, but named by no field or key.
fn unrouted(
    branch: &super::parse::Branch,
    path: Option<&str>,
    errors: &mut Vec<syn::Error>,
) -> rules::Branch<Token, ()> {
    let (_, level) = level(&branch.body, path, errors);
    rules::Branch {
        name: None,
        site: Token(branch.span),
        body: Token(branch.body.span),
        level,
    }
}

/// Check a parallel form and its branches: the model, and the branches as
/// written (an empty form, a name given twice and the branches' own
/// collates are the checker's to report).
fn parallel_form(
    parallel: &Parallel,
    path: Option<&str>,
    errors: &mut Vec<syn::Error>,
) -> (ParallelModel, Vec<rules::Branch<Token, ()>>) {
    let routing = match (
        &parallel.ty,
        parallel.branches.iter().find_map(|b| b.name.as_ref()),
    ) {
        (None, _) | (Some(_), Some(BranchName::Key(_))) => Routing::Keys,
        (Some(_), _) => Routing::Fields,
    };
    let mut names: Vec<String> = Vec::new();
    let mut branches = Vec::new();
    let mut written = Vec::new();
    for branch in &parallel.branches {
        let Some(name) = &branch.name else {
            errors.push(rule_error(branch.span, Rule::MissingBranchName, &[]));
            // Still check the branch, for its own errors.
            let (_, level) = level(&branch.body, path, errors);
            written.push(rules::Branch {
                name: None,
                site: Token(branch.span),
                body: Token(branch.body.span),
                level,
            });
            continue;
        };
        let text = name.text();
        let field = match (name, routing) {
            (BranchName::Field(ident), Routing::Fields) => Some(ident.clone()),
            (BranchName::Key(_), Routing::Keys) => None,
            (BranchName::Field(ident), Routing::Keys) => {
                let message = match &parallel.ty {
                    None => format!(
                        "`{ident}:` routes a field, but this parallel form has no sample type: write the type before the braces, `Frame {{ {ident}: ... }}`, or name a key, `\"{ident}\": ...`"
                    ),
                    Some(_) => format!(
                        "`{ident}:` routes a field, but this parallel form routes keys (`\"key\": ...`); write `\"{ident}\":`"
                    ),
                };
                errors.push(syn::Error::new(ident.span(), message));
                written.push(unrouted(branch, path, errors));
                continue;
            }
            (BranchName::Key(lit), Routing::Fields) => {
                errors.push(syn::Error::new(
                    lit.span(),
                    format!(
                        "{:?} routes a key, but this parallel form routes the fields of its type; write the field, `{}:`",
                        text, text
                    ),
                ));
                written.push(unrouted(branch, path, errors));
                continue;
            }
        };
        let inner = match path {
            None => text.clone(),
            Some(p) => format!("{p}/{text}"),
        };
        let (level, as_written) = level(&branch.body, Some(&inner), errors);
        written.push(rules::Branch {
            name: Some(text.clone()),
            site: Token(name.span()),
            body: Token(branch.body.span),
            level: as_written,
        });
        // A name given twice: the checker's `duplicate_branch`; the model
        // keeps the first.
        if names.contains(&text) {
            continue;
        }
        names.push(text.clone());
        branches.push(BranchModel {
            name: text,
            field,
            level,
        });
    }
    let model = ParallelModel {
        ty: parallel.ty.clone(),
        routing,
        branches,
    };
    (model, written)
}

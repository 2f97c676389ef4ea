//! Check: the syntax tree against the composition rules of
//! `adl::description::Rule` (the table of `adl-rules`) (everything that the tokens alone show), into
//! the model that [`generate`](super::generate) expands.
//!
//! Every broken rule is reported, spanned at the offending token, with the
//! rule's own message. The model is repaired as it goes (the first of two
//! collates is kept, a duplicate stage or branch is left out, a missing
//! collate becomes the identity collate) so that the expansion can still
//! be generated and an IDE keeps resolving names. What only types show (a
//! node's stage, neighbours' types) is left to the assertions that the
//! expansion emits.

use std::collections::HashSet;

use crate::Rule;
pub(crate) use crate::Section;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Type};

use super::parse::{Body, BranchName, Entry, Parallel, StageEntry};
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
    /// `random(|x, rng| ...)` (any path ending in `random`, with one
    /// closure): a sample node that runs the closure with its per-sample
    /// generator.
    Random {
        /// Whether the closure's input (its first parameter) has a type
        /// annotation.
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
            _ => match random_call(&expr) {
                Some((_, closure)) => NodeKind::Random {
                    typed: matches!(closure.inputs.first(), Some(syn::Pat::Type(_))),
                },
                None => NodeKind::Value,
            },
        };
        let span = expr.span();
        NodeRef { expr, kind, span }
    }
}

/// `random(closure)`, as the path of `random` and the closure: a call of a
/// plain path whose last segment is `random` (`random`,
/// `adl::transform::random`), with one argument, a closure.
pub(crate) fn random_call(expr: &Expr) -> Option<(&Expr, &syn::ExprClosure)> {
    let Expr::Call(call) = expr else { return None };
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let last = path.path.segments.last()?;
    if path.qself.is_some() || last.ident != "random" || !last.arguments.is_none() {
        return None;
    }
    match call.args.iter().collect::<Vec<_>>().as_slice() {
        [Expr::Closure(closure)] => Some((&call.func, closure)),
        _ => None,
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

impl CollateRef {
    /// A collate written as `node`, named after its text.
    fn new(node: NodeRef) -> Self {
        CollateRef {
            name: collate_name(&node.expr),
            expr: node.expr,
            span: node.span,
        }
    }
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
    /// The batch struct of a struct form, where named (`Frame =>
    /// FrameBatch { .. }`), as a path that builds it (generics in
    /// turbofish); else the batch is a struct generated in the expansion.
    pub(crate) batch: Option<syn::Path>,
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
/// collate (it stands nowhere else), `random(..)` a sample node; other
/// nodes' stages are rustc's to check.
fn written_step(node: &NodeRef, stands_in: Stage) -> Step<Token, ()> {
    let is = match node.kind {
        _ if is_default(node) => Some(Stage::Collate),
        NodeKind::Random { .. } => Some(Stage::Sample),
        _ => None,
    };
    Step {
        name: text_of(&node.expr),
        is,
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
    let mut reader = LevelReader::new(body, path);
    for entry in &body.entries {
        match entry {
            Entry::Stage(stage) => reader.stage(stage, errors),
            Entry::Parallel(parallel) => reader.parallel(parallel, errors),
        }
    }
    reader.finish(body.span)
}

/// How a stage's keyword is read.
enum Keyword {
    /// One of the five stages.
    Known(Section),
    /// A misspelt stage (an error), read as the stage it is closest to.
    Guessed(Section),
    /// A misspelt stage (an error) that is read as none: its nodes are
    /// left out.
    Unknown,
}

/// Reads the entries of one level in order into the repaired model and
/// the level as written, reporting what each entry breaks.
struct LevelReader<'a> {
    /// The level's name (`None`: the whole pipeline).
    path: Option<&'a str>,
    /// The level as written, for the checker of the rules.
    written: Written,
    /// The repaired model.
    model: Level,
    /// The stages given so far.
    seen: HashSet<Section>,
    /// The latest stage so far, by order.
    latest: Option<Section>,
    /// Whether an entry so far collates (a collate or a parallel form).
    collates: bool,
    /// The stages this level writes: a misspelt stage is read as one of
    /// the others only.
    written_elsewhere: Vec<Section>,
}

impl<'a> LevelReader<'a> {
    /// A reader of `body`, named by `path`.
    fn new(body: &Body, path: Option<&'a str>) -> Self {
        let written_elsewhere = body
            .entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Stage(stage) => Section::from_keyword(&stage.keyword.to_string()),
                Entry::Parallel(_) => Some(Section::Collate),
            })
            .collect();
        LevelReader {
            path,
            written: Written::default(),
            model: Level {
                pre: Vec::new(),
                sample: Vec::new(),
                core: Core::Missing,
                batch: Vec::new(),
                post: Vec::new(),
                unused: Vec::new(),
                unused_collates: Vec::new(),
            },
            seen: HashSet::new(),
            latest: None,
            collates: false,
            written_elsewhere,
        }
    }

    /// `keyword: a -> b -> c`: the stage its keyword is read as, given
    /// once, in order, not empty; its nodes join that stage.
    fn stage(&mut self, stage: &StageEntry, errors: &mut Vec<syn::Error>) {
        let nodes: Vec<NodeRef> = stage.nodes.iter().cloned().map(NodeRef::new).collect();
        let (section, guessed) = match self.keyword(&stage.keyword, errors) {
            Keyword::Known(section) => (section, false),
            Keyword::Guessed(section) => (section, true),
            Keyword::Unknown => return self.leave_out(nodes),
        };
        let at = stage.keyword.span();
        if !self.seen.insert(section) {
            errors.push(duplicate_stage(at, section));
            return self.chain_repeated(section, nodes);
        }
        // A guessed stage out of place is the same one mistake.
        if !guessed {
            self.in_order(section, at, errors);
        }
        if nodes.is_empty() {
            errors.push(rule_error(
                at,
                Rule::EmptyStage,
                &[("stage", section.keyword())],
            ));
            self.written.collate_reported |= section == Section::Collate;
            return;
        }
        let steps = nodes
            .iter()
            .map(|node| written_step(node, section.stands_in()));
        match written_nodes(&mut self.written, section) {
            Some(list) => list.extend(steps),
            None => self.written.cores.extend(steps.map(WrittenCore::Collate)),
        }
        match self.model.nodes(section) {
            Some(list) => list.extend(kept(nodes, section.stands_in())),
            None => self.collate(kept(nodes, Stage::Collate)),
        }
    }

    /// How `keyword` is read. A misspelt stage is reported, and read as
    /// the stage it is closest to (and not given otherwise): one mistake,
    /// one error, not also the types that its nodes' absence would break.
    fn keyword(&self, keyword: &Ident, errors: &mut Vec<syn::Error>) -> Keyword {
        let given = keyword.to_string();
        if let Some(section) = Section::from_keyword(&given) {
            return Keyword::Known(section);
        }
        let meant = closest_section(&given)
            .filter(|s| !self.written_elsewhere.contains(s) && !self.seen.contains(s));
        errors.push(unknown_stage(keyword.span(), &given, meant));
        match meant {
            Some(meant) => Keyword::Guessed(meant),
            None => Keyword::Unknown,
        }
    }

    /// The nodes of a stage read as none: still evaluated, so that their
    /// names resolve. A `default` there was the collate: its absence is
    /// the same mistake.
    fn leave_out(&mut self, nodes: Vec<NodeRef>) {
        self.written.collate_reported |= nodes.iter().any(is_default);
        self.model.unused.extend(no_collates(nodes));
    }

    /// The nodes of a repeated stage, chained after the first's (what the
    /// help says to write), except a second collate, which the first
    /// replaces: its collates are still evaluated, as collates.
    fn chain_repeated(&mut self, section: Section, nodes: Vec<NodeRef>) {
        match (
            written_nodes(&mut self.written, section),
            self.model.nodes(section),
        ) {
            (Some(steps), Some(model)) => {
                steps.extend(
                    nodes
                        .iter()
                        .map(|node| written_step(node, section.stands_in())),
                );
                model.extend(kept(nodes, section.stands_in()));
            }
            _ => self
                .model
                .unused_collates
                .extend(nodes.into_iter().map(CollateRef::new)),
        }
    }

    /// The nodes of `collate:`: the first is the level's collate, unless
    /// an entry before collates already. A second collate is the
    /// checker's `collate_once`; the model keeps the first and evaluates
    /// the others.
    fn collate(&mut self, nodes: Vec<NodeRef>) {
        let mut collates = nodes.into_iter().map(CollateRef::new);
        let Some(first) = collates.next() else {
            // Only nodes the checker reports: the default collate stands
            // in (`finish`).
            return;
        };
        self.model.unused_collates.extend(collates);
        if self.collates {
            self.model.unused_collates.push(first);
        } else {
            self.collates = true;
            self.model.core = Core::Collate(first);
        }
    }

    /// A parallel form: it stands where `collate:` would (each branch
    /// collates), so a second one is a second collate (the checker's
    /// `collate_once`; the model keeps the first).
    fn parallel(&mut self, parallel: &Parallel, errors: &mut Vec<syn::Error>) {
        let (model, branches) = parallel_form(parallel, self.path, errors);
        self.written.cores.push(WrittenCore::Parallel {
            name: form_text(parallel),
            site: Token(parallel.span),
            body: Token(parallel.braces),
            branches,
        });
        if !self.collates {
            self.in_order(Section::Collate, parallel.span, errors);
            self.collates = true;
            self.model.core = Core::Parallel(model);
        }
    }

    /// Check that `section` (written at `span`) comes after the stages
    /// before it (rule `stage_order`).
    fn in_order(&mut self, section: Section, span: Span, errors: &mut Vec<syn::Error>) {
        match self.latest {
            Some(after) if after > section => {
                errors.push(rule_error(
                    span,
                    Rule::StageOrder,
                    &[("stage", section.keyword()), ("after", after.keyword())],
                ));
            }
            _ => self.latest = Some(section),
        }
    }

    /// The model and the level as written. No collate: the default
    /// collate stands in (what most pipelines collate with), so that the
    /// batch nodes' types are what was meant. A `default` written under
    /// another stage was that collate: its error (`collate_out_of_place`)
    /// is the one mistake, not also a missing one.
    fn finish(mut self, span: Span) -> (Level, Written) {
        if !self.collates {
            let written = &mut self.written;
            let displaced = [&written.pre, &written.sample, &written.batch, &written.post]
                .into_iter()
                .flatten()
                .any(|step| step.is == Some(Stage::Collate));
            written.collate_reported |= displaced;
            self.model.core = Core::Collate(CollateRef {
                expr: syn::parse_quote_spanned!(span=> default),
                name: "default".to_owned(),
                span,
            });
        }
        (self.model, self.written)
    }
}

/// The `duplicate_stage` error at a repeated stage's keyword. Chaining
/// collates is `collate_once`: for `collate:` the help says to keep one.
fn duplicate_stage(span: Span, section: Section) -> syn::Error {
    let args = [("stage", section.keyword())];
    if section == Section::Collate {
        syn::Error::new(
            span,
            format!(
                "{}\n\n= help: keep one `collate:`; a pipeline collates exactly once",
                Rule::DuplicateStage.render(&args)
            ),
        )
    } else {
        rule_error(span, Rule::DuplicateStage, &args)
    }
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

/// The nodes standing in `stands_in` that the model keeps: not those the
/// checker reports by what they are (from the level as written, in our
/// words), so that rustc does not report them again: `default` outside
/// `collate:` (`collate_out_of_place`), `random(..)` outside `pre:` and
/// `sample:` (`sample_node_in_batch`, `not_a_collate`). Their neighbours
/// are joined.
fn kept(nodes: Vec<NodeRef>, stands_in: Stage) -> Vec<NodeRef> {
    let nodes = match stands_in {
        Stage::Collate => nodes,
        _ => no_collates(nodes),
    };
    nodes
        .into_iter()
        .filter(|node| stands_in == Stage::Sample || !matches!(node.kind, NodeKind::Random { .. }))
        .collect()
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
    let batch = parallel
        .batch
        .as_ref()
        .and_then(|batch| batch_struct(batch, routing, errors));
    let model = ParallelModel {
        ty: parallel.ty.clone(),
        batch,
        routing,
        branches,
    };
    (model, written)
}

/// The batch struct named after `=>`, as a path that builds it: only a
/// struct form names one, by its path. Else an error, and the batch is
/// the generated struct.
fn batch_struct(batch: &Type, routing: Routing, errors: &mut Vec<syn::Error>) -> Option<syn::Path> {
    let path = match batch {
        Type::Path(path) if path.qself.is_none() => &path.path,
        _ => {
            errors.push(syn::Error::new_spanned(
                batch,
                "the batch of a parallel form is a struct of your own with a field per branch, named by its path after `=>` (`Frame => FrameBatch { .. }`), not another kind of type",
            ));
            return None;
        }
    };
    if routing == Routing::Keys {
        let name = path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        errors.push(syn::Error::new_spanned(
            batch,
            format!(
                "`{name}` names the batch struct of a form over the fields of a struct, but this form routes keys: its batch is the keyed container of its branches' batches; leave `=> {name}` out"
            ),
        ));
        return None;
    }
    let mut path = path.clone();
    // `FrameBatch<A, B>` as an expression: `FrameBatch::<A, B>`.
    for segment in &mut path.segments {
        if let syn::PathArguments::AngleBracketed(args) = &mut segment.arguments {
            args.colon2_token.get_or_insert_with(Default::default);
        }
    }
    Some(path)
}

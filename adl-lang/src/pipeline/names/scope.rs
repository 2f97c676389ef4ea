//! The scopes of a file, walked: what each bare name of each `pipeline!`
//! call is where the call stands, by Rust's scoping, and which names
//! anything could make a type (those are left to rustc).

use std::collections::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Expr, Ident, Pat};

use super::{Call, FnShape, Meaning, leaves};

/// Every `pipeline!` call of `file` (nested in other macros' tokens
/// included), with the meanings of its bare names.
pub(super) fn calls_of(file: &syn::File) -> Vec<Call> {
    let mut uncertain = Uncertain::default();
    uncertain.visit_file(file);
    let mut walk = Walk {
        uncertain: &uncertain.0,
        chain: Vec::new(),
        calls: Vec::new(),
    };
    walk.in_module(&file.items);
    walk.calls
}

/// Every identifier in `tokens`.
fn idents(tokens: TokenStream, out: &mut HashSet<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(group) => idents(group.stream(), out),
            TokenTree::Ident(ident) => {
                out.insert(ident.to_string());
            }
            _ => {}
        }
    }
}

/// Whether a macro path names `pipeline!` (`pipeline`, `adl::pipeline`).
fn is_pipeline(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|s| s.ident == "pipeline")
}

/// Macros that never define items: a statement or item of one of these
/// leaves the scope's names known.
const ITEMLESS_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "dbg",
    "eprint",
    "eprintln",
    "format",
    "panic",
    "pipeline",
    "print",
    "println",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
];

/// Whether a macro called as a statement or an item may define items.
fn may_define_items(mac: &syn::Macro) -> bool {
    !mac.path
        .segments
        .last()
        .is_some_and(|s| ITEMLESS_MACROS.iter().any(|m| s.ident == m))
}

/// Attributes that leave a function a plain function (a macro attribute,
/// `#[transform]` among them, may make its name a type too).
fn is_inert(attr: &syn::Attribute) -> bool {
    const INERT: &[&str] = &[
        "allow",
        "cfg",
        "clippy",
        "cold",
        "deny",
        "deprecated",
        "doc",
        "expect",
        "export_name",
        "forbid",
        "inline",
        "must_use",
        "no_mangle",
        "rustfmt",
        "track_caller",
        "unsafe",
        "warn",
    ];
    attr.path()
        .segments
        .first()
        .is_some_and(|s| INERT.iter().any(|name| s.ident == name))
}

/// Names anywhere in the file that something could make a type: items
/// other than functions, functions with macro attributes, `use`d names,
/// generic parameters.
#[derive(Default)]
struct Uncertain(HashSet<String>);

impl Uncertain {
    fn add(&mut self, ident: &Ident) {
        self.0.insert(ident.to_string());
    }
}

impl Visit<'_> for Uncertain {
    fn visit_item(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Fn(f) if f.attrs.iter().all(is_inert) => {}
            syn::Item::Fn(f) => self.add(&f.sig.ident),
            other => {
                if let Some(ident) = item_ident(other) {
                    self.add(ident);
                }
            }
        }
        visit::visit_item(self, item);
    }

    fn visit_foreign_item(&mut self, item: &syn::ForeignItem) {
        match item {
            syn::ForeignItem::Fn(f) => self.add(&f.sig.ident),
            syn::ForeignItem::Static(s) => self.add(&s.ident),
            syn::ForeignItem::Type(t) => self.add(&t.ident),
            _ => {}
        }
        visit::visit_foreign_item(self, item);
    }

    fn visit_use_name(&mut self, name: &syn::UseName) {
        self.add(&name.ident);
    }

    fn visit_use_rename(&mut self, rename: &syn::UseRename) {
        self.add(&rename.rename);
    }

    fn visit_use_path(&mut self, path: &syn::UsePath) {
        // `use a::b::{self}` brings `b`.
        self.add(&path.ident);
        visit::visit_use_path(self, path);
    }

    fn visit_type_param(&mut self, param: &syn::TypeParam) {
        self.add(&param.ident);
        visit::visit_type_param(self, param);
    }
}

/// The name an item defines (functions and impls aside).
fn item_ident(item: &syn::Item) -> Option<&Ident> {
    match item {
        syn::Item::Const(i) => Some(&i.ident),
        syn::Item::Enum(i) => Some(&i.ident),
        syn::Item::ExternCrate(i) => Some(i.rename.as_ref().map_or(&i.ident, |(_, r)| r)),
        syn::Item::Fn(i) => Some(&i.sig.ident),
        syn::Item::Macro(i) => i.ident.as_ref(),
        syn::Item::Mod(i) => Some(&i.ident),
        syn::Item::Static(i) => Some(&i.ident),
        syn::Item::Struct(i) => Some(&i.ident),
        syn::Item::Trait(i) => Some(&i.ident),
        syn::Item::TraitAlias(i) => Some(&i.ident),
        syn::Item::Type(i) => Some(&i.ident),
        syn::Item::Union(i) => Some(&i.ident),
        _ => None,
    }
}

/// Where a scope's names end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    /// A module: lookups stop here (Rust modules do not see their
    /// parents' names).
    Module,
    /// A function's parameters (or a `const`'s body): outer locals are
    /// not visible past it, outer items are.
    Function,
    /// A block, a closure's parameters, a match arm, a `for` or `if let`.
    Block,
}

/// The names one scope defines.
#[derive(Debug)]
struct Scope {
    kind: ScopeKind,
    /// Items: a plain function's shape, or `None` for anything else.
    items: HashMap<String, Option<FnShape>>,
    /// Local variables defined so far.
    locals: HashSet<String>,
    /// A glob import or an item-making macro: the scope may define names
    /// the index cannot see.
    opaque: bool,
}

impl Scope {
    fn new(kind: ScopeKind) -> Scope {
        Scope {
            kind,
            items: HashMap::new(),
            locals: HashSet::new(),
            opaque: false,
        }
    }

    fn with_locals(kind: ScopeKind, pats: &[&Pat]) -> Scope {
        let mut scope = Scope::new(kind);
        for pat in pats {
            bindings(pat, &mut scope.locals);
        }
        scope
    }

    /// Record the names of the items of a module or a block.
    fn add_items<'a>(&mut self, items: impl IntoIterator<Item = &'a syn::Item>) {
        for item in items {
            match item {
                syn::Item::Fn(f) => {
                    let shape = f.attrs.iter().all(is_inert).then(|| FnShape::of(&f.sig));
                    let name = f.sig.ident.to_string();
                    // Two definitions (under `cfg`s): plain only if both are.
                    let known = self.items.get(&name).cloned();
                    let shape = match known {
                        Some(None) => None,
                        _ => shape,
                    };
                    self.items.insert(name, shape);
                }
                syn::Item::Use(u) => self.add_use(&u.tree),
                syn::Item::Macro(m) if m.ident.is_none() && may_define_items(&m.mac) => {
                    self.opaque = true
                }
                syn::Item::Verbatim(_) => self.opaque = true,
                syn::Item::ForeignMod(foreign) => {
                    for item in &foreign.items {
                        match item {
                            syn::ForeignItem::Fn(f) => self.add_other(&f.sig.ident),
                            syn::ForeignItem::Static(s) => self.add_other(&s.ident),
                            syn::ForeignItem::Type(t) => self.add_other(&t.ident),
                            _ => self.opaque = true,
                        }
                    }
                }
                other => {
                    if let Some(ident) = item_ident(other) {
                        self.add_other(ident);
                    }
                }
            }
        }
    }

    fn add_other(&mut self, ident: &Ident) {
        self.items.insert(ident.to_string(), None);
    }

    fn add_use(&mut self, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                // `use a::{self}` names `a` too.
                self.add_other(&p.ident);
                self.add_use(&p.tree);
            }
            syn::UseTree::Name(n) => self.add_other(&n.ident),
            syn::UseTree::Rename(r) => self.add_other(&r.rename),
            syn::UseTree::Glob(_) => self.opaque = true,
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.add_use(t)),
        }
    }
}

/// Every name a pattern binds.
fn bindings(pat: &Pat, out: &mut HashSet<String>) {
    struct Bindings<'a>(&'a mut HashSet<String>);
    impl Visit<'_> for Bindings<'_> {
        fn visit_pat_ident(&mut self, pat: &syn::PatIdent) {
            self.0.insert(pat.ident.to_string());
            visit::visit_pat_ident(self, pat);
        }
        // Expressions inside patterns (constants, ranges) bind nothing.
        fn visit_expr(&mut self, _: &Expr) {}
    }
    Bindings(out).visit_pat(pat);
}

/// Every binding of the `let`s in a condition (`if let`, `while let`,
/// let chains): visible in the body only.
fn condition_bindings(cond: &Expr) -> Vec<&Pat> {
    match cond {
        Expr::Let(l) => vec![&*l.pat],
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            let mut pats = condition_bindings(&b.left);
            pats.extend(condition_bindings(&b.right));
            pats
        }
        Expr::Paren(p) => condition_bindings(&p.expr),
        _ => Vec::new(),
    }
}

/// The walk over a file, with the scopes that the current point sees.
struct Walk<'u> {
    uncertain: &'u HashSet<String>,
    chain: Vec<Scope>,
    calls: Vec<Call>,
}

impl Walk<'_> {
    /// What `name` certainly is at the current point: the innermost
    /// local or item of that name, provided that nothing else the point
    /// sees could give the name a type too (a glob import or an
    /// item-making macro in any scope up to the module, an outer item of
    /// that name other than a plain function).
    fn meaning(&self, name: &str) -> Option<Meaning> {
        if self.uncertain.contains(name) {
            return None;
        }
        let mut found = None;
        let mut locals_visible = true;
        for scope in self.chain.iter().rev() {
            if scope.opaque {
                return None;
            }
            let item = scope.items.get(name);
            if let Some(None) = item {
                return None;
            }
            // In one scope, a local shadows an item; an inner scope's
            // meaning shadows an outer one's.
            if found.is_none() && locals_visible && scope.locals.contains(name) {
                found = Some(Meaning::Local);
            }
            if let (None, Some(Some(shape))) = (&found, item) {
                found = Some(Meaning::PlainFn(shape.clone()));
            }
            match scope.kind {
                ScopeKind::Module => break,
                ScopeKind::Function => locals_visible = false,
                ScopeKind::Block => {}
            }
        }
        found
    }

    /// Record a `pipeline!` call at the current point.
    fn record(&mut self, tokens: &TokenStream) {
        let mut found = HashSet::new();
        idents(tokens.clone(), &mut found);
        let names = found
            .into_iter()
            .filter_map(|name| self.meaning(&name).map(|m| (name, m)))
            .collect();
        self.calls.push(Call {
            leaves: leaves(tokens.clone()),
            names,
        });
    }

    /// Record the `pipeline! { ... }` calls inside another macro's tokens.
    fn record_nested(&mut self, tokens: &TokenStream) {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(ident) if ident == "pipeline" => {
                    if let (Some(TokenTree::Punct(bang)), Some(TokenTree::Group(group))) =
                        (trees.get(i + 1), trees.get(i + 2))
                        && bang.as_char() == '!'
                    {
                        self.record(&group.stream());
                    }
                }
                TokenTree::Group(group) => self.record_nested(&group.stream()),
                _ => {}
            }
        }
    }

    fn in_scope(&mut self, scope: Scope, body: impl FnOnce(&mut Self)) {
        self.chain.push(scope);
        body(self);
        self.chain.pop();
    }

    fn in_module(&mut self, items: &[syn::Item]) {
        let mut scope = Scope::new(ScopeKind::Module);
        scope.add_items(items);
        self.in_scope(scope, |walk| {
            for item in items {
                walk.visit_item(item);
            }
        });
    }

    fn in_function(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let pats: Vec<&Pat> = sig
            .inputs
            .iter()
            .filter_map(|arg| match arg {
                syn::FnArg::Typed(t) => Some(&*t.pat),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let scope = Scope::with_locals(ScopeKind::Function, &pats);
        self.in_scope(scope, |walk| walk.visit_block(block));
    }
}

impl Visit<'_> for Walk<'_> {
    fn visit_item_mod(&mut self, module: &syn::ItemMod) {
        if let Some((_, items)) = &module.content {
            self.in_module(items);
        }
    }

    fn visit_item_fn(&mut self, f: &syn::ItemFn) {
        self.in_function(&f.sig, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &syn::ImplItemFn) {
        self.in_function(&f.sig, &f.block);
    }

    fn visit_trait_item_fn(&mut self, f: &syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.in_function(&f.sig, block);
        }
    }

    fn visit_item_const(&mut self, item: &syn::ItemConst) {
        self.in_scope(Scope::new(ScopeKind::Function), |walk| {
            walk.visit_expr(&item.expr)
        });
    }

    fn visit_item_static(&mut self, item: &syn::ItemStatic) {
        self.in_scope(Scope::new(ScopeKind::Function), |walk| {
            walk.visit_expr(&item.expr)
        });
    }

    fn visit_block(&mut self, block: &syn::Block) {
        let mut scope = Scope::new(ScopeKind::Block);
        scope.add_items(block.stmts.iter().filter_map(|s| match s {
            syn::Stmt::Item(item) => Some(item),
            _ => None,
        }));
        scope.opaque |= block
            .stmts
            .iter()
            .any(|s| matches!(s, syn::Stmt::Macro(m) if may_define_items(&m.mac)));
        self.in_scope(scope, |walk| {
            for stmt in &block.stmts {
                match stmt {
                    syn::Stmt::Local(local) => {
                        if let Some(init) = &local.init {
                            walk.visit_expr(&init.expr);
                            if let Some((_, diverge)) = &init.diverge {
                                walk.visit_expr(diverge);
                            }
                        }
                        if let Some(scope) = walk.chain.last_mut() {
                            bindings(&local.pat, &mut scope.locals);
                        }
                    }
                    other => walk.visit_stmt(other),
                }
            }
        });
    }

    fn visit_expr_closure(&mut self, closure: &syn::ExprClosure) {
        let pats: Vec<&Pat> = closure.inputs.iter().collect();
        let scope = Scope::with_locals(ScopeKind::Block, &pats);
        self.in_scope(scope, |walk| walk.visit_expr(&closure.body));
    }

    fn visit_arm(&mut self, arm: &syn::Arm) {
        let scope = Scope::with_locals(ScopeKind::Block, &[&arm.pat]);
        self.in_scope(scope, |walk| {
            if let Some((_, guard)) = &arm.guard {
                walk.visit_expr(guard);
            }
            walk.visit_expr(&arm.body);
        });
    }

    fn visit_expr_for_loop(&mut self, for_loop: &syn::ExprForLoop) {
        self.visit_expr(&for_loop.expr);
        let scope = Scope::with_locals(ScopeKind::Block, &[&for_loop.pat]);
        self.in_scope(scope, |walk| walk.visit_block(&for_loop.body));
    }

    fn visit_expr_if(&mut self, expr: &syn::ExprIf) {
        self.visit_expr(&expr.cond);
        let scope = Scope::with_locals(ScopeKind::Block, &condition_bindings(&expr.cond));
        self.in_scope(scope, |walk| walk.visit_block(&expr.then_branch));
        if let Some((_, otherwise)) = &expr.else_branch {
            self.visit_expr(otherwise);
        }
    }

    fn visit_expr_while(&mut self, expr: &syn::ExprWhile) {
        self.visit_expr(&expr.cond);
        let scope = Scope::with_locals(ScopeKind::Block, &condition_bindings(&expr.cond));
        self.in_scope(scope, |walk| walk.visit_block(&expr.body));
    }

    fn visit_macro(&mut self, mac: &syn::Macro) {
        if is_pipeline(&mac.path) {
            self.record(&mac.tokens);
        } else {
            self.record_nested(&mac.tokens);
        }
    }
}

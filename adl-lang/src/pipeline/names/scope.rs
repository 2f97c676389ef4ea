//! The scopes of a file, walked: what each bare name of each `pipeline!`
//! call is where the call stands, by Rust's scoping, and which names
//! anything could make a type.
//!
//! A name is left to rustc (no meaning) wherever something could make it
//! a type, since `name {}` is looked up among types only and a local or a
//! function of the same name does not stop it compiling:
//!
//! - anywhere in the file: an item of that name other than a plain
//!   function, a `use` path with a segment of that name, a generic
//!   parameter of that name, a function of that name with an attribute
//!   that is not inert (`#[transform]` among them);
//! - in any scope the call sees, up to its module: a glob import; a macro
//!   called as an item or a statement, other than the standard ones that
//!   make no items (and not imported or defined under that name in the
//!   file); an item with an attribute or derive that may make items
//!   (anything but the inert attributes, the standard derives, serde's,
//!   and adl's own, whose made names are known); the function, impl,
//!   trait or module around the call carrying such an attribute.
//!
//! A `pipeline!` call is indexed where it is written directly or inside a
//! standard macro that keeps its tokens in place (`vec!`, `assert!`,
//! `println!`, ...) and holds no block. Calls inside any other macro's
//! tokens (a `macro_rules!` body, another macro's arguments) are indexed
//! without meanings: the macro decides where they land, and a call
//! written alike elsewhere then keeps no meanings either. (The entry
//! point also leaves alone a call whose tokens are not all written at
//! the call.)

use std::collections::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{Attribute, Expr, Ident, Pat};

use super::{FnShape, Meaning, Names, leaves, unraw};

/// Every `pipeline!` call of `file`, as its flattened tokens and the
/// meanings of its bare names, in the order written.
pub(super) fn calls_of(file: &syn::File) -> Vec<(Vec<String>, Names)> {
    let uncertain = Uncertain::of(file);
    let mut walk = Walk {
        uncertain: &uncertain,
        chain: Vec::new(),
        calls: Vec::new(),
    };
    walk.in_module(&file.attrs, &file.items);
    walk.calls
}

/// Standard macros that keep their tokens in place and make no items: a
/// `pipeline!` inside one stands where the macro does, and a statement or
/// item of one leaves the scope's names known.
const STANDARD_MACROS: &[&str] = &[
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
    "print",
    "println",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
];

/// Attributes that make no items and leave a function's body as written.
const INERT_ATTRIBUTES: &[&str] = &[
    "allow",
    "automatically_derived",
    "bench",
    "cfg",
    "clippy",
    "cold",
    "deny",
    "deprecated",
    "doc",
    "expect",
    "export_name",
    "feature",
    "forbid",
    "ignore",
    "inline",
    "link",
    "link_name",
    "link_section",
    "macro_export",
    "must_use",
    "no_main",
    "no_mangle",
    "no_std",
    "non_exhaustive",
    "path",
    "recursion_limit",
    "repr",
    "rustfmt",
    "should_panic",
    "test",
    "track_caller",
    "unsafe",
    "used",
    "warn",
];

/// The helper attributes of adl's and serde's derives: inert on an item
/// with a derive.
const DERIVE_HELPERS: &[&str] = &["collate", "recycle", "sensor_set", "serde"];

/// Derives that make no items but trait impls.
const INERT_DERIVES: &[&str] = &[
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Deserialize",
    "Eq",
    "Hash",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Recycle",
    "Serialize",
];

/// adl's derives that make types, named after the item or after a name
/// in their attributes: `Frame` → `FrameBatch`, `FrameBatchBuilder`;
/// `Rig` → `RigSample` (or `sample = Name`).
const NAMING_DERIVES: &[&str] = &["Collate", "SensorSet"];

/// What an attribute may do to the names around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Nothing.
    Inert,
    /// adl's `#[transform]`: the function's name is a type too; an impl
    /// block is kept as written.
    Transform,
    /// adl's naming derives: types named after the item (see
    /// [`NAMING_DERIVES`]).
    Names,
    /// Anything: items the index cannot see, a body rewritten.
    Unknown,
}

/// Names anywhere in the file that something could make a type, and the
/// file's own `macro_rules!`.
#[derive(Default)]
struct Uncertain {
    /// Names that are, or could be, types (or attribute macros).
    names: HashSet<String>,
    /// The names of the file's `macro_rules!` (a standard macro's name
    /// defined here is not the standard macro).
    macros: HashSet<String>,
    /// Functions with attributes, judged once every name is known.
    attributed_fns: Vec<(String, Vec<Attribute>)>,
}

impl Uncertain {
    /// The names of `file`.
    fn of(file: &syn::File) -> Uncertain {
        let mut uncertain = Uncertain::default();
        uncertain.visit_file(file);
        for (name, attrs) in std::mem::take(&mut uncertain.attributed_fns) {
            if !uncertain.all_inert(&attrs, false) {
                uncertain.names.insert(name);
            }
        }
        uncertain
    }

    fn add(&mut self, ident: &Ident) {
        self.names.insert(unraw(ident));
    }

    /// Whether the file defines or imports `name` (so an attribute or a
    /// macro of that name may be its own).
    fn shadows(&self, name: &str) -> bool {
        self.names.contains(name) || self.macros.contains(name)
    }

    /// What an attribute may do; `derived`: the item has a `derive` (its
    /// helper attributes are then inert).
    fn effect(&self, attr: &Attribute, derived: bool) -> Effect {
        let path = attr.path();
        let segments: Vec<String> = path.segments.iter().map(|s| unraw(&s.ident)).collect();
        match segments.as_slice() {
            [name] if name == "transform" => Effect::Transform,
            [name] if self.shadows(name) => Effect::Unknown,
            [name] if name == "derive" => self.derive_effect(attr),
            [name] if name == "cfg_attr" => self.cfg_attr_effect(attr, derived),
            [name] if INERT_ATTRIBUTES.contains(&name.as_str()) => Effect::Inert,
            [name] if derived && DERIVE_HELPERS.contains(&name.as_str()) => Effect::Inert,
            [krate, name] if krate == "adl" && name == "transform" => Effect::Transform,
            [tool, ..] if tool == "clippy" || tool == "rustfmt" => Effect::Inert,
            // The body is kept, in an async block.
            [krate, name] if krate == "tokio" && (name == "main" || name == "test") => {
                Effect::Inert
            }
            _ => Effect::Unknown,
        }
    }

    fn derive_effect(&self, attr: &Attribute) -> Effect {
        let Ok(paths) = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        ) else {
            return Effect::Unknown;
        };
        let mut effect = Effect::Inert;
        for path in &paths {
            let Some(last) = path.segments.last() else {
                return Effect::Unknown;
            };
            // Derives are imported by name (`use adl::Collate`): their
            // names are taken as written.
            let name = unraw(&last.ident);
            if NAMING_DERIVES.contains(&name.as_str()) {
                effect = Effect::Names;
            } else if !INERT_DERIVES.contains(&name.as_str()) {
                return Effect::Unknown;
            }
        }
        effect
    }

    /// `#[cfg_attr(predicate, attr, ...)]`: the strongest effect of its
    /// attributes.
    fn cfg_attr_effect(&self, attr: &Attribute, derived: bool) -> Effect {
        let Ok(metas) = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        ) else {
            return Effect::Unknown;
        };
        let mut effect = Effect::Inert;
        for meta in metas.iter().skip(1) {
            let inner: Attribute = syn::parse_quote!(#[#meta]);
            match self.effect(&inner, derived) {
                Effect::Inert => {}
                Effect::Unknown => return Effect::Unknown,
                other => effect = other,
            }
        }
        effect
    }

    /// The effects of an item's attributes.
    fn effects(&self, attrs: &[Attribute]) -> Vec<Effect> {
        let derived = attrs.iter().any(|a| {
            a.path().is_ident("derive")
                || a.path().is_ident("cfg_attr")
                    && a.meta.to_token_stream().to_string().contains("derive")
        });
        attrs.iter().map(|a| self.effect(a, derived)).collect()
    }

    fn all_inert(&self, attrs: &[Attribute], derived: bool) -> bool {
        attrs
            .iter()
            .all(|a| self.effect(a, derived) == Effect::Inert)
    }

    /// Whether attributes may make items or rewrite what they are on.
    fn any_unknown(&self, attrs: &[Attribute]) -> bool {
        self.effects(attrs).contains(&Effect::Unknown)
    }
}

impl Visit<'_> for Uncertain {
    fn visit_item(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Fn(f) if f.attrs.is_empty() => {}
            syn::Item::Fn(f) => self
                .attributed_fns
                .push((unraw(&f.sig.ident), f.attrs.clone())),
            syn::Item::Macro(m) => {
                if let Some(ident) = &m.ident {
                    self.macros.insert(unraw(ident));
                }
            }
            other => {
                if let Some(ident) = item_ident(other) {
                    self.add(ident);
                }
            }
        }
        visit::visit_item(self, item);
    }

    fn visit_foreign_item(&mut self, item: &syn::ForeignItem) {
        if let Some(ident) = foreign_ident(item) {
            self.add(ident);
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

/// The name an item other than a function, an impl or a `use` defines.
fn item_ident(item: &syn::Item) -> Option<&Ident> {
    match item {
        syn::Item::Const(i) => Some(&i.ident),
        syn::Item::Enum(i) => Some(&i.ident),
        syn::Item::ExternCrate(i) => Some(i.rename.as_ref().map_or(&i.ident, |(_, r)| r)),
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

/// The name an item of an `extern` block defines.
fn foreign_ident(item: &syn::ForeignItem) -> Option<&Ident> {
    match item {
        syn::ForeignItem::Fn(f) => Some(&f.sig.ident),
        syn::ForeignItem::Static(s) => Some(&s.ident),
        syn::ForeignItem::Type(t) => Some(&t.ident),
        _ => None,
    }
}

/// The attributes of an item.
fn item_attrs(item: &syn::Item) -> &[Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The names adl's naming derives make for an item called `ident` with
/// attributes `attrs`: for the item's name and every name in its
/// attributes (`sample = Frame`), that name with `Batch`,
/// `BatchBuilder` and `Sample` after it.
fn derived_names(ident: &Ident, attrs: &[Attribute]) -> Vec<String> {
    let mut bases = vec![unraw(ident)];
    for attr in attrs {
        if let syn::Meta::List(list) = &attr.meta {
            let mut found = HashSet::new();
            idents(list.tokens.clone(), &mut found);
            bases.extend(found);
        }
    }
    bases
        .iter()
        .flat_map(|base| {
            ["", "Batch", "BatchBuilder", "Sample"].map(|suffix| format!("{base}{suffix}"))
        })
        .collect()
}

/// Every identifier in `tokens`.
fn idents(tokens: TokenStream, out: &mut HashSet<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(group) => idents(group.stream(), out),
            TokenTree::Ident(ident) => {
                out.insert(unraw(&ident));
            }
            _ => {}
        }
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
    /// The scope may define names the index cannot see (a glob import,
    /// an item-making macro or attribute), or its item's attribute may
    /// rewrite it.
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
    fn add_items<'a>(
        &mut self,
        items: impl IntoIterator<Item = &'a syn::Item>,
        uncertain: &Uncertain,
    ) {
        for item in items {
            let attrs = item_attrs(item);
            let effects = uncertain.effects(attrs);
            if effects.contains(&Effect::Unknown) {
                self.opaque = true;
            }
            if effects.contains(&Effect::Names)
                && let Some(ident) = item_ident(item)
            {
                for name in derived_names(ident, attrs) {
                    self.items.insert(name, None);
                }
            }
            match item {
                syn::Item::Fn(f) => {
                    let plain = effects.iter().all(|e| *e == Effect::Inert);
                    let shape = if plain { FnShape::of(&f.sig) } else { None };
                    let name = unraw(&f.sig.ident);
                    // Two definitions (under `cfg`s): plain only if both are.
                    let shape = match self.items.get(&name) {
                        Some(None) => None,
                        _ => shape,
                    };
                    self.items.insert(name, shape);
                }
                syn::Item::Use(u) => self.add_use(&u.tree),
                syn::Item::Macro(m) if m.ident.is_none() && may_define_items(&m.mac, uncertain) => {
                    self.opaque = true
                }
                syn::Item::Verbatim(_) => self.opaque = true,
                syn::Item::ForeignMod(foreign) => {
                    for item in &foreign.items {
                        match foreign_ident(item) {
                            Some(ident) => self.add_other(ident),
                            None => self.opaque = true,
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
        self.items.insert(unraw(ident), None);
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

/// Whether `path` names a standard macro (bare, or under `std`, `core`
/// or `alloc`), not one the file defines.
fn is_standard(path: &syn::Path, uncertain: &Uncertain) -> bool {
    let segments: Vec<String> = path.segments.iter().map(|s| unraw(&s.ident)).collect();
    let name = match segments.as_slice() {
        [name] if !uncertain.shadows(name) => name,
        [krate, name] if ["std", "core", "alloc"].contains(&krate.as_str()) => name,
        _ => return false,
    };
    STANDARD_MACROS.contains(&name.as_str())
}

/// Whether `path` names `pipeline!` (`pipeline`, `adl::pipeline`, or the
/// macro re-exported elsewhere: the call's tokens are matched too).
fn is_pipeline(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|s| s.ident == "pipeline")
}

/// Whether a macro's tokens hold a block (which may define items the
/// walk does not see) other than a `pipeline!` call's body.
fn opens_scope(tokens: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Group(group) => {
            let body_of_call = i >= 2
                && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '!')
                && matches!(&trees[i - 2], TokenTree::Ident(m) if m == "pipeline");
            let braces = group.delimiter() == proc_macro2::Delimiter::Brace;
            !body_of_call && (braces || opens_scope(&group.stream()))
        }
        _ => false,
    })
}

/// Whether a macro called as a statement or an item may define items.
fn may_define_items(mac: &syn::Macro, uncertain: &Uncertain) -> bool {
    !(is_standard(&mac.path, uncertain) || is_pipeline(&mac.path))
}

/// Every name a pattern binds. An identifier that starts with a capital
/// is taken for a unit struct, variant or constant, not a binding.
fn bindings(pat: &Pat, out: &mut HashSet<String>) {
    struct Bindings<'a>(&'a mut HashSet<String>);
    impl Visit<'_> for Bindings<'_> {
        fn visit_pat_ident(&mut self, pat: &syn::PatIdent) {
            let name = unraw(&pat.ident);
            if !name.starts_with(|c: char| c.is_uppercase()) {
                self.0.insert(name);
            }
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
    uncertain: &'u Uncertain,
    chain: Vec<Scope>,
    calls: Vec<(Vec<String>, Names)>,
}

impl Walk<'_> {
    /// What `name` certainly is at the current point: the innermost
    /// local or item of that name, provided that nothing else the point
    /// sees could give the name a type too (see the module's docs).
    fn meaning(&self, name: &str) -> Option<Meaning> {
        if self.uncertain.names.contains(name) {
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

    /// Record a `pipeline!` call at the current point; `placed`: it
    /// stands where it is written (else it is recorded without meanings).
    fn record(&mut self, tokens: &TokenStream, placed: bool) {
        let mut names = Names::new();
        if placed {
            let mut found = HashSet::new();
            idents(tokens.clone(), &mut found);
            for name in found {
                if let Some(meaning) = self.meaning(&name) {
                    names.insert(name, meaning);
                }
            }
        }
        self.calls.push((leaves(tokens.clone()), names));
    }

    /// Record the `pipeline! { ... }` calls inside another macro's tokens.
    fn record_nested(&mut self, tokens: &TokenStream, placed: bool) {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(ident) if ident == "pipeline" => {
                    if let (Some(TokenTree::Punct(bang)), Some(TokenTree::Group(group))) =
                        (trees.get(i + 1), trees.get(i + 2))
                        && bang.as_char() == '!'
                    {
                        self.record(&group.stream(), placed);
                    }
                }
                TokenTree::Group(group) => self.record_nested(&group.stream(), placed),
                _ => {}
            }
        }
    }

    fn in_scope(&mut self, scope: Scope, body: impl FnOnce(&mut Self)) {
        self.chain.push(scope);
        body(self);
        self.chain.pop();
    }

    fn in_module(&mut self, attrs: &[Attribute], items: &[syn::Item]) {
        let mut scope = Scope::new(ScopeKind::Module);
        scope.opaque = self.uncertain.any_unknown(attrs);
        scope.add_items(items, self.uncertain);
        self.in_scope(scope, |walk| {
            for item in items {
                walk.visit_item(item);
            }
        });
    }

    fn in_function(&mut self, attrs: &[Attribute], sig: &syn::Signature, block: &syn::Block) {
        let pats: Vec<&Pat> = sig
            .inputs
            .iter()
            .filter_map(|arg| match arg {
                syn::FnArg::Typed(t) => Some(&*t.pat),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let mut scope = Scope::with_locals(ScopeKind::Function, &pats);
        scope.opaque = self.uncertain.any_unknown(attrs);
        self.in_scope(scope, |walk| walk.visit_block(block));
    }

    /// Walk an item whose attributes may rewrite it (an impl, a trait).
    fn in_item(&mut self, attrs: &[Attribute], body: impl FnOnce(&mut Self)) {
        let mut scope = Scope::new(ScopeKind::Block);
        scope.opaque = self.uncertain.any_unknown(attrs);
        self.in_scope(scope, body);
    }
}

impl Visit<'_> for Walk<'_> {
    fn visit_item_mod(&mut self, module: &syn::ItemMod) {
        if let Some((_, items)) = &module.content {
            self.in_module(&module.attrs, items);
        }
    }

    fn visit_item_fn(&mut self, f: &syn::ItemFn) {
        self.in_function(&f.attrs, &f.sig, &f.block);
    }

    fn visit_item_impl(&mut self, item: &syn::ItemImpl) {
        self.in_item(&item.attrs, |walk| visit::visit_item_impl(walk, item));
    }

    fn visit_item_trait(&mut self, item: &syn::ItemTrait) {
        self.in_item(&item.attrs, |walk| visit::visit_item_trait(walk, item));
    }

    fn visit_impl_item_fn(&mut self, f: &syn::ImplItemFn) {
        self.in_function(&f.attrs, &f.sig, &f.block);
    }

    fn visit_trait_item_fn(&mut self, f: &syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.in_function(&f.attrs, &f.sig, block);
        }
    }

    fn visit_item_const(&mut self, item: &syn::ItemConst) {
        let mut scope = Scope::new(ScopeKind::Function);
        scope.opaque = self.uncertain.any_unknown(&item.attrs);
        self.in_scope(scope, |walk| walk.visit_expr(&item.expr));
    }

    fn visit_item_static(&mut self, item: &syn::ItemStatic) {
        let mut scope = Scope::new(ScopeKind::Function);
        scope.opaque = self.uncertain.any_unknown(&item.attrs);
        self.in_scope(scope, |walk| walk.visit_expr(&item.expr));
    }

    fn visit_item_macro(&mut self, item: &syn::ItemMacro) {
        if item.ident.is_some() {
            // A `macro_rules!` body: its calls land where it is used.
            self.record_nested(&item.mac.tokens, false);
        } else {
            self.visit_macro(&item.mac);
        }
    }

    fn visit_block(&mut self, block: &syn::Block) {
        let mut scope = Scope::new(ScopeKind::Block);
        let uncertain = self.uncertain;
        scope.add_items(
            block.stmts.iter().filter_map(|s| match s {
                syn::Stmt::Item(item) => Some(item),
                _ => None,
            }),
            uncertain,
        );
        scope.opaque |= block
            .stmts
            .iter()
            .any(|s| matches!(s, syn::Stmt::Macro(m) if may_define_items(&m.mac, uncertain)));
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

    fn visit_expr_const(&mut self, expr: &syn::ExprConst) {
        // An inline `const { }` sees no locals.
        self.in_scope(Scope::new(ScopeKind::Function), |walk| {
            visit::visit_expr_const(walk, expr)
        });
    }

    fn visit_macro(&mut self, mac: &syn::Macro) {
        if is_pipeline(&mac.path) {
            self.record(&mac.tokens, true);
        } else {
            let placed = is_standard(&mac.path, self.uncertain) && !opens_scope(&mac.tokens);
            self.record_nested(&mac.tokens, placed);
        }
    }
}

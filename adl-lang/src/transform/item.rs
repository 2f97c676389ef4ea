//! The item under `#[transform]`: a function, or an impl block with an
//! `apply(&self, input)` method, read into a [`NodeItem`]. Items of the
//! wrong shape are reported here (rule `transform_signature`).
//!
//! - `fn flip(f: Frame) -> Frame`: the node is a braced empty struct named
//!   like the function (`flip {}`), generated next to it; the function
//!   stays as it is.
//! - `impl Normalize { fn apply(&self, b: Batch) -> Batch { .. } }`: the
//!   node is `Normalize` itself, so configured nodes (a mean and a std, a
//!   crop size) are values. The block may hold other items (constructors,
//!   helpers); only `apply` is the node's body.
//! - A struct or an enum: an error saying to put `#[transform]` on its impl
//!   block.

use crate::Rule;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, ImplItem, ImplItemFn, Item, ItemFn, ItemImpl,
    PatType, PathArguments, ReturnType, Signature, Type, Visibility,
};

use crate::diagnostic::{Errors, problem, problem_at};

const SIGNATURE: Rule = Rule::TransformSignature;

/// What the node is made of.
pub(crate) struct NodeItem {
    /// The node type: the function's name, or the impl block's type.
    pub(crate) form: Form,
    /// The default node name: the function's name, or the type's in
    /// snake_case.
    pub(crate) default_name: String,
    /// Input and output, when the signature is right.
    pub(crate) signature: Option<NodeSignature>,
    /// The doc comment (the function's; the impl block's, else `apply`'s).
    pub(crate) doc: String,
    /// `#[cfg(...)]` attributes of the item, repeated on what is generated.
    pub(crate) cfgs: Vec<Attribute>,
}

/// The two forms of a node.
pub(crate) enum Form {
    /// `#[transform] fn name(..)`: the struct `name {}` is generated, with
    /// the function's visibility and doc.
    Function {
        ident: Ident,
        vis: Visibility,
        docs: Vec<Attribute>,
    },
    /// `#[transform] impl Type { fn apply(&self, ..) }`.
    Method { self_ty: Box<Type> },
}

/// `In -> Out` of a node, read from its signature.
pub(crate) struct NodeSignature {
    pub(crate) input: Type,
    pub(crate) output: Type,
    /// The parameter after the input, `rng: &mut SampleRng`, where the node
    /// draws from its per-sample generator.
    pub(crate) rng: Option<PatType>,
    /// The last parameter, `buffers: Buffers<'_>`, where the node takes
    /// the memory of the arrays it makes from its context (in a loader,
    /// the loader's pool).
    pub(crate) buffers: Option<PatType>,
    /// `-> Result<Out, E>`: errors become `adl::Error::Transform`.
    pub(crate) fallible: bool,
    /// The written return type, where a bad error type is reported.
    pub(crate) return_span: Span,
}

/// Read the item. `None` when it is not a function or an impl block (the
/// error is in `errors`).
pub(crate) fn parse(item: &Item, errors: &mut Errors) -> Option<NodeItem> {
    match item {
        Item::Fn(f) => Some(function(f, errors)),
        Item::Impl(block) => impl_block(block, errors),
        Item::Struct(s) => {
            errors.push(on_type((s.struct_token, &s.ident), &s.ident));
            None
        }
        Item::Enum(e) => {
            errors.push(on_type((e.enum_token, &e.ident), &e.ident));
            None
        }
        other => {
            errors.push(problem(
                SIGNATURE,
                first_token_span(other),
                "#[transform] goes on a function or on an impl block with an `apply` method",
            ));
            None
        }
    }
}

/// `#[transform]` on a struct or an enum, spanned at `struct Name`.
fn on_type(at: (impl ToTokens, &Ident), ident: &Ident) -> syn::Error {
    let (keyword, name) = at;
    problem_at(
        SIGNATURE,
        quote::quote!(#keyword #name),
        format_args!(
            "#[transform] goes on the impl block of `{ident}`, not on the type: write `#[transform] impl {ident} {{ fn apply(&self, input: In) -> Out {{ ... }} }}`"
        ),
    )
}

/// The span of an item's first token, for errors about the whole item.
fn first_token_span(item: &Item) -> Span {
    quote::ToTokens::to_token_stream(item)
        .into_iter()
        .find(|t| !matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == '#'))
        .map(|t| t.span())
        .unwrap_or_else(Span::call_site)
}

fn function(f: &ItemFn, errors: &mut Errors) -> NodeItem {
    let ident = f.sig.ident.clone();
    let signature = signature(&f.sig, None, errors);
    NodeItem {
        default_name: ident.unraw().to_string(),
        form: Form::Function {
            ident,
            vis: f.vis.clone(),
            docs: doc_attrs(&f.attrs),
        },
        signature,
        doc: doc_text(&f.attrs),
        cfgs: cfg_attrs(&f.attrs),
    }
}

fn impl_block(block: &ItemImpl, errors: &mut Errors) -> Option<NodeItem> {
    if let Some((_, path, _)) = &block.trait_ {
        errors.push(problem_at(
            SIGNATURE,
            path,
            "#[transform] goes on an inherent impl block (`impl Normalize { fn apply(&self, input: In) -> Out { ... } }`), not on a trait impl",
        ));
        return None;
    }
    let generic = !block.generics.params.is_empty();
    if generic {
        errors.push(problem_at(
            SIGNATURE,
            &block.generics,
            "generic transforms are not supported: a node has one input and one output type; write the impl block for a concrete type",
        ));
    }
    let type_name = match &*block.self_ty {
        Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().map(|s| s.ident.unraw().to_string())
        }
        _ => None,
    };
    let Some(type_name) = type_name else {
        errors.push(problem_at(
            SIGNATURE,
            &block.self_ty,
            "#[transform] goes on the impl block of a named type (a struct holding the node's configuration)",
        ));
        return None;
    };
    let apply = block.items.iter().find_map(|item| match item {
        ImplItem::Fn(f) if f.sig.ident == "apply" => Some(f),
        _ => None,
    });
    let signature = match apply {
        Some(apply) => signature(&apply.sig, Some(apply), errors).filter(|_| !generic),
        None => {
            errors.push(problem_at(
                SIGNATURE,
                &block.self_ty,
                format_args!(
                    "`{type_name}` has no `apply` method in this impl block; a node's impl block defines `fn apply(&self, input: In) -> Out`"
                ),
            ));
            None
        }
    };
    let mut doc = doc_text(&block.attrs);
    if doc.is_empty() {
        doc = apply.map(|f| doc_text(&f.attrs)).unwrap_or_default();
    }
    Some(NodeItem {
        form: Form::Method {
            self_ty: block.self_ty.clone(),
        },
        default_name: snake_case(&type_name),
        signature,
        doc,
        cfgs: cfg_attrs(&block.attrs),
    })
}

/// Check a node's signature: one input (after `&self` for `apply`), an
/// output, not async, not unsafe, not generic. Every problem is reported.
fn signature(
    sig: &Signature,
    method: Option<&ImplItemFn>,
    errors: &mut Errors,
) -> Option<NodeSignature> {
    let mut check = SignatureCheck {
        sig,
        fn_name: sig.ident.to_string(),
        errors,
        ok: true,
    };
    check.qualifiers();
    let mut inputs = sig.inputs.iter();
    if method.is_some() {
        check.receiver(inputs.next());
    }
    let params: Vec<&FnArg> = inputs.collect();
    let (params, buffers) = check.buffers(&params);
    let (input, rng) = check.parameters(&params);
    let output = check.output();
    match (check.ok, input, output) {
        (true, Some(input), Some((output, fallible, return_span))) => Some(NodeSignature {
            input,
            output,
            rng,
            buffers,
            fallible,
            return_span,
        }),
        _ => None,
    }
}

/// Whether `ty` is the generator's type, `SampleRng` (a path whose last
/// segment it is, such as `adl::exec::SampleRng`).
fn names_generator(ty: &Type) -> bool {
    match ty {
        Type::Paren(p) => names_generator(&p.elem),
        Type::Group(g) => names_generator(&g.elem),
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "SampleRng" && last.arguments.is_none())
        }
        _ => false,
    }
}

/// Whether `ty` is the buffers' type, `Buffers` (a path whose last
/// segment it is, such as `adl::exec::Buffers<'_>`), behind references or
/// not.
fn names_buffers(ty: &Type) -> bool {
    match ty {
        Type::Paren(p) => names_buffers(&p.elem),
        Type::Group(g) => names_buffers(&g.elem),
        Type::Reference(r) => names_buffers(&r.elem),
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "Buffers")
        }
        _ => false,
    }
}

/// The parameter `param` if it is the generator, `_: &mut SampleRng`.
fn generator(param: &FnArg) -> Option<&PatType> {
    match param {
        FnArg::Typed(arg) => match &*arg.ty {
            Type::Reference(r) if r.mutability.is_some() && names_generator(&r.elem) => Some(arg),
            _ => None,
        },
        FnArg::Receiver(_) => None,
    }
}

/// Whether `param` takes the generator, as it should (`&mut`) or not (by
/// value, or behind another reference).
fn takes_generator(param: &FnArg) -> bool {
    fn behind_references(ty: &Type) -> &Type {
        match ty {
            Type::Reference(r) => behind_references(&r.elem),
            ty => ty,
        }
    }
    matches!(param, FnArg::Typed(arg) if names_generator(behind_references(&arg.ty)))
}

/// The checks of one node signature, each reporting its problems
/// (rule `transform_signature`).
struct SignatureCheck<'a> {
    sig: &'a Signature,
    /// The function's name, for the messages.
    fn_name: String,
    errors: &'a mut Errors,
    /// Whether no problem was found so far.
    ok: bool,
}

impl SignatureCheck<'_> {
    /// Report `text` over `tokens`.
    fn fail(&mut self, tokens: &dyn ToTokens, text: String) {
        self.errors.push(problem_at(SIGNATURE, tokens, text));
        self.ok = false;
    }

    /// Report `text` over `tokens` (a parameter: the rule's help shows
    /// every signature a node may have).
    fn fail_parameters(&mut self, tokens: &dyn ToTokens, text: String) {
        self.fail(tokens, text);
    }

    /// Report `text` at `span`.
    fn fail_at(&mut self, span: Span, text: String) {
        self.errors.push(problem(SIGNATURE, span, text));
        self.ok = false;
    }

    /// Not async, not unsafe, not variadic, not generic.
    fn qualifiers(&mut self) {
        let (sig, fn_name) = (self.sig, self.fn_name.clone());
        if let Some(token) = &sig.asyncness {
            self.fail(
                token,
                format!(
                    "a transform node cannot be `async`: `{fn_name}` must return its output, not a future"
                ),
            );
        }
        if let Some(token) = &sig.unsafety {
            self.fail(
                token,
                format!(
                    "a transform node cannot be `unsafe`: the pipeline calls `{fn_name}` from safe code"
                ),
            );
        }
        if let Some(variadic) = &sig.variadic {
            self.fail(variadic, "a transform node cannot be variadic".to_owned());
        }
        if !sig.generics.params.is_empty() {
            self.fail(
                &sig.generics,
                format!(
                    "generic transforms are not supported: `{fn_name}` must name its input and output types (a node has one input and one output type)"
                ),
            );
        }
    }

    /// `apply`'s first parameter, `first`: `&self`.
    fn receiver(&mut self, first: Option<&FnArg>) {
        match first {
            Some(FnArg::Receiver(r)) if matches!(&*r.ty, Type::Reference(t) if t.mutability.is_none()) =>
                {}
            Some(FnArg::Receiver(r)) => self.fail(
                r,
                "`apply` must take `&self`: a node is shared by the workers that run it".to_owned(),
            ),
            _ => self.fail(
                &self.sig.ident,
                "`apply` must be a method taking `&self`: `fn apply(&self, input: In) -> Out`"
                    .to_owned(),
            ),
        }
    }

    /// The buffers, `buffers: Buffers<'_>` by value, where they are the
    /// last of `params`, and the other parameters. Buffers taken
    /// elsewhere or by reference are reported (once), and left out of the
    /// parameters checked next.
    fn buffers<'p>(&mut self, params: &[&'p FnArg]) -> (Vec<&'p FnArg>, Option<PatType>) {
        let fn_name = self.fn_name.clone();
        let (others, taken): (Vec<&'p FnArg>, Vec<&'p FnArg>) = params
            .iter()
            .partition(|param| !matches!(param, FnArg::Typed(arg) if names_buffers(&arg.ty)));
        let [FnArg::Typed(arg)] = taken.as_slice() else {
            if let Some(second) = taken.get(1) {
                self.fail_parameters(
                    *second,
                    format!("`{fn_name}` takes the buffers twice; take `buffers: Buffers<'_>` once, last"),
                );
            }
            return (others, None);
        };
        let last = params.last().is_some_and(|p| std::ptr::eq(*p, taken[0]));
        if !last {
            self.fail_parameters(
                taken[0],
                format!(
                    "`{fn_name}` takes the buffers before its other parameters; a node takes its input, then the generator if it draws, then `buffers: Buffers<'_>`"
                ),
            );
            return (others, None);
        }
        if matches!(&*arg.ty, Type::Reference(_)) {
            self.fail_parameters(
                &arg.ty,
                format!(
                    "`{fn_name}` takes the buffers by reference; take `Buffers<'_>` by value (it is a copy of a reference)"
                ),
            );
            return (others, None);
        }
        (others, Some(arg.clone()))
    }

    /// The input and the generator, from the parameters after `&self`:
    /// exactly one input, then the generator `rng: &mut SampleRng` or
    /// nothing.
    fn parameters(&mut self, params: &[&FnArg]) -> (Option<Type>, Option<PatType>) {
        let fn_name = self.fn_name.clone();
        match params {
            [] => {
                self.fail_at(
                    self.sig.paren_token.span.join(),
                    format!("a transform node takes exactly one input, but `{fn_name}` takes none"),
                );
                (None, None)
            }
            [first, rest @ ..] if takes_generator(first) => {
                let problem = if rest.is_empty() {
                    format!(
                        "`{fn_name}` takes the generator but no input; a node takes its input first, then the generator"
                    )
                } else {
                    format!(
                        "`{fn_name}` takes the generator first; a node takes its input first, then the generator"
                    )
                };
                self.fail_parameters(first, problem);
                (None, None)
            }
            [input] => (self.input(input), None),
            [input, second] if generator(second).is_some() => {
                (self.input(input), generator(second).cloned())
            }
            [input, second @ FnArg::Typed(arg)] if takes_generator(second) => {
                let how = match &*arg.ty {
                    Type::Reference(_) => "by shared reference",
                    _ => "by value",
                };
                self.fail_parameters(
                    &arg.ty,
                    format!(
                        "`{fn_name}` takes the generator {how}, but drawing from it advances it: take `&mut SampleRng`"
                    ),
                );
                (self.input(input), None)
            }
            [_, second, rest @ ..] => {
                let problem = if generator(second).is_some() {
                    format!(
                        "a transform node takes exactly one input and the generator, but `{fn_name}` takes {} parameters; take a tuple or a struct instead",
                        params.len()
                    )
                } else {
                    format!(
                        "a transform node takes exactly one input, but `{fn_name}` takes {}; take a tuple or a struct instead",
                        params.len()
                    )
                };
                let extra: TokenStream = if generator(second).is_some() {
                    quote::quote!(#(#rest),*)
                } else {
                    quote::quote!(#second #(, #rest)*)
                };
                self.fail_parameters(&extra, problem);
                (None, None)
            }
        }
    }

    /// The input `param`: taken by value, of a named type.
    fn input(&mut self, param: &FnArg) -> Option<Type> {
        let fn_name = self.fn_name.clone();
        let FnArg::Typed(arg) = param else {
            // A second `self`: rustc's error.
            self.ok = false;
            return None;
        };
        match &*arg.ty {
            Type::Reference(r) => {
                self.fail(
                    r,
                    format!(
                        "a transform node takes its input by value: `{fn_name}` takes a reference"
                    ),
                );
                None
            }
            Type::ImplTrait(t) => {
                self.fail(
                    t,
                    "generic transforms are not supported: the input must be a named type, not `impl Trait`".to_owned(),
                );
                None
            }
            ty => Some(ty.clone()),
        }
    }

    /// The output, whether it is fallible (`-> Result<Out, E>`), and the
    /// written return type's span.
    fn output(&mut self) -> Option<(Type, bool, Span)> {
        let fn_name = self.fn_name.clone();
        match &self.sig.output {
            ReturnType::Default => {
                self.fail_at(
                    self.sig.paren_token.span.close(),
                    format!(
                        "`{fn_name}` has no return type; a transform node returns its output: `-> Out` or `-> Result<Out, E>`"
                    ),
                );
                None
            }
            ReturnType::Type(_, ty) => match &**ty {
                Type::ImplTrait(t) => {
                    self.fail(
                        t,
                        "a transform node's output must be a named type, not `impl Trait`"
                            .to_owned(),
                    );
                    None
                }
                ty => match result_ok_type(ty) {
                    Some(ok) => Some((ok.clone(), true, ty.span())),
                    None => Some((ty.clone(), false, ty.span())),
                },
            },
        }
    }
}

/// `Out` of `Result<Out, E>` (any path whose last segment is `Result`,
/// such as `std::io::Result<Out>` or `adl::Result<Out>`).
fn result_ok_type(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if p.qself.is_some() || last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(ok) => Some(ok),
        _ => None,
    }
}

fn doc_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .cloned()
        .collect()
}

fn cfg_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .cloned()
        .collect()
}

/// The text of the `///` lines, one leading space per line removed.
fn doc_text(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.lines()
                .map(|l| l.strip_prefix(' ').unwrap_or(l).to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    lines.join("\n").trim().to_owned()
}

/// `RandomCrop` → `random_crop`, `HTTPFetch` → `http_fetch`.
pub(crate) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let after_lower = i > 0 && chars[i - 1].is_lowercase();
            let starts_word = i > 0
                && chars[i - 1].is_uppercase()
                && chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if after_lower || starts_word {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn snake_case_names() {
        assert_eq!(snake_case("Normalize"), "normalize");
        assert_eq!(snake_case("RandomCrop"), "random_crop");
        assert_eq!(snake_case("HTTPFetch"), "http_fetch");
        assert_eq!(snake_case("Resize2D"), "resize2d");
        assert_eq!(snake_case("ToF32"), "to_f32");
    }
}

//! `#[derive(Collate)]`: parse, check, generate.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Path, Type, Visibility};

use crate::Rule;
use crate::diagnostic::rule_error;

/// Expand `#[derive(Collate)]` on `input`. Errors become `compile_error!`
/// (rules `collate_derive_shape` and `collate_derive_attribute`), and the
/// expansion follows them where it can, so that one mistake is one error:
/// a bad attribute is left out (the field is stacked), and on what is not
/// a struct with fields the batch type is still declared, empty.
pub fn expand(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    match parse(&input) {
        Ok((parsed, errors)) => {
            let errors: TokenStream = errors.iter().map(syn::Error::to_compile_error).collect();
            let expansion = generate(&input, &parsed);
            quote!(#errors #expansion)
        }
        Err(error) => {
            let error = error.to_compile_error();
            let (vis, batch) = (&input.vis, format_ident!("{}Batch", input.ident));
            let doc = format!(
                "A batch of [`{}`]: empty, since `#[derive(Collate)]` failed on it (see the error).",
                input.ident
            );
            // With the sample's parameters, each used, so that
            // `FrameBatch<T>` is still a type.
            let generics = &input.generics;
            let input_ty = &input.ident;
            let (_, ty_generics, where_clause) = generics.split_for_impl();
            quote! {
                #error
                #[doc = #doc]
                #vis struct #batch #generics #where_clause (
                    ::core::marker::PhantomData<fn() -> #input_ty #ty_generics>
                );
            }
        }
    }
}

/// The trait a std derive implements (`Debug` -> `::core::fmt::Debug`);
/// `None` for other derives.
fn std_trait(derive: &Path) -> Option<TokenStream> {
    let name = derive.segments.last()?.ident.to_string();
    Some(match name.as_str() {
        "Debug" => quote!(::core::fmt::Debug),
        "Clone" => quote!(::core::clone::Clone),
        "Copy" => quote!(::core::marker::Copy),
        "PartialEq" => quote!(::core::cmp::PartialEq),
        "Eq" => quote!(::core::cmp::Eq),
        "PartialOrd" => quote!(::core::cmp::PartialOrd),
        "Ord" => quote!(::core::cmp::Ord),
        "Hash" => quote!(::core::hash::Hash),
        "Default" => quote!(::core::default::Default),
        _ => return None,
    })
}

/// How one field is collated.
#[derive(Clone)]
pub(crate) enum Strategy {
    Stack,
    List,
    Concat,
    Pad,
    Packed,
    /// `#[collate(with = Path)]`: the program's own strategy, a type that
    /// implements `adl::collate::Strategy<T>` for the field's type.
    With(Path),
}

/// The strategies a user names, in one table: the word of
/// `#[collate(word)]` (and of `collate: word` in `pipeline!`) and the type
/// in `adl::collate` that is the strategy (a collate too).
const NAMED_STRATEGIES: [(Strategy, &str, &str); 4] = [
    (Strategy::List, "list", "List"),
    (Strategy::Concat, "concat", "ConcatRows"),
    (Strategy::Pad, "pad", "Pad"),
    (Strategy::Packed, "packed", "Packed"),
];

struct Field {
    /// `image` for named fields, `0` for tuple fields.
    member: syn::Member,
    /// The name the builder uses for it.
    binding: Ident,
    vis: Visibility,
    ty: Type,
    strategy: Strategy,
    span: Span,
}

struct Parsed {
    krate: Path,
    derives: Vec<Path>,
    named: bool,
    fields: Vec<Field>,
}

/// Parse and check: a struct with fields, known attributes only. Every
/// error found is reported, not only the first: what is not a struct with
/// fields is `Err`; attribute errors come with the parse, which leaves the
/// bad attribute out.
fn parse(input: &DeriveInput) -> syn::Result<(Parsed, Vec<syn::Error>)> {
    let mut errors: Vec<syn::Error> = Vec::new();
    let (krate, derives) = struct_attributes(input, &mut errors);
    let (named, raw_fields) = match shape(input) {
        Ok(shape) => shape,
        // A shape error comes with the attribute errors found before it.
        Err(error) => {
            return Err(errors.into_iter().fold(error, |mut all, e| {
                all.combine(e);
                all
            }));
        }
    };
    let fields = raw_fields
        .into_iter()
        .enumerate()
        .map(|(i, f)| field(i, f, &mut errors))
        .collect();
    Ok((
        Parsed {
            krate,
            derives,
            named,
            fields,
        },
        errors,
    ))
}

/// The struct's `#[collate(crate = "...", derive(...))]`: the crate path
/// (default `::adl`) and the derives of the batch. A bad item is reported
/// and left out, and the items after it are still read.
fn struct_attributes(input: &DeriveInput, errors: &mut Vec<syn::Error>) -> (Path, Vec<Path>) {
    let mut krate: Path = syn::parse_quote!(::adl);
    let mut krate_given = false;
    let mut derives = Vec::new();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("collate")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                if krate_given {
                    errors.push(attribute_error(&meta, "`crate` is given twice"));
                    return skip_value(&meta);
                }
                krate_given = true;
                let lit: syn::LitStr = meta.value()?.parse()?;
                krate = lit.parse()?;
                Ok(())
            } else if meta.path.is_ident("derive") {
                meta.parse_nested_meta(|inner| {
                    derives.push(inner.path);
                    Ok(())
                })
            } else {
                // Reported, and the items after it still read.
                errors.push(attribute_error(
                    &meta,
                    "unknown struct attribute; expected `crate = \"...\"` or `derive(...)`",
                ));
                skip_value(&meta)
            }
        });
        errors.extend(result.err());
    }
    (krate, derives)
}

/// Whether the struct's fields are named, and its fields; a
/// `collate_derive_shape` error for an enum, a union or a unit struct.
fn shape(input: &DeriveInput) -> syn::Result<(bool, Vec<&syn::Field>)> {
    let shape_error = |span: Span, problem: &str| {
        rule_error(span, Rule::CollateDeriveShape, &[("problem", problem)])
    };
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(e) => {
            return Err(shape_error(
                e.enum_token.span,
                "#[derive(Collate)] works on structs: an enum's variants have different layouts and cannot be batched field by field",
            ));
        }
        Data::Union(u) => {
            return Err(shape_error(
                u.union_token.span,
                "#[derive(Collate)] works on structs, not unions",
            ));
        }
    };
    match &data.fields {
        Fields::Named(f) => Ok((true, f.named.iter().collect())),
        Fields::Unnamed(f) => Ok((false, f.unnamed.iter().collect())),
        Fields::Unit => Err(shape_error(
            input.ident.span(),
            "#[derive(Collate)] needs a struct with fields; a unit struct has nothing to collate",
        )),
    }
}

/// Field `i` of the struct, with its strategy.
fn field(i: usize, f: &syn::Field, errors: &mut Vec<syn::Error>) -> Field {
    let (member, binding) = match &f.ident {
        Some(ident) => (syn::Member::Named(ident.clone()), ident.clone()),
        None => (syn::Member::Unnamed(i.into()), format_ident!("field_{}", i)),
    };
    Field {
        member,
        binding,
        vis: f.vis.clone(),
        ty: f.ty.clone(),
        strategy: field_strategy(f, errors),
        span: f.ty.span(),
    }
}

/// The field's `#[collate(list | concat | pad | packed)]` or
/// `#[collate(with = Path)]`, else `Stack`. An unknown or second strategy
/// is reported and left out. (Also read by `#[derive(SensorSet)]`, which
/// passes a sensor's strategy on to its field of the sample.)
pub(crate) fn field_strategy(f: &syn::Field, errors: &mut Vec<syn::Error>) -> Strategy {
    let mut strategy = Strategy::Stack;
    let mut chosen = false;
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("collate")) {
        let result = attr.parse_nested_meta(|meta| {
            if chosen {
                errors.push(attribute_error(
                    &meta,
                    "a field has one collate strategy; this one is given a second",
                ));
                return skip_value(&meta);
            }
            chosen = true;
            if meta.path.is_ident("with") {
                let value = match meta.value() {
                    Ok(value) => value,
                    Err(_) => {
                        errors.push(attribute_error(
                            &meta,
                            "`with` names the strategy's type: `#[collate(with = MyStrategy)]`",
                        ));
                        chosen = false;
                        return skip_value(&meta);
                    }
                };
                strategy = Strategy::With(value.parse()?);
                return Ok(());
            }
            let named = meta
                .path
                .get_ident()
                .and_then(|w| Strategy::named(&w.to_string()));
            let Some(named) = named else {
                errors.push(attribute_error(
                    &meta,
                    "unknown collate strategy; expected `list`, `concat`, `pad`, `packed` or `with = MyStrategy` (a type that implements `adl::collate::Strategy` for the field's type)",
                ));
                chosen = false;
                return skip_value(&meta);
            };
            strategy = named;
            Ok(())
        });
        errors.extend(result.err());
    }
    strategy
}

/// Step over what follows a bad attribute item (`= value` or `(...)`), so
/// that the items after it are still read.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
    }
    Ok(())
}

/// A `collate_derive_attribute` error at the attribute `meta` names.
fn attribute_error(meta: &syn::meta::ParseNestedMeta<'_>, problem: &str) -> syn::Error {
    rule_error(
        meta.path.span(),
        Rule::CollateDeriveAttribute,
        &[("problem", problem)],
    )
}

/// Generate the batch struct, its builder, and the two impls.
fn generate(input: &DeriveInput, parsed: &Parsed) -> TokenStream {
    let items = BatchItems::new(input, parsed);
    let batch_struct = items.batch_struct();
    let builder_struct = items.builder_struct();
    let collatable = items.collatable_impl();
    let batch_builder = items.batch_builder_impl();
    let recycle = items.recycle_impl();
    quote! {
        #batch_struct

        #builder_struct

        #collatable

        #batch_builder

        #recycle
    }
}

impl Strategy {
    /// The strategy a user names `word` (`pad`), if any.
    pub(crate) fn named(word: &str) -> Option<Strategy> {
        NAMED_STRATEGIES
            .iter()
            .find(|(_, w, _)| *w == word)
            .map(|(s, _, _)| s.clone())
    }

    /// Its entry of [`NAMED_STRATEGIES`]: none for the default (`Stack`)
    /// and a program's own.
    fn entry(&self) -> Option<&'static (Strategy, &'static str, &'static str)> {
        let kind = std::mem::discriminant(self);
        NAMED_STRATEGIES
            .iter()
            .find(|(s, _, _)| std::mem::discriminant(s) == kind)
    }

    /// The field attribute that chooses this strategy, `#[collate(pad)]`
    /// or `#[collate(with = Path)]`, its name at `span`; none for the
    /// default (`Stack`).
    pub(crate) fn attribute(&self, span: Span) -> Option<TokenStream> {
        if let Strategy::With(path) = self {
            return Some(quote_spanned!(span=> #[collate(with = #path)]));
        }
        let (_, word, _) = self.entry()?;
        let name = Ident::new(word, span);
        Some(quote!(#[collate(#name)]))
    }

    /// The name of adl's strategy type in `adl::collate` (`Pad`), at
    /// `span`; `Stack` for the default (a program's own has its path,
    /// [`type_path`](Self::type_path)).
    pub(crate) fn type_ident(&self, span: Span) -> Ident {
        Ident::new(self.entry().map_or("Stack", |(_, _, ty)| ty), span)
    }

    /// The strategy's type (`adl::collate::Pad`, or the program's own).
    pub(crate) fn type_path(&self, krate: &Path) -> TokenStream {
        if let Strategy::With(path) = self {
            return quote!(#path);
        }
        let name = self.type_ident(Span::call_site());
        quote!(#krate::collate::#name)
    }
}

impl Field {
    /// The strategy that batches the field (`Stack`, `List`, ...).
    fn strategy(&self, krate: &Path) -> TokenStream {
        self.strategy.type_path(krate)
    }

    /// The type of the field's batch.
    fn batch_ty(&self, krate: &Path) -> TokenStream {
        let (s, ty) = (self.strategy(krate), &self.ty);
        quote!(<#s as #krate::collate::Strategy<#ty>>::Batch)
    }

    /// The type of the builder of the field's batch.
    fn builder_ty(&self, krate: &Path) -> TokenStream {
        let (s, ty) = (self.strategy(krate), &self.ty);
        quote!(<#s as #krate::collate::Strategy<#ty>>::Builder)
    }

    /// The field as a segment of an error's path: `.image`, `.0`.
    fn segment(&self) -> String {
        match &self.member {
            syn::Member::Named(i) => format!(".{}", i.unraw()),
            syn::Member::Unnamed(i) => format!(".{}", i.index),
        }
    }
}

/// What the generated items of one `#[derive(Collate)]` share.
struct BatchItems<'a> {
    input: &'a DeriveInput,
    parsed: &'a Parsed,
    /// `FrameBatch`.
    batch: Ident,
    /// `FrameBatchBuilder`.
    builder: Ident,
    /// Each field's strategy bound, spanned at the field's type, so an
    /// uncollatable field is reported there.
    bounds: Vec<TokenStream>,
    /// What the batch's std derives need of the fields' batches (for a
    /// generic sample only).
    derive_bounds: Vec<TokenStream>,
    /// The sample's where clause, with both kinds of bound.
    where_all: TokenStream,
}

impl<'a> BatchItems<'a> {
    fn new(input: &'a DeriveInput, parsed: &'a Parsed) -> Self {
        let krate = &parsed.krate;
        let bounds: Vec<TokenStream> = parsed
            .fields
            .iter()
            .map(|f| {
                let (s, ty) = (f.strategy(krate), &f.ty);
                quote_spanned!(f.span=> #s: #krate::collate::Strategy<#ty>)
            })
            .collect();
        let derive_bounds = derive_bounds(input, parsed);
        let mut where_all = quote!(where);
        if let Some(w) = &input.generics.where_clause {
            // Each predicate with its own comma: the user's list may or may not
            // end with one.
            let preds = w.predicates.iter();
            where_all = quote!(where #(#preds,)*);
        }
        let where_all = quote!(#where_all #(#bounds,)* #(#derive_bounds,)*);
        BatchItems {
            input,
            parsed,
            batch: format_ident!("{}Batch", input.ident),
            builder: format_ident!("{}BatchBuilder", input.ident),
            bounds,
            derive_bounds,
            where_all,
        }
    }

    /// The batch struct: each field's batch, with the sample's
    /// visibility, its parameters and their defaults (so that a sample
    /// whose parameters default has a batch whose do too), and the
    /// derives asked for.
    fn batch_struct(&self) -> TokenStream {
        let Parsed {
            krate,
            derives,
            named,
            fields,
        } = self.parsed;
        let (name, vis, batch, where_all) = (
            &self.input.ident,
            &self.input.vis,
            &self.batch,
            &self.where_all,
        );
        let decl_generics = &self.input.generics;
        let batch_doc =
            format!("A batch of [`{name}`], made by `#[derive(Collate)]`: each field batched.");
        let derive_attr = if derives.is_empty() {
            quote!()
        } else {
            quote!(#[derive(#(#derives),*)])
        };
        let field_vis: Vec<&Visibility> = fields.iter().map(|f| &f.vis).collect();
        let batch_tys: Vec<TokenStream> = fields.iter().map(|f| f.batch_ty(krate)).collect();
        if *named {
            let bindings = fields.iter().map(|f| &f.binding);
            let docs = fields
                .iter()
                .map(|f| format!("The batch of field `{}`.", f.binding.unraw()));
            quote! {
                #[doc = #batch_doc]
                #derive_attr
                #vis struct #batch #decl_generics #where_all {
                    #(#[doc = #docs] #field_vis #bindings: #batch_tys,)*
                }
            }
        } else {
            quote! {
                #[doc = #batch_doc]
                #derive_attr
                #vis struct #batch #decl_generics (#(#field_vis #batch_tys),*) #where_all;
            }
        }
    }

    /// The builder struct: each field's batch builder.
    fn builder_struct(&self) -> TokenStream {
        let krate = &self.parsed.krate;
        let (vis, batch, builder, where_all) =
            (&self.input.vis, &self.batch, &self.builder, &self.where_all);
        let (impl_generics, _, _) = self.input.generics.split_for_impl();
        let builder_doc =
            format!("Builds a [`{batch}`] sample by sample (generated by `#[derive(Collate)]`).");
        let bindings = self.parsed.fields.iter().map(|f| &f.binding);
        let builder_tys = self.parsed.fields.iter().map(|f| f.builder_ty(krate));
        quote! {
            #[doc = #builder_doc]
            #[doc(hidden)]
            #vis struct #builder #impl_generics #where_all {
                #(#bindings: #builder_tys,)*
            }
        }
    }

    /// `Collatable` on the sample: its batch and builder types, and a
    /// builder sized from the first sample, its fields' memory from a
    /// context's buffers when it has them (`builder_in`).
    fn collatable_impl(&self) -> TokenStream {
        let Parsed { krate, fields, .. } = self.parsed;
        let (name, batch, builder, where_all) = (
            &self.input.ident,
            &self.batch,
            &self.builder,
            &self.where_all,
        );
        let (impl_generics, ty_generics, _) = self.input.generics.split_for_impl();
        let bindings = fields.iter().map(|f| &f.binding);
        let strategies = fields.iter().map(|f| f.strategy(krate));
        let tys = fields.iter().map(|f| &f.ty);
        let members = fields.iter().map(|f| &f.member);
        quote! {
            impl #impl_generics #krate::collate::Collatable for #name #ty_generics #where_all {
                type Batch = #batch #ty_generics;
                type Builder = #builder #ty_generics;

                fn builder(__adl_first: &Self, __adl_len: usize) -> Self::Builder {
                    <Self as #krate::collate::Collatable>::builder_in(__adl_first, __adl_len, #krate::exec::Buffers::none())
                }

                fn builder_in(__adl_first: &Self, __adl_len: usize, __adl_buffers: #krate::exec::Buffers<'_>) -> Self::Builder {
                    #builder {
                        #(#bindings: <#strategies as #krate::collate::Strategy<#tys>>::builder_in(&__adl_first.#members, __adl_len, __adl_buffers),)*
                    }
                }
            }
        }
    }

    /// `BatchBuilder` on the builder: each sample's fields pushed to
    /// their builders, and the batch built from theirs; a field's error
    /// names its field.
    fn batch_builder_impl(&self) -> TokenStream {
        let Parsed {
            krate,
            named,
            fields,
            ..
        } = self.parsed;
        let (name, batch, builder, where_all) = (
            &self.input.ident,
            &self.batch,
            &self.builder,
            &self.where_all,
        );
        let (impl_generics, ty_generics, _) = self.input.generics.split_for_impl();
        let bindings: Vec<&Ident> = fields.iter().map(|f| &f.binding).collect();
        // Locals for the destructured fields, prefixed so that no field name
        // (`position`, `item`...) shadows the generated code's own names.
        let locals: Vec<Ident> = fields
            .iter()
            .map(|f| format_ident!("__adl_field_{}", f.binding.unraw()))
            .collect();
        let members = fields.iter().map(|f| &f.member);
        let builder_tys = fields.iter().map(|f| f.builder_ty(krate));
        let tys: Vec<&Type> = fields.iter().map(|f| &f.ty).collect();
        let segments = fields.iter().map(Field::segment);
        let destructure = if *named {
            quote!(#name { #(#members: #locals),* })
        } else {
            quote!(#name ( #(#locals),* ))
        };
        let finishes = fields.iter().map(|f| {
            let (b, ty, binding, segment) = (f.builder_ty(krate), &f.ty, &f.binding, f.segment());
            quote!(<#b as #krate::collate::BatchBuilder<#ty>>::finish(self.#binding).map_err(|e| e.within(#segment))?)
        });
        let construct_batch = if *named {
            quote!(#batch { #(#bindings: #finishes),* })
        } else {
            quote!(#batch ( #(#finishes),* ))
        };
        quote! {
            impl #impl_generics #krate::collate::BatchBuilder<#name #ty_generics> for #builder #ty_generics #where_all {
                type Batch = #batch #ty_generics;

                fn push(&mut self, __adl_item: #name #ty_generics, __adl_position: usize) -> #krate::Result<()> {
                    let #destructure = __adl_item;
                    #(
                        <#builder_tys as #krate::collate::BatchBuilder<#tys>>::push(&mut self.#bindings, #locals, __adl_position)
                            .map_err(|e| e.within(#segments))?;
                    )*
                    ::core::result::Result::Ok(())
                }

                fn finish(self) -> #krate::Result<Self::Batch> {
                    ::core::result::Result::Ok(#construct_batch)
                }
            }
        }
    }

    /// `Recycle` on the batch: the batch struct's generics are the
    /// sample's, with the strategy bounds added.
    fn recycle_impl(&self) -> TokenStream {
        let mut batch_generics = self.input.generics.clone();
        batch_generics.make_where_clause().predicates.extend(
            self.bounds
                .iter()
                .chain(&self.derive_bounds)
                .map(|b| syn::parse2::<syn::WherePredicate>(b.clone()))
                .filter_map(Result::ok),
        );
        let krate = &self.parsed.krate;
        let fields: Vec<(syn::Member, TokenStream)> = self
            .parsed
            .fields
            .iter()
            .map(|f| (f.member.clone(), f.batch_ty(krate)))
            .collect();
        crate::recycle::recycle_impl(krate, &self.batch, &batch_generics, &fields)
    }
}

/// A generic sample's batch derives what it is asked to where its
/// fields' batches do: the std derives bound the type parameters, not the
/// fields' batch types, so those bounds are added here.
fn derive_bounds(input: &DeriveInput, parsed: &Parsed) -> Vec<TokenStream> {
    if input.generics.params.is_empty() {
        return Vec::new();
    }
    let traits: Vec<TokenStream> = parsed.derives.iter().filter_map(std_trait).collect();
    parsed
        .fields
        .iter()
        .flat_map(|f| {
            let b = f.batch_ty(&parsed.krate);
            traits.iter().map(move |t| quote!(#b: #t))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    //! Snapshots of the expansion of each `#[derive(Collate)]` form.

    use quote::quote;

    fn expanded(input: proc_macro2::TokenStream) -> String {
        crate::test_support::pretty(super::expand(input))
    }

    #[test]
    fn named_struct() {
        insta::assert_snapshot!(expanded(quote! {
            pub struct Frame { image: Array3<u8>, pub label: i64, name: String }
        }));
    }

    #[test]
    fn tuple_struct_with_derives() {
        insta::assert_snapshot!(expanded(quote! {
            #[collate(derive(Debug, Clone))]
            struct Pose(f32, [f32; 3]);
        }));
    }

    #[test]
    fn field_strategies_and_crate_path() {
        insta::assert_snapshot!(expanded(quote! {
            #[collate(crate = "my_adl")]
            struct Scan {
                #[collate(list)] raw: Vec<u8>,
                #[collate(concat)] points: Array2<f32>,
                #[collate(pad)] track: Array2<f32>,
                #[collate(packed)] cloud: Array2<f32>,
            }
        }));
    }

    #[test]
    fn a_programs_own_strategy() {
        insta::assert_snapshot!(expanded(quote! {
            struct Scan {
                #[collate(with = crate::strategies::Longest)] track: Vec<f32>,
                label: u8,
            }
        }));
    }

    #[test]
    fn with_needs_a_type() {
        let text = super::expand(quote! {
            struct Scan { #[collate(with)] track: Vec<f32>, #[collate(with = 3)] other: u8 }
        })
        .to_string();
        assert!(
            text.contains("`with` names the strategy's type: `#[collate(with = MyStrategy)]`"),
            "{text}"
        );
        assert!(text.contains("expected identifier"), "{text}");
    }

    #[test]
    fn generic_struct() {
        insta::assert_snapshot!(expanded(quote! {
            struct Generic<T: Clone> where T: Send { value: T, weight: f32 }
        }));
    }

    #[test]
    fn errors_are_all_reported() {
        insta::assert_snapshot!(expanded(quote! {
            #[collate(flatten)]
            struct Bad { #[collate(stack_twice)] a: u8, #[collate(transpose)] b: u8 }
        }));
    }

    #[test]
    fn conflicting_attributes_are_errors() {
        insta::assert_snapshot!(expanded(quote! {
            #[collate(crate = "a", crate = "b")]
            struct Twice { #[collate(list, pad)] a: Vec<u8>, #[collate(list)] #[collate(concat)] b: u8 }
        }));
    }

    #[test]
    fn enums_and_unit_structs_are_refused() {
        insta::assert_snapshot!(expanded(quote! { enum E { A(u8), B } }));
        // The attribute errors beside a shape error are kept, and the items
        // after a bad one are still read.
        let text = super::expand(quote! {
            #[collate(flatten, derive(Clone))]
            struct S { #[collate(stack_them, list)] a: Vec<u8> }
        })
        .to_string();
        assert!(
            text.contains("unknown struct attribute") && text.contains("unknown collate strategy")
        );
        assert!(
            text.contains("derive (Clone)"),
            "derive(Clone) after a bad item is kept: {text}"
        );
        assert!(
            text.contains("collate :: List"),
            "list after a bad strategy is kept: {text}"
        );
        let text = super::expand(quote! { #[collate(flatten)] enum E { A } }).to_string();
        assert!(text.contains("unknown struct attribute") && text.contains("works on structs"));
        insta::assert_snapshot!(expanded(quote! { struct Unit; }));
    }
}

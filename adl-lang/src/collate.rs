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
enum Strategy {
    Stack,
    List,
    Concat,
    Pad,
}

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
    // A shape error comes with the attribute errors found before it.
    let shape_error = |error: syn::Error, errors: Vec<syn::Error>| {
        errors.into_iter().fold(error, |mut all, e| {
            all.combine(e);
            all
        })
    };
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(e) => {
            return Err(shape_error(
                rule_error(
                    e.enum_token.span,
                    Rule::CollateDeriveShape,
                    &[(
                        "problem",
                        "#[derive(Collate)] works on structs: an enum's variants have different layouts and cannot be batched field by field",
                    )],
                ),
                errors,
            ));
        }
        Data::Union(u) => {
            return Err(shape_error(
                rule_error(
                    u.union_token.span,
                    Rule::CollateDeriveShape,
                    &[("problem", "#[derive(Collate)] works on structs, not unions")],
                ),
                errors,
            ));
        }
    };
    let (named, raw_fields) = match &data.fields {
        Fields::Named(f) => (true, f.named.iter().collect::<Vec<_>>()),
        Fields::Unnamed(f) => (false, f.unnamed.iter().collect()),
        Fields::Unit => {
            return Err(shape_error(
                rule_error(
                    input.ident.span(),
                    Rule::CollateDeriveShape,
                    &[(
                        "problem",
                        "#[derive(Collate)] needs a struct with fields; a unit struct has nothing to collate",
                    )],
                ),
                errors,
            ));
        }
    };
    let mut fields = Vec::new();
    for (i, f) in raw_fields.into_iter().enumerate() {
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
                strategy = if meta.path.is_ident("list") {
                    Strategy::List
                } else if meta.path.is_ident("concat") {
                    Strategy::Concat
                } else if meta.path.is_ident("pad") {
                    Strategy::Pad
                } else {
                    errors.push(attribute_error(
                        &meta,
                        "unknown collate strategy; expected `list`, `concat` or `pad`",
                    ));
                    chosen = false;
                    return skip_value(&meta);
                };
                Ok(())
            });
            errors.extend(result.err());
        }
        let (member, binding) = match &f.ident {
            Some(ident) => (syn::Member::Named(ident.clone()), ident.clone()),
            None => (syn::Member::Unnamed(i.into()), format_ident!("field_{}", i)),
        };
        fields.push(Field {
            member,
            binding,
            vis: f.vis.clone(),
            ty: f.ty.clone(),
            strategy,
            span: f.ty.span(),
        });
    }
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
    let Parsed {
        krate,
        derives,
        named,
        fields,
    } = parsed;
    let name = &input.ident;
    let vis = &input.vis;
    let batch = format_ident!("{}Batch", name);
    let builder = format_ident!("{}BatchBuilder", name);
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();

    let strategy = |f: &Field| -> TokenStream {
        let s = match f.strategy {
            Strategy::Stack => quote!(Stack),
            Strategy::List => quote!(List),
            Strategy::Concat => quote!(ConcatRows),
            Strategy::Pad => quote!(Pad),
        };
        quote!(#krate::collate::#s)
    };
    // Bounds spanned at each field's type, so an uncollatable field is
    // reported there.
    let bounds: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let (s, ty) = (strategy(f), &f.ty);
            quote_spanned!(f.span=> #s: #krate::collate::Strategy<#ty>)
        })
        .collect();
    let mut where_all = quote!(where);
    if let Some(w) = where_clause {
        // Each predicate with its own comma: the user's list may or may not
        // end with one.
        let preds = w.predicates.iter();
        where_all = quote!(where #(#preds,)*);
    }
    let batch_ty = |f: &Field| {
        let (s, ty) = (strategy(f), &f.ty);
        quote!(<#s as #krate::collate::Strategy<#ty>>::Batch)
    };
    // A generic sample's batch derives what it is asked to where its
    // fields' batches do: the std derives bound the type parameters, not
    // the fields' batch types, so those bounds are added here.
    let derive_bounds: Vec<TokenStream> = if !input.generics.params.is_empty() {
        let traits: Vec<TokenStream> = derives.iter().filter_map(std_trait).collect();
        fields
            .iter()
            .flat_map(|f| {
                let b = batch_ty(f);
                traits.iter().map(move |t| quote!(#b: #t))
            })
            .collect()
    } else {
        Vec::new()
    };
    let where_all = quote!(#where_all #(#bounds,)* #(#derive_bounds,)*);
    // The batch is declared with the sample's parameters and their
    // defaults, so that a sample whose parameters default has a batch whose
    // do too.
    let decl_generics = &input.generics;
    let builder_ty = |f: &Field| {
        let (s, ty) = (strategy(f), &f.ty);
        quote!(<#s as #krate::collate::Strategy<#ty>>::Builder)
    };
    let batch_doc =
        format!("A batch of [`{name}`], made by `#[derive(Collate)]`: each field batched.");
    let builder_doc =
        format!("Builds a [`{batch}`] sample by sample (generated by `#[derive(Collate)]`).");
    let derive_attr = if derives.is_empty() {
        quote!()
    } else {
        quote!(#[derive(#(#derives),*)])
    };

    let bindings: Vec<&Ident> = fields.iter().map(|f| &f.binding).collect();
    // Locals for the destructured fields, prefixed so that no field name
    // (`position`, `item`...) shadows the generated code's own names.
    let locals: Vec<Ident> = fields
        .iter()
        .map(|f| format_ident!("__adl_field_{}", f.binding.unraw()))
        .collect();
    let members: Vec<&syn::Member> = fields.iter().map(|f| &f.member).collect();
    let field_vis: Vec<&Visibility> = fields.iter().map(|f| &f.vis).collect();
    let batch_tys: Vec<TokenStream> = fields.iter().map(batch_ty).collect();
    let builder_tys: Vec<TokenStream> = fields.iter().map(builder_ty).collect();
    let strategies: Vec<TokenStream> = fields.iter().map(strategy).collect();
    let tys: Vec<&Type> = fields.iter().map(|f| &f.ty).collect();
    let segments: Vec<String> = fields
        .iter()
        .map(|f| match &f.member {
            syn::Member::Named(i) => format!(".{}", i.unraw()),
            syn::Member::Unnamed(i) => format!(".{}", i.index),
        })
        .collect();

    let batch_def = if *named {
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
    };
    let destructure = if *named {
        quote!(#name { #(#members: #locals),* })
    } else {
        quote!(#name ( #(#locals),* ))
    };
    let finishes: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let (b, ty, binding) = (builder_ty(f), &f.ty, &f.binding);
            let segment = match &f.member {
                syn::Member::Named(i) => format!(".{}", i.unraw()),
                syn::Member::Unnamed(i) => format!(".{}", i.index),
            };
            quote!(<#b as #krate::collate::BatchBuilder<#ty>>::finish(self.#binding).map_err(|e| e.within(#segment))?)
        })
        .collect();
    let construct_batch = if *named {
        quote!(#batch { #(#bindings: #finishes),* })
    } else {
        quote!(#batch ( #(#finishes),* ))
    };

    // The batch struct's generics are the sample's, with the strategy
    // bounds added.
    let mut batch_generics = input.generics.clone();
    batch_generics.make_where_clause().predicates.extend(
        bounds
            .iter()
            .chain(&derive_bounds)
            .map(|b| syn::parse2::<syn::WherePredicate>(b.clone()))
            .filter_map(Result::ok),
    );
    let members: Vec<syn::Member> = fields.iter().map(|f| f.member.clone()).collect();
    let recycle = crate::recycle::recycle_impl(krate, &batch, &batch_generics, &members);

    quote! {
        #batch_def

        #[doc = #builder_doc]
        #[doc(hidden)]
        #vis struct #builder #impl_generics #where_all {
            #(#bindings: #builder_tys,)*
        }

        impl #impl_generics #krate::collate::Collatable for #name #ty_generics #where_all {
            type Batch = #batch #ty_generics;
            type Builder = #builder #ty_generics;

            fn builder(__adl_first: &Self, __adl_len: usize) -> Self::Builder {
                #builder {
                    #(#bindings: <#strategies as #krate::collate::Strategy<#tys>>::builder(&__adl_first.#members, __adl_len),)*
                }
            }
        }

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

        #recycle
    }
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
            }
        }));
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

//! `#[derive(Recycle)]`, and the `Recycle` impl that `#[derive(Collate)]`
//! gives its batch struct: every field is recycled when its type implements
//! `Recycle` and dropped otherwise. A field whose type names a type
//! parameter of the struct is recycled through a bound (`C: Recycle`, or
//! `Array2<T>: Recycle`) on the impl: inside a generic impl, which of the
//! two a field is cannot be told, and a generic batch struct (`FrameBatch<C,
//! R>`) would otherwise drop every array it holds.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Path};

/// Expand `#[derive(Recycle)]` on `input`. Errors become `compile_error!`.
pub fn expand(input: TokenStream) -> TokenStream {
    match syn::parse2::<DeriveInput>(input).and_then(|input| {
        let krate = crate_path(&input)?;
        let fields = fields(&input)?;
        Ok(recycle_impl(&krate, &input.ident, &input.generics, &fields))
    }) {
        Ok(tokens) => tokens,
        Err(error) => error.to_compile_error(),
    }
}

/// `#[recycle(crate = "path")]`, else `::adl`.
fn crate_path(input: &DeriveInput) -> syn::Result<Path> {
    let mut krate: Path = syn::parse_quote!(::adl);
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("recycle")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                krate = lit.parse()?;
                Ok(())
            } else {
                Err(meta.error("unknown attribute; expected `crate = \"...\"`"))
            }
        })?;
    }
    Ok(krate)
}

/// The struct's fields: each as a member of `self`, with its type.
fn fields(input: &DeriveInput) -> syn::Result<Vec<(Member, TokenStream)>> {
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(e) => {
            return Err(syn::Error::new(
                e.enum_token.span,
                "#[derive(Recycle)] works on structs; implement `Recycle` by hand for an enum (match the variant, recycle its arrays)",
            ));
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "#[derive(Recycle)] works on structs, not unions",
            ));
        }
    };
    Ok(match &data.fields {
        Fields::Named(f) => f
            .named
            .iter()
            .filter_map(|f| {
                let ident = f.ident.clone()?;
                Some((Member::Named(ident), f.ty.to_token_stream()))
            })
            .collect(),
        Fields::Unnamed(f) => f
            .unnamed
            .iter()
            .enumerate()
            .map(|(i, f)| (Member::from(i), f.ty.to_token_stream()))
            .collect(),
        Fields::Unit => Vec::new(),
    })
}

/// Whether `ty` names one of `params`.
fn names_any(ty: &TokenStream, params: &[Ident]) -> bool {
    ty.clone().into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => params.contains(&ident),
        TokenTree::Group(group) => names_any(&group.stream(), params),
        _ => false,
    })
}

/// `impl Recycle for #name`: each of `fields` (member and type) handed to
/// the recycler. A field whose type names a type parameter is recycled
/// through a `Recycle` bound on the impl; any other, if its type implements
/// `Recycle` (decided where the type is known, by method resolution on
/// `RecycleField`), else dropped.
pub(crate) fn recycle_impl(
    krate: &Path,
    name: &Ident,
    generics: &Generics,
    fields: &[(Member, TokenStream)],
) -> TokenStream {
    let params: Vec<Ident> = generics.type_params().map(|p| p.ident.clone()).collect();
    let mut generics = generics.clone();
    let mut calls = Vec::new();
    for (member, ty) in fields {
        if names_any(ty, &params) {
            generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(#ty: #krate::exec::Recycle));
            calls.push(quote! {
                #krate::exec::Recycle::recycle(self.#member, __adl_recycler);
            });
        } else {
            calls.push(quote! {
                (&#krate::__private::RecycleField::new(self.#member)).recycle_field(__adl_recycler);
            });
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let body = if calls.is_empty() {
        quote!(let _ = __adl_recycler;)
    } else {
        quote! {
            #[allow(unused_imports)]
            use #krate::__private::{RecycleKnown as _, RecycleOther as _};
            #(#calls)*
        }
    };
    quote! {
        impl #impl_generics #krate::exec::Recycle for #name #ty_generics #where_clause {
            fn recycle(self, __adl_recycler: &mut #krate::exec::Recycler) {
                #body
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn expanded(input: proc_macro2::TokenStream) -> String {
        crate::test_support::pretty(super::expand(input))
    }

    #[test]
    fn named_struct() {
        insta::assert_snapshot!(expanded(quote! {
            struct FlightBatch { imu: ImuBatch, pose: PoseBatch, note: String }
        }));
    }

    #[test]
    fn generic_tuple_struct_with_crate_path() {
        insta::assert_snapshot!(expanded(quote! {
            #[recycle(crate = "adl_core")]
            struct Pair<T>(Array2<T>, Vec<T>);
        }));
    }

    #[test]
    fn enums_are_refused() {
        insta::assert_snapshot!(expanded(quote! {
            enum Either { A(Array1<f32>), B }
        }));
    }
}

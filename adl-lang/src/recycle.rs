//! `#[derive(Recycle)]`, and the `Recycle` impl that `#[derive(Collate)]`
//! gives its batch struct: every field is recycled when its type implements
//! `Recycle` and dropped otherwise.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Path};

/// Expand `#[derive(Recycle)]` on `input`. Errors become `compile_error!`.
pub fn expand(input: TokenStream) -> TokenStream {
    match syn::parse2::<DeriveInput>(input).and_then(|input| {
        let krate = crate_path(&input)?;
        let members = members(&input)?;
        Ok(recycle_impl(
            &krate,
            &input.ident,
            &input.generics,
            &members,
        ))
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

/// The struct's fields, as members of `self`.
fn members(input: &DeriveInput) -> syn::Result<Vec<Member>> {
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
            .filter_map(|f| f.ident.clone().map(Member::Named))
            .collect(),
        Fields::Unnamed(f) => (0..f.unnamed.len()).map(Member::from).collect(),
        Fields::Unit => Vec::new(),
    })
}

/// `impl Recycle for #name`: each of `members` handed to the recycler if
/// its type implements `Recycle` (decided where the type is known, by
/// method resolution on `RecycleField`), else dropped.
pub(crate) fn recycle_impl(
    krate: &Path,
    name: &Ident,
    generics: &Generics,
    members: &[Member],
) -> TokenStream {
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let body = if members.is_empty() {
        quote!(let _ = __adl_recycler;)
    } else {
        quote! {
            #[allow(unused_imports)]
            use #krate::__private::{RecycleKnown as _, RecycleOther as _};
            #(
                (&#krate::__private::RecycleField::new(self.#members)).recycle_field(__adl_recycler);
            )*
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

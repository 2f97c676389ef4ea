//! What the snapshot tests of the derives share.

/// An expansion as a snapshot shows it: pretty-printed when it parses as a
/// file, else the raw tokens.
pub(crate) fn pretty(tokens: proc_macro2::TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => tokens.to_string(),
    }
}

//! `#[transform]`: parse the options and the item, check them, generate.
//!
//! ```ignore
//! #[transform]                                        // sample node `flip`
//! fn flip(f: Frame) -> Frame { ... }
//!
//! #[transform(batch, unsafe(opencl = include_str!("normalize.cl")))]
//! impl Normalize {                                    // batch node `normalize`
//!     fn apply(&self, b: Array4<f32>) -> Array4<f32> { ... }
//! }
//! ```
//!
//! Design notes:
//! - The item is kept as written: a function stays callable as a function,
//!   an impl block keeps its other items. A function node gets a braced
//!   empty struct of the same name (`flip {}`): braced structs live only in
//!   the type namespace, so the struct and the function do not clash.
//! - The node type implements `adl::Transform<In>`, `adl::description::Node`
//!   (the metadata: name, stage, input and output types, kernel, doc), the
//!   stage's marker (`SampleNode` or `BatchNode`) and `Takes<In>`: the
//!   traits `pipeline!` asserts between neighbours.
//! - `-> Result<Out, E>` (any return type whose last path segment is
//!   `Result`) is a fallible node: `Err(e)` becomes
//!   `adl::Error::Transform { node: <name>, cause: e.into() }`.
//! - Every error is a rule of `adl_lang::Rule` (re-exported as `adl::description::Rule`), spanned at the
//!   user's token and reported with the others; the expansion still
//!   follows (the item as written, and the node where the signature
//!   allows), so that an IDE keeps working.

mod check;
mod generate;
mod item;
mod options;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;
use quote::quote;

use crate::diagnostic::Errors;

/// Expand `#[transform(args)] item`; `opencl` says whether adl's `opencl`
/// feature is on (the facade picks the entry point).
pub fn expand(args: TokenStream, item: TokenStream, opencl: bool) -> TokenStream {
    let mut errors = Errors::default();
    let mut options = options::parse(args, &mut errors);
    let parsed: syn::Item = match syn::parse2(item.clone()) {
        Ok(parsed) => parsed,
        // Not an item at all: rustc reports the syntax error on the item
        // as written.
        Err(_) => {
            let reported = errors.to_compile_errors();
            return quote!(#reported #item);
        }
    };
    let Some(node) = item::parse(&parsed, &mut errors) else {
        let reported = errors.to_compile_errors();
        return quote!(#reported #item);
    };
    let name = match &options.name {
        Some(lit) => lit.value(),
        None => node.default_name.clone(),
    };
    check::check(&mut options, &node, &name, opencl, &mut errors);

    let node_struct = generate::node_struct(&node);
    let impls = node
        .signature
        .as_ref()
        .map(|signature| generate::node_impls(&node, signature, &options, &name));
    let reported = errors.to_compile_errors();
    quote! {
        #reported
        #item
        #node_struct
        #impls
    }
}

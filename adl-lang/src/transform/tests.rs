//! Snapshots of the expansion of each form, expanded in-process.

use proc_macro2::TokenStream;
use quote::quote;

fn expand(args: TokenStream, item: TokenStream) -> String {
    let out = super::expand(args, item, true);
    let file: syn::File = syn::parse2(out.clone()).unwrap_or_else(|e| panic!("{e}: {out}"));
    prettyplease::unparse(&file)
}

#[test]
fn function() {
    insta::assert_snapshot!(expand(
        quote!(),
        quote! {
            /// Mirror the image left to right.
            pub fn flip(f: Frame) -> Frame { f.flipped() }
        }
    ));
}

#[test]
fn fallible_function() {
    insta::assert_snapshot!(expand(
        quote!(name = "decode_jpeg"),
        quote! {
            fn decode(raw: Vec<u8>) -> Result<Image, DecodeError> { Image::decode(&raw) }
        }
    ));
}

#[test]
fn batch_function_with_inline_kernel() {
    insta::assert_snapshot!(expand(
        quote!(
            batch,
            opencl = "__kernel void scale(__global float* x) { x[get_global_id(0)] *= 2.0f; }"
        ),
        quote! {
            pub(crate) fn scale(b: Array2<f32>) -> Array2<f32> { b * 2.0 }
        }
    ));
}

#[test]
fn impl_block_with_state_and_kernel_file() {
    insta::assert_snapshot!(expand(
        quote!(batch, opencl = include_str!("kernels/normalize.cl")),
        quote! {
            /// Subtract the mean, divide by the std.
            impl Normalize {
                pub fn new(mean: f32, std: f32) -> Self { Normalize { mean, std } }
                fn apply(&self, b: Array4<f32>) -> Array4<f32> { (b - self.mean) / self.std }
            }
        }
    ));
}

#[test]
fn crate_path_and_cfg() {
    insta::assert_snapshot!(expand(
        quote!(sample, crate = "my::adl"),
        quote! {
            #[cfg(feature = "augment")]
            fn jitter(x: f64) -> f64 { x + 0.5 }
        }
    ));
}

#[test]
fn errors_are_all_reported_and_the_item_is_kept() {
    insta::assert_snapshot!(expand(
        quote!(opencl = "k", colour = "red", sample, batch),
        quote! {
            async fn both<T>(a: T, b: T) {}
        }
    ));
}

#[test]
fn on_a_struct() {
    insta::assert_snapshot!(expand(
        quote!(),
        quote!(
            struct Normalize {
                mean: f32,
            }
        )
    ));
}

#[test]
fn kernel_on_sample_node_keeps_the_node() {
    insta::assert_snapshot!(expand(
        quote!(opencl = "k"),
        quote!(
            fn flip(f: Frame) -> Frame {
                f
            }
        )
    ));
}

#[test]
fn opencl_needs_the_feature() {
    // The facade's `#[transform]` without its `opencl` feature: one error
    // at `opencl`, and the node (without its kernel) still follows.
    let out = super::expand(
        quote!(batch, opencl = "__kernel void negate() {}"),
        quote! {
            fn negate(b: Vec<f32>) -> Vec<f32> { b }
        },
        false,
    );
    let file: syn::File = syn::parse2(out).expect("an item list");
    insta::assert_snapshot!(prettyplease::unparse(&file));
}

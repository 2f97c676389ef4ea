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
            unsafe(opencl = "__kernel void scale(__global float* x) { x[get_global_id(0)] *= 2.0f; }")
        ),
        quote! {
            pub(crate) fn scale(b: Array2<f32>) -> Array2<f32> { b * 2.0 }
        }
    ));
}

#[test]
fn impl_block_with_state_and_kernel_file() {
    insta::assert_snapshot!(expand(
        quote!(batch, unsafe(opencl = include_str!("kernels/normalize.cl"))),
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
        quote!(unsafe(opencl = "k")),
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
        quote!(batch, unsafe(opencl = "__kernel void negate() {}")),
        quote! {
            fn negate(b: Vec<f32>) -> Vec<f32> { b }
        },
        false,
    );
    let file: syn::File = syn::parse2(out).expect("an item list");
    insta::assert_snapshot!(prettyplease::unparse(&file));
}

#[test]
fn function_drawing_from_the_generator() {
    insta::assert_snapshot!(expand(
        quote!(),
        quote! {
            /// Jitter by up to a half.
            fn jitter(x: f32, rng: &mut SampleRng) -> f32 { x + rng.unit_f32() - 0.5 }
        }
    ));
}

#[test]
fn fallible_method_drawing_from_the_generator() {
    insta::assert_snapshot!(expand(
        quote!(),
        quote! {
            impl RandomCrop {
                fn apply(&self, image: Image, rng: &mut adl::exec::SampleRng) -> Result<Image, CropError> {
                    image.crop_at(rng.below(self.slack), self.size)
                }
            }
        }
    ));
}

#[test]
fn batch_node_drawing_from_the_generator_is_reported_and_kept() {
    // One error, at the generator; the node still follows (drawing).
    insta::assert_snapshot!(expand(
        quote!(batch),
        quote! {
            fn shuffle_rows(b: Array2<f32>, rng: &mut SampleRng) -> Array2<f32> { b }
        }
    ));
}

/// The first line of each error that `#[transform] item` reports.
fn errors(item: TokenStream) -> Vec<String> {
    let out = super::expand(quote!(), item, true);
    let file: syn::File = syn::parse2(out.clone()).unwrap_or_else(|e| panic!("{e}: {out}"));
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Macro(m)
                if m.mac.path.segments.last().map(|s| s.ident.to_string())
                    == Some("compile_error".to_owned()) =>
            {
                let message: syn::LitStr = m.mac.parse_body().expect("a message");
                message.value().lines().next().map(str::to_owned)
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_generator_comes_after_the_input_as_a_mutable_reference() {
    for (item, error) in [
        (
            quote!(
                fn f(x: f32, rng: &mut SampleRng) -> f32 {
                    x
                }
            ),
            None,
        ),
        (
            quote!(
                fn f(x: f32, _: &mut adl::exec::SampleRng) -> f32 {
                    x
                }
            ),
            None,
        ),
        (
            quote!(
                fn f(rng: &mut SampleRng) -> f32 {
                    0.0
                }
            ),
            Some(
                "`f` takes the generator but no input; a node takes its input first, then the generator",
            ),
        ),
        (
            quote!(
                fn f(rng: &mut SampleRng, x: f32) -> f32 {
                    x
                }
            ),
            Some("`f` takes the generator first; a node takes its input first, then the generator"),
        ),
        (
            quote!(
                fn f(x: f32, rng: &SampleRng) -> f32 {
                    x
                }
            ),
            Some(
                "`f` takes the generator by shared reference, but drawing from it advances it: take `&mut SampleRng`",
            ),
        ),
        (
            quote!(
                fn f(x: f32, rng: SampleRng) -> f32 {
                    x
                }
            ),
            Some(
                "`f` takes the generator by value, but drawing from it advances it: take `&mut SampleRng`",
            ),
        ),
        (
            quote!(
                fn f(x: f32, rng: &mut SampleRng, y: f32) -> f32 {
                    x
                }
            ),
            Some(
                "a transform node takes exactly one input and the generator, but `f` takes 3 parameters; take a tuple or a struct instead",
            ),
        ),
        (
            quote!(
                fn f(x: f32, seed: &mut u64) -> f32 {
                    x
                }
            ),
            Some(
                "a transform node takes exactly one input, but `f` takes 2; take a tuple or a struct instead",
            ),
        ),
    ] {
        let expected: Vec<String> = error.into_iter().map(str::to_owned).collect();
        assert_eq!(errors(item.clone()), expected, "{item}");
    }
}

#[test]
fn function_taking_the_buffers_and_the_generator() {
    insta::assert_snapshot!(expand(
        quote!(),
        quote! {
            /// A noisy copy, its memory from the context's pool.
            fn noisy(x: Vec<f32>, rng: &mut SampleRng, buffers: Buffers<'_>) -> Vec<f32> {
                let mut out = buffers.take(x.len());
                out.extend(x.iter().map(|v| v + rng.unit_f32()));
                buffers.release(ndarray::Array1::from(x));
                out
            }
        }
    ));
}

#[test]
fn the_buffers_come_last_by_value() {
    for (item, error) in [
        (
            quote!(
                fn f(x: f32, buffers: Buffers<'_>) -> f32 {
                    x
                }
            ),
            None,
        ),
        (
            quote!(
                fn f(x: f32, rng: &mut SampleRng, buffers: adl::exec::Buffers<'_>) -> f32 {
                    x
                }
            ),
            None,
        ),
        (
            quote!(
                fn f(x: f32, buffers: Buffers<'_>, rng: &mut SampleRng) -> f32 {
                    x
                }
            ),
            Some(
                "`f` takes the buffers before its other parameters; a node takes its input, then the generator if it draws, then `buffers: Buffers<'_>`",
            ),
        ),
        (
            quote!(
                fn f(x: f32, buffers: &Buffers<'_>) -> f32 {
                    x
                }
            ),
            Some(
                "`f` takes the buffers by reference; take `Buffers<'_>` by value (it is a copy of a reference)",
            ),
        ),
        (
            quote!(
                fn f(buffers: Buffers<'_>) -> f32 {
                    0.0
                }
            ),
            Some("a transform node takes exactly one input, but `f` takes none"),
        ),
        (
            quote!(
                fn f(x: f32, a: Buffers<'_>, b: Buffers<'_>) -> f32 {
                    x
                }
            ),
            Some("`f` takes the buffers twice; take `buffers: Buffers<'_>` once, last"),
        ),
    ] {
        let expected: Vec<String> = error.into_iter().map(str::to_owned).collect();
        assert_eq!(errors(item.clone()), expected, "{item}");
    }
}

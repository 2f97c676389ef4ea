//! Checks across the options and the item: what neither can see alone.

use crate::{Rule, Stage};

use super::item::{Form, NodeItem};
use super::options::Options;
use crate::diagnostic::{Errors, problem_at, problem_at_with_help, rule_error};

/// A kernel only on a batch node (rule `kernel_on_sample_node`, at
/// `opencl`), only with the `opencl` feature (`opencl_feature_off`), with
/// a `__kernel` function named like the node where the source is a literal
/// (`kernel_entry`); `args` only with a kernel, on an impl block; the
/// generator only on a sample node (`transform_signature`). What is
/// wrong is dropped so that the expansion still follows (a batch node that
/// takes the generator is still generated, drawing it).
pub(crate) fn check(
    options: &mut Options,
    item: &NodeItem,
    name: &str,
    opencl: bool,
    errors: &mut Errors,
) {
    if !opencl && let Some(kernel) = options.kernel.take() {
        errors.push(rule_error(kernel.key.span(), Rule::OpenClFeatureOff, &[]));
    }
    if let Some(kernel) = &options.kernel
        && let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(source),
            ..
        }) = &kernel.source
        && !kernel_names(&source.value()).iter().any(|k| k == name)
    {
        errors.push(rule_error(
            source.span(),
            Rule::KernelEntry,
            &[("node", name)],
        ));
    }
    if let Some(args) = &options.args {
        if options.kernel.is_none() {
            errors.push(problem_at(
                Rule::TransformOption,
                &args.key,
                "`args(...)` are the kernel's own arguments; they need `unsafe(opencl = ...)`",
            ));
            options.args = None;
        } else if matches!(item.form, Form::Function { .. }) {
            errors.push(problem_at(
                Rule::TransformOption,
                &args.key,
                "`args(...)` names fields of the node; a function node has none: put `#[transform]` on the impl block of a struct",
            ));
            options.args = None;
        }
    }
    if options.stage == Stage::Batch
        && let Some(rng) = item.signature.as_ref().and_then(|s| s.rng.as_ref())
    {
        errors.push(problem_at_with_help(
            Rule::TransformSignature,
            rng,
            format_args!(
                "`{name}` is a batch node, but takes the per-sample generator: a batch has no sample of its own to draw for"
            ),
            "only a sample node (`#[transform]`) may take `rng: &mut SampleRng`; draw in a sample node before the collate, and carry what it drew in the sample",
        ));
    }
    if options.stage == Stage::Sample
        && let Some(kernel) = options.kernel.take()
    {
        errors.push(rule_error(
            kernel.key.span(),
            Rule::KernelOnSampleNode,
            &[("node", name)],
        ));
    }
}

/// The names of the `__kernel` (or `kernel`) functions of an OpenCL
/// source: each identifier after `__kernel void` / `kernel void`.
pub(crate) fn kernel_names(source: &str) -> Vec<String> {
    let words: Vec<&str> = source
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(3)
        .filter(|w| matches!(w[0], "__kernel" | "kernel") && w[1] == "void")
        .map(|w| w[2].to_owned())
        .collect()
}

//! The options of `#[transform(...)]`: `sample` (the default) or `batch`,
//! `unsafe(opencl = ...)`, `args(field, ...)`, `name = "..."`,
//! `crate = "..."`.
//!
//! Each option is read on its own, so that every malformed or unknown
//! option is reported (rule `transform_option`), and the node is still
//! generated with the options that were understood.

use crate::{Rule, Stage};
use proc_macro2::TokenStream;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, LitStr, Meta, Path, Token};

use crate::diagnostic::{Errors, problem, problem_at};

/// The options as understood.
pub(crate) struct Options {
    /// `sample` or `batch`.
    pub(crate) stage: Stage,
    /// `unsafe(opencl = <source>)`.
    pub(crate) kernel: Option<Kernel>,
    /// `args(field, ...)`: the kernel's own arguments, fields of `self`.
    pub(crate) args: Option<Args>,
    /// `name = "..."`.
    pub(crate) name: Option<LitStr>,
    /// The path of the facade crate: `::adl`, or `crate = "..."`.
    pub(crate) krate: Path,
}

/// `unsafe(opencl = <source>)`: the key (where `kernel_on_sample_node`
/// points), the source, kept as an expression so that `include_str!`
/// resolves in the user's crate, and the user's `unsafe` (the span of the
/// `unsafe` block the expansion makes the kernel's launch in; `None`
/// where it was left out, an error already reported).
pub(crate) struct Kernel {
    pub(crate) key: Ident,
    pub(crate) source: Expr,
    pub(crate) unsafe_span: Option<proc_macro2::Span>,
}

/// `args(field, ...)`: the key and the fields.
pub(crate) struct Args {
    pub(crate) key: Ident,
    pub(crate) fields: Vec<syn::Member>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stage: Stage::Sample,
            kernel: None,
            args: None,
            name: None,
            krate: syn::parse_quote!(::adl),
        }
    }
}

const OPTION: Rule = Rule::TransformOption;

/// Read the attribute's arguments. Errors go to `errors`; what was
/// understood is returned.
pub(crate) fn parse(args: TokenStream, errors: &mut Errors) -> Options {
    let mut options = Options::default();
    let metas =
        match syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, args) {
            Ok(metas) => metas,
            Err(e) => {
                errors.push(problem(
                    OPTION,
                    e.span(),
                    format_args!("malformed #[transform] options: {e}"),
                ));
                return options;
            }
        };
    let mut stage_given: Option<Ident> = None;
    for meta in metas {
        let word = meta
            .path()
            .get_ident()
            .map(Ident::to_string)
            .unwrap_or_default();
        let result = match word.as_str() {
            "sample" | "batch" => stage(&meta, &mut stage_given).map(|s| options.stage = s),
            "unsafe" => unsafe_kernel(&meta, options.kernel.is_some())
                .map(|k| options.kernel = Some(k)),
            "opencl" => kernel(&meta, options.kernel.is_some()).and_then(|k| {
                // Kept, so that the node is still generated: one error.
                options.kernel = Some(k);
                Err(problem_at(
                    Rule::KernelWithoutUnsafe,
                    meta.path(),
                    "an OpenCL kernel is code nothing checks: on a CPU device it runs in this process, so `opencl = ...` goes inside `unsafe(...)`",
                ))
            }),
            "args" => kernel_args(&meta, options.args.is_some()).map(|a| options.args = Some(a)),
            "name" => name(&meta, options.name.is_some()).map(|n| options.name = Some(n)),
            "crate" => krate(&meta).map(|p| options.krate = p),
            _ => {
                let path = meta.path();
                let text = quote::quote!(#path).to_string().replace(' ', "");
                Err(problem_at(
                    OPTION,
                    path,
                    format_args!("unknown #[transform] option `{text}`"),
                ))
            }
        };
        errors.take(result);
    }
    options
}

/// `sample` or `batch`: one of them, once, without a value.
fn stage(meta: &Meta, given: &mut Option<Ident>) -> syn::Result<Stage> {
    let ident = meta.path().get_ident().expect("a one-word path").clone();
    let word = ident.to_string();
    if let Some(first) = given {
        let text = if *first == word {
            format!("`{word}` is given twice")
        } else {
            format!(
                "`{word}` contradicts `{first}`: a node is either a sample node or a batch node"
            )
        };
        return Err(problem_at(OPTION, &ident, text));
    }
    *given = Some(ident);
    if !matches!(meta, Meta::Path(_)) {
        return Err(problem_at(
            OPTION,
            meta,
            format_args!("`{word}` takes no value; write `#[transform({word})]`"),
        ));
    }
    Ok(Stage::from_keyword(&word).expect("sample or batch"))
}

/// `unsafe(opencl = ...)`: the one option that may stand inside
/// `unsafe(...)`, once.
fn unsafe_kernel(meta: &Meta, already: bool) -> syn::Result<Kernel> {
    let keyword = meta.path();
    let expected =
        "`unsafe(opencl = \"__kernel void ...\")` or `unsafe(opencl = include_str!(\"file.cl\"))`";
    let Meta::List(list) = meta else {
        return Err(problem_at(
            OPTION,
            meta,
            format_args!("`unsafe` wraps the kernel: {expected}"),
        ));
    };
    let inner = list
        .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .map_err(|e| {
            problem(
                OPTION,
                e.span(),
                format_args!("`unsafe` wraps the kernel: {expected}"),
            )
        })?;
    let mut metas = inner.iter();
    let (Some(only), None) = (metas.next(), metas.next()) else {
        return Err(problem_at(
            OPTION,
            &list.tokens,
            format_args!("`unsafe(...)` holds the kernel and nothing else: {expected}"),
        ));
    };
    if !only.path().is_ident("opencl") {
        return Err(problem_at(
            OPTION,
            only.path(),
            format_args!("only the kernel goes inside `unsafe(...)`: {expected}"),
        ));
    }
    let mut kernel = kernel(only, already)?;
    kernel.unsafe_span = Some(keyword.segments[0].ident.span());
    Ok(kernel)
}

/// `opencl = "source"`, `opencl = include_str!("file.cl")` or
/// `opencl = SOME_CONST` (inside `unsafe(...)`).
fn kernel(meta: &Meta, already: bool) -> syn::Result<Kernel> {
    let key = meta.path().get_ident().expect("a one-word path").clone();
    let expected = "the kernel source: `unsafe(opencl = \"__kernel void ...\")` or `unsafe(opencl = include_str!(\"file.cl\"))`";
    let Meta::NameValue(nv) = meta else {
        return Err(problem_at(
            OPTION,
            meta,
            format_args!("`opencl` needs {expected}"),
        ));
    };
    if already {
        return Err(problem_at(OPTION, &key, "`opencl` is given twice"));
    }
    match &nv.value {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(_),
            ..
        })
        | Expr::Macro(_)
        | Expr::Path(_) => Ok(Kernel {
            key,
            source: nv.value.clone(),
            unsafe_span: None,
        }),
        other => Err(problem_at(
            OPTION,
            other,
            format_args!("`opencl` takes {expected}"),
        )),
    }
}

/// `args(field, ...)`: fields of the node (named, or `0`, `1` of a tuple
/// struct), once.
fn kernel_args(meta: &Meta, already: bool) -> syn::Result<Args> {
    let key = meta.path().get_ident().expect("a one-word path").clone();
    let expected = "the fields of the node passed to its kernel, e.g. `args(mean, std)`";
    let Meta::List(list) = meta else {
        return Err(problem_at(
            OPTION,
            meta,
            format_args!("`args` takes {expected}"),
        ));
    };
    if already {
        return Err(problem_at(OPTION, &key, "`args` is given twice"));
    }
    let fields = list
        .parse_args_with(Punctuated::<syn::Member, Token![,]>::parse_terminated)
        .map_err(|e| problem(OPTION, e.span(), format_args!("`args` takes {expected}")))?;
    Ok(Args {
        key,
        fields: fields.into_iter().collect(),
    })
}

/// `name = "..."`: a non-empty string, once.
fn name(meta: &Meta, already: bool) -> syn::Result<LitStr> {
    let lit = string(
        meta,
        "name",
        "the node's name in a string, e.g. `name = \"flip\"`",
    )?;
    if already {
        return Err(problem_at(OPTION, meta.path(), "`name` is given twice"));
    }
    if lit.value().trim().is_empty() {
        return Err(problem_at(OPTION, &lit, "`name` cannot be empty"));
    }
    Ok(lit)
}

/// `crate = "path::to::adl"`.
fn krate(meta: &Meta) -> syn::Result<Path> {
    let lit = string(
        meta,
        "crate",
        "a path in a string, e.g. `crate = \"my::adl\"`",
    )?;
    lit.parse::<Path>().map_err(|_| {
        problem_at(
            OPTION,
            &lit,
            format_args!("`crate = {}` is not a path", lit.token()),
        )
    })
}

/// The string of `key = "..."`.
fn string(meta: &Meta, key: &str, expected: &str) -> syn::Result<LitStr> {
    match meta {
        Meta::NameValue(syn::MetaNameValue {
            value:
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(lit),
                    ..
                }),
            ..
        }) => Ok(lit.clone()),
        Meta::NameValue(nv) => Err(problem_at(
            OPTION,
            &nv.value,
            format_args!("`{key}` takes {expected}"),
        )),
        _ => Err(problem_at(
            OPTION,
            meta,
            format_args!("`{key}` takes {expected}"),
        )),
    }
}

//! Generate: the checked model into a block expression that evaluates to
//! an `adl::description::Described<P>`: a typed pipeline `P` built from the
//! adl-core building blocks (`Stages`, `Then`, `Pre`, `Post`, `Branch`,
//! `KeyedBranches`) and the `Description` of its graph.
//!
//! Every node becomes a local binding, asserted where it stands and
//! against the node before it in one check (`assert_sample_feeds` /
//! `assert_batch_feeds`; `assert_sample_node` / `assert_batch_node` for a
//! stage's first node, `assert_takes_field` after a branch's field), with
//! the spans of the user's tokens, so that rustc reports a broken rule
//! there, in the rule's words, once: a node in the wrong stage is not also
//! a type mismatch. The errors
//! of the parse and check phases come first, as `compile_error!`s, and the
//! expansion follows them anyway.
//!
//! Every node that the typed pipeline holds (the transforms of each stage
//! and each collate) is wrapped in `exec::Tagged` with its `NodeId`: its
//! index in `Description::nodes()` of the description built alongside.
//! The ids are positional, computed from the model ([`node_count`]), not
//! from the order in which the expansion happens to visit the nodes: a
//! level whose first node is `first` numbers its `pre:`, `sample:`,
//! collate, `batch:` and `post:` nodes in that order from `first`, and a
//! parallel level numbers its nodes before the split from `first`, then
//! each branch from where the branches before it end, then the nodes
//! after the merge. The assertions stay on the unwrapped values.

use crate::Stage;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Expr, Type};

use super::check::{
    CollateRef, Core, Level, NodeKind, NodeRef, ParallelModel, Routing, random_call, text_of,
};

/// The expansion of a checked model, after the `errors` found so far.
/// Generated paths go through the alias `__adl_crate` of `krate` (the
/// `adl` facade, or the path given by `crate = ...`).
pub(crate) fn generate(level: &Level, errors: &[syn::Error], krate: &syn::Path) -> TokenStream {
    let mut generator = Generator { next: 0 };
    let (body, _) = generator.level(level, 0, None, false);
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote! {{
        #[allow(unused_imports)]
        use #krate as __adl_crate;
        #(#errors)*
        #body
    }}
}

/// Names the expansion's bindings. A node's binding carries the span of
/// the user's token, like the assertion around it, so that rustc reports a
/// broken bound on `&binding` at that token.
struct Generator {
    next: usize,
}

/// The nodes of one chain as generated: the expressions of their
/// `NodeInfo`s, and the nodes tagged with their ids, as the pipeline
/// holds them.
#[derive(Default)]
struct Chain {
    infos: Vec<TokenStream>,
    tagged: Vec<TokenStream>,
}

/// The number of nodes of `level` in its description (what
/// `Description::nodes()` lists): its `pre:`, `sample:`, `batch:` and
/// `post:` nodes, and its collate or its branches' nodes. The identity
/// collate that stands in for a missing one is no node.
fn node_count(level: &Level) -> u32 {
    let own = level.pre.len() + level.sample.len() + level.batch.len() + level.post.len();
    let core = match &level.core {
        Core::Collate(_) => 1,
        Core::Parallel(parallel) => parallel
            .branches
            .iter()
            .map(|b| node_count(&b.level) as usize)
            .sum(),
        Core::Missing => 0,
    };
    u32::try_from(own + core).expect("fewer than 2^32 nodes in one pipeline")
}

/// A node value as the pipeline holds it: `exec::Tagged` with its id
/// and `name` (an expression of a `Cow<'static, str>` or a `&'static str`).
fn tagged(id: u32, name: TokenStream, value: TokenStream, span: Span) -> TokenStream {
    let id = proc_macro2::Literal::u32_unsuffixed(id);
    quote_spanned! {span=>
        __adl_crate::exec::Tagged::new(__adl_crate::exec::NodeId(#id), #name, #value)
    }
}

/// `Then::new` of the transforms in order, or the identity.
fn then(steps: Vec<TokenStream>) -> TokenStream {
    steps
        .into_iter()
        .reduce(|acc, next| quote!(__adl_crate::transform::Then::new(#acc, #next)))
        .unwrap_or_else(|| quote!(__adl_crate::transform::Identity))
}

/// The batch stage's steps in order, linked from the last so that every
/// run of consecutive kernel nodes becomes one chain, whatever stands
/// around it: the expansion keeps the run being built (`head`) and what
/// follows it (`rest`), and each step before them either joins the run
/// (two elementwise kernel nodes, `kernel::Lanewise`, into
/// `kernel::FusedLanes`: one loop on the CPU; two kernel nodes into
/// `kernel::Fused`: one device program) or, where the step or the run is
/// no kernel node, ends it (`rest` becomes `Then(head, rest)`) and starts
/// the next. Which nodes of a chain then run as one is
/// `adl_rules::fusion::groups`' to say, at run time, as the plan shows.
/// The choice is made here, where the node types are known, by method
/// resolution (`kernel::LinkLanes`, then `kernel::LinkKernels`, then
/// `kernel::LinkOther`).
fn link(steps: Vec<TokenStream>) -> TokenStream {
    if steps.len() == 1 {
        return steps.into_iter().next().unwrap_or_default();
    }
    let mut steps = steps.into_iter().rev();
    let Some(last) = steps.next() else {
        return quote!(__adl_crate::transform::Identity);
    };
    let (head, rest) = (
        format_ident!("__adl_head", span = Span::mixed_site()),
        format_ident!("__adl_rest", span = Span::mixed_site()),
    );
    let links = steps.map(|step| {
        quote! {
            let (#head, #rest) = {
                let __adl_step = #step;
                (&&__adl_crate::__private::Link::of(&__adl_step, &#head))
                    .kind()
                    .step(__adl_step, #head, #rest)
            };
        }
    });
    quote! {{
        #[allow(unused_imports)]
        use __adl_crate::__private::{LinkKernels as _, LinkLanes as _, LinkOther as _, Rest as _};
        let (#head, #rest) = (#last, __adl_crate::__private::End);
        #(#links)*
        #rest.stage(#head)
    }}
}

impl Generator {
    /// A fresh binding called `__adl_{what}{n}`, spanned at `span`.
    fn ident(&mut self, what: &str, span: Span) -> Ident {
        self.next += 1;
        format_ident!("__adl_{}{}", what, self.next, span = span)
    }

    /// One node standing in `stage`: bind it, assert it, and check it
    /// against the node before it (`cursor`, which becomes this node).
    fn node(
        &mut self,
        node: &NodeRef,
        stage: Stage,
        cursor: &mut Option<Ident>,
        out: &mut Vec<TokenStream>,
    ) -> (Ident, TokenStream) {
        let span = node.span;
        let binding = self.ident("node", span);
        let value = node_value(node, stage, cursor.as_ref());
        out.push(quote_spanned!(span=> let #binding = #value;));
        // After a branch's field (or key) witness, a mismatch names the
        // field, not "the node before it".
        let branch_start = cursor.as_ref().is_some_and(|before| {
            ["__adl_field", "__adl_value"]
                .iter()
                .any(|prefix| before.to_string().starts_with(prefix))
        });
        match cursor {
            // After a node: the stage and the input in one check, so a
            // node in the wrong stage is that one error.
            Some(before) if !branch_start => {
                let assert = match stage {
                    Stage::Batch => quote_spanned!(span=> assert_batch_feeds),
                    _ => quote_spanned!(span=> assert_sample_feeds),
                };
                out.push(
                    quote_spanned!(span=> __adl_crate::__private::#assert(&#before, &#binding);),
                );
            }
            _ => {
                let assert = match stage {
                    Stage::Batch => quote_spanned!(span=> assert_batch_node),
                    _ => quote_spanned!(span=> assert_sample_node),
                };
                out.push(quote_spanned!(span=> __adl_crate::__private::#assert(&#binding);));
                if let Some(before) = cursor {
                    out.push(quote_spanned!(span=>
                        __adl_crate::__private::assert_takes_field(&#before, &#binding);
                    ));
                }
            }
        }
        *cursor = Some(binding.clone());
        let info = quote_spanned!(span=> __adl_crate::__private::info_of(&#binding));
        (binding, info)
    }

    /// A chain of nodes standing in `stage`, the first of them node
    /// `first` of the pipeline.
    fn chain<'a>(
        &mut self,
        nodes: impl IntoIterator<Item = &'a NodeRef>,
        first: u32,
        stage: Stage,
        cursor: &mut Option<Ident>,
        out: &mut Vec<TokenStream>,
    ) -> Chain {
        let mut chain = Chain::default();
        for (id, node) in (first..).zip(nodes) {
            let (binding, info) = self.node(node, stage, cursor, out);
            let name = quote_spanned!(node.span=> __adl_crate::__private::info_of(&#binding).name);
            chain
                .tagged
                .push(tagged(id, name, quote!(#binding), node.span));
            chain.infos.push(info);
        }
        chain
    }

    /// Nodes left out of the pipeline: evaluated, so that their names
    /// resolve (closures, and `random(..)`'s, are left out: alone they
    /// may not infer).
    fn unused(&mut self, level: &Level, out: &mut Vec<TokenStream>) {
        for node in &level.unused {
            if let NodeKind::Closure { .. } | NodeKind::Random { .. } = node.kind {
                continue;
            }
            let value = node_value(node, Stage::Sample, None);
            out.push(quote_spanned!(node.span=> let _ = #value;));
        }
        for collate in &level.unused_collates {
            if matches!(collate.expr, Expr::Closure(_)) || random_call(&collate.expr).is_some() {
                continue;
            }
            let value = collate_value(collate);
            out.push(quote_spanned!(collate.span=> let _ = #value;));
        }
    }

    /// One level, after `cursor` (the node, or witness, before it), its
    /// first node node `first` of the pipeline: a block that evaluates to
    /// its `Described` pipeline, or, with `output`, to the pair of it and
    /// the witness of what it gives, where that is known (the `bool`).
    fn level(
        &mut self,
        level: &Level,
        first: u32,
        cursor: Option<Ident>,
        output: bool,
    ) -> (TokenStream, bool) {
        let mut out = Vec::new();
        self.unused(level, &mut out);
        let (pipeline, description, last) = match &level.core {
            Core::Parallel(parallel) => self.parallel(level, parallel, first, cursor, &mut out),
            Core::Collate(collate) => self.stages(level, Some(collate), first, cursor, &mut out),
            Core::Missing => self.stages(level, None, first, cursor, &mut out),
        };
        let binding = format_ident!("__adl_description", span = Span::mixed_site());
        let described = quote!(__adl_crate::description::Described::new(#pipeline, #binding));
        let (value, known) = match (output, last) {
            (true, Some(last)) => {
                let witness = format_ident!("__adl_output", span = Span::mixed_site());
                out.push(
                    quote!(let #witness = __adl_crate::__private::Witness::output_of(&#last);),
                );
                (quote!((#described, #witness)), true)
            }
            _ => (described, false),
        };
        let block = quote! {{
            #(#out)*
            let #binding = #description;
            #value
        }};
        (block, known)
    }

    /// `pre: ..., sample: ..., collate: ..., batch: ..., post: ...`, as one
    /// `Stages` (pre folded into its sample stage, post into its batch
    /// stage).
    fn stages(
        &mut self,
        level: &Level,
        collate: Option<&CollateRef>,
        first: u32,
        cursor: Option<Ident>,
        out: &mut Vec<TokenStream>,
    ) -> (TokenStream, TokenStream, Option<Ident>) {
        // The ids, in the description's order: pre, sample, collate,
        // batch, post.
        let sample_first = first + level.pre.len() as u32;
        let collate_id = sample_first + level.sample.len() as u32;
        let batch_first = collate_id + u32::from(collate.is_some());
        let post_first = batch_first + level.batch.len() as u32;
        let mut cursor = cursor;
        let pre = self.chain(&level.pre, first, Stage::Sample, &mut cursor, out);
        let sample = self.chain(&level.sample, sample_first, Stage::Sample, &mut cursor, out);
        let (collate_value, collate_info) = match collate {
            Some(collate) => {
                let span = collate.span;
                let binding = self.ident("collate", span);
                let value = collate_value(collate);
                let name = &collate.name;
                out.push(quote_spanned!(span=> let #binding = #value;));
                let (info, collate_name) = match cursor.take() {
                    Some(before) => {
                        let info = self.ident("collate_info", span);
                        let batch = self.ident("collated", span);
                        // Its name for the tag, taken now: the description
                        // (built before the pipeline) moves the info.
                        let tag_name = format_ident!("{}_name", info);
                        // The rule's assertion first: a broken bound of
                        // `collate_node` (the same, at the same token) is
                        // then left out by rustc.
                        out.push(quote_spanned! {span=>
                            __adl_crate::__private::assert_collate_after(&#before, &#binding);
                            let (#info, #batch) = __adl_crate::__private::collate_node(#name, &#before, &#binding);
                            let #tag_name = #info.name.clone();
                        });
                        cursor = Some(batch);
                        (quote!(#info), quote!(#tag_name))
                    }
                    None => (
                        quote!(__adl_crate::description::NodeInfo::new(#name, __adl_crate::description::Stage::Collate)),
                        quote!(#name),
                    ),
                };
                (
                    tagged(collate_id, collate_name, quote!(#binding), span),
                    quote!(::std::vec![#info]),
                )
            }
            None => {
                cursor = None;
                (
                    quote!(__adl_crate::pipeline::IdentityCollate),
                    quote!(::std::vec::Vec::new()),
                )
            }
        };
        let batch = self.chain(&level.batch, batch_first, Stage::Batch, &mut cursor, out);
        let post = self.chain(&level.post, post_first, Stage::Batch, &mut cursor, out);
        let (pre_infos, sample_infos, batch_infos, post_infos) =
            (&pre.infos, &sample.infos, &batch.infos, &post.infos);
        let sample_stage = then(pre.tagged.into_iter().chain(sample.tagged).collect());
        let batch_stage = link(batch.tagged.into_iter().chain(post.tagged).collect());
        let description = quote! {
            __adl_crate::description::Description::new(__adl_crate::description::Body::stages(
                ::std::vec![#(#sample_infos),*],
                #collate_info,
                ::std::vec![#(#batch_infos),*],
            ))
            .with_pre(::std::vec![#(#pre_infos),*])
            .with_post(::std::vec![#(#post_infos),*])
        };
        let pipeline = quote!(__adl_crate::pipeline::Stages::from_parts(#sample_stage, #collate_value, #batch_stage));
        (pipeline, description, cursor)
    }

    /// A parallel form with the nodes around it: `pre:` and `sample:`
    /// before the split (the description's `pre`), `batch:` and `post:`
    /// after the merge (its `post`).
    fn parallel(
        &mut self,
        level: &Level,
        parallel: &ParallelModel,
        first: u32,
        cursor: Option<Ident>,
        out: &mut Vec<TokenStream>,
    ) -> (TokenStream, TokenStream, Option<Ident>) {
        let ids = ParallelIds::new(level, parallel, first);
        let mut cursor = cursor;
        let before = self.chain(
            level.pre.iter().chain(&level.sample),
            first,
            Stage::Sample,
            &mut cursor,
            out,
        );
        let split = self.split(parallel, cursor.as_ref(), out);
        let branches = self.branches(parallel, split.witnesses, &ids.branches, out);
        let (merge, mut cursor) = match &parallel.batch {
            Some(batch) => {
                let (merge, merged) = self.merge_into(batch, parallel, &branches, out);
                (Some(merge), merged)
            }
            None => {
                let merged = self.merged(&branches, split.merge.as_ref(), parallel, out);
                (split.merge, merged)
            }
        };
        let after = self.chain(
            level.batch.iter().chain(&level.post),
            ids.after,
            Stage::Batch,
            &mut cursor,
            out,
        );
        let pre_steps = before.tagged.into_iter().chain(split.step).collect();
        let post_steps = merge
            .iter()
            .map(|merge| quote!(#merge))
            .chain(after.tagged)
            .collect();
        let pipeline = around(
            branch_list(parallel.routing, &branches),
            pre_steps,
            post_steps,
        );
        let description = parallel_description(&before.infos, &branches, &after.infos);
        (pipeline, description, cursor)
    }

    /// The split of the sample into the branches, after `cursor`, and
    /// each branch's first witness.
    fn split(
        &mut self,
        parallel: &ParallelModel,
        cursor: Option<&Ident>,
        out: &mut Vec<TokenStream>,
    ) -> Split {
        match (parallel.routing, &parallel.ty) {
            (Routing::Fields, Some(ty)) => self.split_fields(parallel, ty, cursor, out),
            (_, ty) => self.split_keys(ty.as_ref(), parallel.branches.len(), cursor, out),
        }
    }

    /// The split of a struct `ty` into the nested pairs of its branches'
    /// fields, each field's witness, and the merge of the branches.
    fn split_fields(
        &mut self,
        parallel: &ParallelModel,
        ty: &Type,
        cursor: Option<&Ident>,
        out: &mut Vec<TokenStream>,
    ) -> Split {
        let sample = format_ident!("__adl_sample", span = Span::mixed_site());
        let span = syn::spanned::Spanned::span(ty);
        let split = self.ident("split", span);
        let fields: Vec<&Ident> = parallel
            .branches
            .iter()
            .filter_map(|b| b.field.as_ref())
            .collect();
        let nested = fields
            .iter()
            .rev()
            .fold(quote!(()), |rest, field| quote!((#sample.#field, #rest)));
        out.push(quote_spanned!(span=> let #split = |#sample: #ty| #nested;));
        if let Some(before) = cursor {
            out.push(
                quote_spanned!(span=> __adl_crate::__private::assert_gives(&#before, &#split);),
            );
        }
        let mut witnesses = Vec::new();
        for field in &fields {
            let witness = self.ident("field", field.span());
            out.push(quote_spanned! {field.span()=>
                let #witness = __adl_crate::__private::Witness::field(|#sample: &#ty| &#sample.#field);
            });
            witnesses.push(Some(witness));
        }
        // A named batch struct is built after the branches, from what
        // they give (`merge_into`).
        let merge = parallel.batch.is_none().then(|| {
            let merge_ident = self.ident("merge", Span::call_site());
            let merge = merge(&fields);
            out.push(quote!(let #merge_ident = #merge;));
            merge_ident
        });
        Split {
            step: Some(quote!(#split)),
            witnesses,
            merge,
        }
    }

    /// For a keyed form of `count` branches: where the sample type `ty`
    /// is written, the identity on it (which pins the raw sample type for
    /// inference) and the witness of its values, which every branch
    /// takes.
    fn split_keys(
        &mut self,
        ty: Option<&Type>,
        count: usize,
        cursor: Option<&Ident>,
        out: &mut Vec<TokenStream>,
    ) -> Split {
        let sample = format_ident!("__adl_sample", span = Span::mixed_site());
        let mut step = None;
        let witness = ty.map(|ty| {
            let span = syn::spanned::Spanned::span(ty);
            if let Some(before) = cursor {
                out.push(quote_spanned!(span=> __adl_crate::__private::assert_gives(&#before, &|_: #ty| ());));
            }
            let witness = self.ident("value", span);
            out.push(quote_spanned! {span=>
                let #witness = __adl_crate::__private::Witness::<<#ty as __adl_crate::transform::Keyed>::Value>::new();
            });
            step = Some(quote_spanned!(span=> |#sample: #ty| #sample));
            witness
        });
        Split {
            step,
            witnesses: vec![witness; count],
            merge: None,
        }
    }

    /// The branches, each its own level after its witness, its first
    /// node numbered from `firsts`: bound to their pipelines and
    /// descriptions, with the witness of what each gives.
    fn branches(
        &mut self,
        parallel: &ParallelModel,
        witnesses: Vec<Option<Ident>>,
        firsts: &[u32],
        out: &mut Vec<TokenStream>,
    ) -> Vec<GeneratedBranch> {
        let mut generated = Vec::new();
        for ((branch, witness), &first) in parallel.branches.iter().zip(witnesses).zip(firsts) {
            let (block, known) = self.level(&branch.level, first, witness, true);
            let span = Span::mixed_site();
            let pipeline = self.ident("branch", span);
            let description = self.ident("branch_description", span);
            let output = if known {
                let output = self.ident("branch_output", span);
                let (d, o) = (
                    format_ident!("__adl_d", span = span),
                    format_ident!("__adl_o", span = span),
                );
                out.push(quote! {
                    let ((#pipeline, #description), #output) = {
                        let (#d, #o) = #block;
                        (#d.into_parts(), #o)
                    };
                });
                Some(output)
            } else {
                out.push(quote!(let (#pipeline, #description) = #block.into_parts();));
                None
            };
            generated.push(GeneratedBranch {
                name: branch.name.clone(),
                pipeline,
                description,
                output,
            });
        }
        generated
    }

    /// The merge of a struct form's branches into the user's batch struct
    /// `batch`: a closure from the nested pairs that the branches give to
    /// the struct literal, one field per branch (its value spanned at the
    /// branch's name, so that rustc reports a field the struct lacks, or
    /// of another type, there; a field without a branch at the struct's
    /// name). Where every branch's output is known, the closure is typed
    /// from them (`BatchFn::after`), and the merge is the node before the
    /// `batch:` and `post:` nodes after the form: the binding of the
    /// merge, and that cursor where it is known.
    fn merge_into(
        &mut self,
        batch: &syn::Path,
        parallel: &ParallelModel,
        branches: &[GeneratedBranch],
        out: &mut Vec<TokenStream>,
    ) -> (Ident, Option<Ident>) {
        let span = syn::spanned::Spanned::span(batch);
        let fields: Vec<&Ident> = parallel
            .branches
            .iter()
            .filter_map(|b| b.field.as_ref())
            .collect();
        // Hygienic (mixed-site) bindings, as in `merge`, where the fields
        // are written.
        let values: Vec<Ident> = fields
            .iter()
            .enumerate()
            .map(|(i, field)| {
                let at = field.span().resolved_at(Span::mixed_site());
                Ident::new(&format!("__adl_value{i}"), at)
            })
            .collect();
        let nested_pat = values
            .iter()
            .rev()
            .fold(quote!(()), |rest, v| quote!((#v, #rest)));
        let merge = quote!(|#nested_pat| #batch { #(#fields: #values),* });
        let source = text_of(batch);
        let binding = self.ident("merge", span);
        let outputs: Option<Vec<&Ident>> = branches.iter().map(|b| b.output.as_ref()).collect();
        match outputs {
            Some(outputs) => {
                let nested = outputs.iter().rev().fold(
                    quote!(__adl_crate::__private::Witness::<()>::new()),
                    |rest, o| quote!(#o.pair(#rest)),
                );
                out.push(quote_spanned! {span=>
                    let #binding = __adl_crate::transform::BatchFn::after(&#nested, #merge, #source);
                });
                (binding.clone(), Some(binding))
            }
            None => {
                out.push(quote_spanned! {span=>
                    let #binding = __adl_crate::transform::BatchFn::new(#merge, #source);
                });
                (binding, None)
            }
        }
    }

    /// The witness of what the branches give together, where every
    /// branch's is known: the merged struct, or the keyed sample of the
    /// branches' type.
    fn merged(
        &mut self,
        branches: &[GeneratedBranch],
        merge: Option<&Ident>,
        parallel: &ParallelModel,
        out: &mut Vec<TokenStream>,
    ) -> Option<Ident> {
        let outputs: Vec<&Ident> = branches
            .iter()
            .map(|b| b.output.as_ref())
            .collect::<Option<_>>()?;
        match (merge, &parallel.ty) {
            (Some(merge), _) => {
                let nested = outputs.iter().rev().fold(
                    quote!(__adl_crate::__private::Witness::<()>::new()),
                    |rest, o| quote!(#o.pair(#rest)),
                );
                let merged = self.ident("merged", Span::call_site());
                out.push(quote!(let #merged = #nested.through(&#merge);));
                Some(merged)
            }
            (None, Some(ty)) if !outputs.is_empty() => {
                let first = outputs[0];
                let merged = self.ident("merged", Span::call_site());
                out.push(
                    quote!(let #merged = __adl_crate::__private::Witness::<#ty>::new().keyed(#first);),
                );
                Some(merged)
            }
            _ => None,
        }
    }
}

/// The ids of a parallel level's nodes, in the description's order: the
/// nodes before the split (its `pre`) from the level's first, then each
/// branch's nodes, then the nodes after the merge (its `post`).
struct ParallelIds {
    /// The id of each branch's first node.
    branches: Vec<u32>,
    /// The id of the first node after the merge.
    after: u32,
}

impl ParallelIds {
    /// The ids of `parallel`'s level, whose first node is `first`.
    fn new(level: &Level, parallel: &ParallelModel, first: u32) -> Self {
        let mut next = first + (level.pre.len() + level.sample.len()) as u32;
        let mut branches = Vec::new();
        for branch in &parallel.branches {
            branches.push(next);
            next += node_count(&branch.level);
        }
        ParallelIds {
            branches,
            after: next,
        }
    }
}

/// How a parallel form's sample reaches its branches.
struct Split {
    /// The step before the branches: the split into the nested pairs of
    /// the fields, or the identity on a keyed form's written type.
    step: Option<TokenStream>,
    /// The witness of what each branch takes, where known.
    witnesses: Vec<Option<Ident>>,
    /// The binding of the merge of a struct form's branches into the
    /// generated batch struct (none where the user names one).
    merge: Option<Ident>,
}

/// One branch as generated.
struct GeneratedBranch {
    /// The field or key.
    name: String,
    /// The binding of its typed pipeline.
    pipeline: Ident,
    /// The binding of its description.
    description: Ident,
    /// The witness of what it gives, where known.
    output: Option<Ident>,
}

/// The branches' pipelines as one list of `Branch`es, in keyed branches
/// for a keyed form. An empty keyed form (already the `no_branches`
/// error) is just the empty list, so that no second error follows.
fn branch_list(routing: Routing, branches: &[GeneratedBranch]) -> TokenStream {
    let mut list = quote!(__adl_crate::pipeline::NoBranch);
    for branch in branches.iter().rev() {
        let (name, pipeline) = (&branch.name, &branch.pipeline);
        list = quote!(__adl_crate::pipeline::Branch::new(#name, #pipeline, #list));
    }
    match routing {
        Routing::Keys if !branches.is_empty() => {
            quote!(__adl_crate::pipeline::KeyedBranches::new(#list))
        }
        _ => list,
    }
}

/// `branches` with the steps before the split (`Pre`) and after the
/// merge (`Post`) around them, where there are any.
fn around(
    branches: TokenStream,
    pre_steps: Vec<TokenStream>,
    post_steps: Vec<TokenStream>,
) -> TokenStream {
    let mut pipeline = branches;
    if !post_steps.is_empty() {
        let post = link(post_steps);
        pipeline = quote!(__adl_crate::pipeline::Post::new(#pipeline, #post));
    }
    if !pre_steps.is_empty() {
        let pre = then(pre_steps);
        pipeline = quote!(__adl_crate::pipeline::Pre::new(#pre, #pipeline));
    }
    pipeline
}

/// The description of a parallel level: the infos of the nodes before the
/// split and after the merge, and each branch's description by name.
fn parallel_description(
    pre_infos: &[TokenStream],
    branches: &[GeneratedBranch],
    post_infos: &[TokenStream],
) -> TokenStream {
    let branches = branches.iter().map(|branch| {
        let (name, description) = (&branch.name, &branch.description);
        quote!((::std::string::String::from(#name), #description))
    });
    quote! {
        __adl_crate::description::Description::new(__adl_crate::description::Body::parallel(
            ::std::vec![#(#branches),*],
        ))
        .with_pre(::std::vec![#(#pre_infos),*])
        .with_post(::std::vec![#(#post_infos),*])
    }
}

/// The merge of a struct form's branches: a transform from the nested
/// pairs that the branches give into a struct with one `pub` field per
/// branch, generic over their types. Its items live in a block of their
/// own, so that their names shadow nothing the user wrote.
fn merge(fields: &[&Ident]) -> TokenStream {
    let params: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("T{}", i)).collect();
    let nested_ty = params
        .iter()
        .rev()
        .fold(quote!(()), |rest, p| quote!((#p, #rest)));
    // Hygienic (mixed-site) bindings: a field named like a unit struct or a
    // constant in scope must not turn into a constant pattern.
    let values: Vec<Ident> = (0..fields.len())
        .map(|i| Ident::new(&format!("__adl_value{i}"), proc_macro2::Span::mixed_site()))
        .collect();
    let nested_pat = values
        .iter()
        .rev()
        .fold(quote!(()), |rest, v| quote!((#v, #rest)));
    quote! {{
        /// The batch of a parallel form: one field per branch.
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq)]
        #[allow(unreachable_pub)]
        pub struct Branches<#(#params),*> {
            #(pub #fields: #params,)*
        }
        /// Each branch's batch gives its buffers back to the loader.
        impl<#(#params: __adl_crate::exec::Recycle),*> __adl_crate::exec::Recycle for Branches<#(#params),*> {
            fn recycle(self, recycler: &mut __adl_crate::exec::Recycler) {
                #(__adl_crate::exec::Recycle::recycle(self.#fields, recycler);)*
            }
        }
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy)]
        struct Merge;
        impl<#(#params),*> __adl_crate::Transform<#nested_ty> for Merge {
            type Output = Branches<#(#params),*>;
            #[inline]
            fn apply(&self, #nested_pat: #nested_ty) -> __adl_crate::Result<Self::Output> {
                ::core::result::Result::Ok(Branches { #(#fields: #values),* })
            }
        }
        Merge
    }}
}

/// The type (in `adl::description`) that makes a closure standing in `stage` a
/// node: `BatchFn` where batches flow, `SampleFn` elsewhere.
pub(super) fn closure_node_type(stage: Stage) -> &'static str {
    match stage {
        Stage::Batch => "BatchFn",
        _ => "SampleFn",
    }
}

/// The value of a node standing in `stage`, after `cursor`.
fn node_value(node: &NodeRef, stage: Stage, cursor: Option<&Ident>) -> TokenStream {
    let span = node.span;
    let expr = &node.expr;
    match node.kind {
        NodeKind::Type => quote_spanned!(span=> #expr {}),
        NodeKind::Closure { typed } => {
            let wrapper = Ident::new(closure_node_type(stage), span);
            let source = text_of(expr);
            match (typed, cursor) {
                (false, Some(before)) => {
                    quote_spanned!(span=> __adl_crate::transform::#wrapper::after(&#before, #expr, #source))
                }
                _ => quote_spanned!(span=> __adl_crate::transform::#wrapper::new(#expr, #source)),
            }
        }
        NodeKind::Random { typed } => {
            let (random, closure) = random_call(expr).expect("a `random(closure)` call");
            let source = text_of(expr);
            match (typed, cursor) {
                (false, Some(before)) => {
                    quote_spanned!(span=> __adl_crate::transform::RandomFn::after(&#before, #random, #closure, #source))
                }
                _ => {
                    quote_spanned!(span=> __adl_crate::transform::RandomFn::new(#random, #closure, #source))
                }
            }
        }
        NodeKind::Value => match expr {
            // `(node)`: the parentheses only say "a value, not a type".
            Expr::Paren(inner) => {
                let inner = &inner.expr;
                quote!(#inner)
            }
            _ => quote!(#expr),
        },
    }
}

/// The value of a collate: `default` is `DefaultCollate`, a strategy's
/// word (`pad`, `packed`, `list`, `concat`, as in `#[collate(...)]`) that
/// strategy, a closure is a `collate_fn`, anything else is used as it is.
fn collate_value(collate: &CollateRef) -> TokenStream {
    let span = collate.span;
    let word = match &collate.expr {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(Ident::to_string),
        _ => None,
    };
    if let Some(strategy) = word.as_deref().and_then(crate::collate::Strategy::named) {
        let ty = strategy.type_ident(span);
        return quote_spanned!(span=> __adl_crate::collate::#ty);
    }
    match &collate.expr {
        Expr::Path(p) if p.qself.is_none() && p.path.is_ident("default") => {
            quote_spanned!(span=> __adl_crate::collate::DefaultCollate)
        }
        closure @ Expr::Closure(_) => {
            quote_spanned!(span=> __adl_crate::pipeline::collate_fn(#closure))
        }
        Expr::Paren(inner) => {
            let inner = &inner.expr;
            quote!(#inner)
        }
        other => quote!(#other),
    }
}

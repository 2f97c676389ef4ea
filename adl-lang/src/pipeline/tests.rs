//! Snapshots of the expansion of each DSL form, expanded in-process, and
//! unit tests of the phases.

use proc_macro2::TokenStream;
use quote::quote;

/// The expansion of `pipeline! { input }`, pretty-printed.
fn expand(input: TokenStream) -> String {
    let out = super::expand(input);
    let wrapped = quote!(fn expansion() { let pipeline = #out; });
    let file: syn::File = syn::parse2(wrapped.clone()).unwrap_or_else(|e| panic!("{e}: {wrapped}"));
    prettyplease::unparse(&file)
}

/// The messages of the errors the parse and check phases report.
fn errors(input: TokenStream) -> Vec<String> {
    let (body, mut errors) = super::parse::parse(input);
    errors.extend(super::check::check(&body).1);
    errors
        .iter()
        .map(|e| e.to_string().lines().next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn stages() {
    insta::assert_snapshot!(expand(quote! {
        sample: decode -> flip,
        collate: default,
        batch: to_f32 -> normalize,
    }));
}

#[test]
fn node_values_and_closures() {
    insta::assert_snapshot!(expand(quote! {
        sample: |x: i64| x + 1 -> scale(2.0) -> (norm) -> |x| x * 2,
        collate: collate_fn(stack),
        batch: |b: Vec<i64>| -> i64 { b.iter().sum() },
    }));
}

#[test]
fn random_nodes() {
    // Typed (the first of the pipeline), untyped after a node (its input
    // inferred from it), by a path; a `random` with no closure is a value.
    insta::assert_snapshot!(expand(quote! {
        sample: random(|x: f32, rng: &mut SampleRng| x + rng.unit_f32())
            -> random(|x, rng| x * rng.unit_f32())
            -> adl::transform::random(move |x, _| x)
            -> random(seed),
        collate: default,
    }));
}

#[test]
fn collate_closure_and_identity_stages() {
    insta::assert_snapshot!(expand(quote! {
        collate: |v: Vec<i64>| v.len(),
    }));
}

#[test]
fn pre_and_post() {
    insta::assert_snapshot!(expand(quote! {
        pre: decode,
        sample: flip,
        collate: default,
        post: summarize,
    }));
}

#[test]
fn struct_branches() {
    insta::assert_snapshot!(expand(quote! {
        pre: decode,
        Frame {
            radar: { sample: crop, collate: default },
            label: { collate: default, batch: |b| b },
        },
        post: summarize,
    }));
}

#[test]
fn named_batch_structs() {
    // A generic struct, and a concrete one in turbofish, nested.
    insta::assert_snapshot!(expand(quote! {
        Frame => FrameBatch {
            camera: { sample: to_unit, collate: default },
            radar: Radar => RadarBatch<Array1<f32>, f32> {
                range: { collate: default },
                gain: { collate: Sum },
            },
        },
        batch: |b| b,
    }));
}

#[test]
fn nested_branches() {
    insta::assert_snapshot!(expand(quote! {
        Frame {
            radar: Radar {
                range: { collate: default },
                doppler: { collate: default },
            },
            label: { collate: default },
        }
    }));
}

#[test]
fn keyed_branches() {
    insta::assert_snapshot!(expand(quote! {
        "radar": { sample: crop, collate: default },
        "lidar": { collate: default },
    }));
}

#[test]
fn typed_keyed_branches() {
    insta::assert_snapshot!(expand(quote! {
        Record<f32> { "radar": { collate: default } },
        batch: summarize,
    }));
}

#[test]
fn errors_come_first_and_the_expansion_follows() {
    insta::assert_snapshot!(expand(quote! {
        smaple: flip,
        sample: crop,
        collate: default -> stack,
        batch:,
    }));
}

#[test]
fn every_error_of_a_call_is_reported() {
    assert_eq!(
        errors(quote! {
            smaple: flip,
            sample: default,
            collate: a -> b,
            sample: crop,
            batch:,
            Frame { x: { collate: c }, x: { sample: d }, { collate: e } },
            Frame {},
        }),
        // The syntax first, then the composition rules (by the checker the
        // planner shares), in the order of the pipeline.
        [
            "unknown stage `smaple:`; a pipeline has `pre:`, `sample:`, `collate:`, `batch:` and `post:`",
            "stage `sample:` is given twice",
            "stage `batch:` is empty",
            "a parallel branch needs the name of the field or key it takes",
            "a pipeline collates exactly once: `Frame { .. }` would collate again after `a`",
            "a pipeline collates exactly once: `Frame { .. }` would collate again after `a`",
            "`default` is a collate; it can only stand under `collate:`",
            "a pipeline collates exactly once: `b` would collate again after `a`",
            "branch `x` is given twice",
            "a pipeline collates exactly once, but branch `x` never collates",
            "a parallel form needs at least one branch",
        ]
    );
}

#[test]
fn missing_collate_and_order() {
    assert_eq!(
        errors(quote! { batch: a, sample: b }),
        [
            "`sample:` cannot come after `batch:`; the stages run in the order pre, sample, collate, batch, post",
            "a pipeline collates exactly once, but this pipeline never collates",
        ]
    );
    assert_eq!(
        errors(quote! { { "a": { sample: x } } }),
        ["a pipeline collates exactly once, but branch `a` never collates"]
    );
}

#[test]
fn syntax_errors_are_reported_and_parsing_goes_on() {
    assert_eq!(
        errors(quote! { sample: a ->, collate: default, batch: b c, post: d }),
        [
            "expected a node after `->`",
            "expected `,` between two entries, or `->` between two nodes"
        ]
    );
    assert_eq!(
        errors(quote! { { radar: { collate: default } } }),
        [
            "`radar:` routes a field, but this parallel form has no sample type: write the type before the braces, `Frame { radar: ... }`, or name a key, `\"radar\": ...`"
        ]
    );
}

#[test]
fn arrows_of_closure_return_types_stay() {
    // `|x: i64| -> i64 { .. }` is one node; the chain arrow after it is
    // an arrow of the chain.
    let (body, errors) = super::parse::parse(quote! {
        sample: |x: i64| -> i64 { x } -> || -> u8 { 0 } -> f,
        collate: default,
    });
    assert!(errors.is_empty());
    let super::parse::Entry::Stage(stage) = &body.entries[0] else {
        panic!("a stage")
    };
    assert_eq!(stage.nodes.len(), 3);
}

#[test]
fn text_of_expressions() {
    use super::check::text_of;
    let e: syn::Expr = syn::parse_quote!(collate_fn(stack::<f32>));
    assert_eq!(text_of(&e), "collate_fn(stack::<f32>)");
    let e: syn::Expr = syn::parse_quote!(|x: i64| x + 1);
    assert_eq!(text_of(&e), "|x: i64| x + 1");
    let e: syn::Expr = syn::parse_quote!(move |v: Vec<f32>| v.len());
    assert_eq!(text_of(&e), "move |v: Vec<f32>| v.len()");
    let e: syn::Expr = syn::parse_quote!(my::Pad { to: 3, value: 0.0 });
    assert_eq!(text_of(&e), "my::Pad { to: 3, value: 0.0 }");
    let e: syn::Expr = syn::parse_quote!(&self.x[0]);
    assert_eq!(text_of(&e), "&self.x[0]");
    let e: syn::Expr = syn::parse_quote!(|| -> u8 { 0 });
    assert_eq!(text_of(&e), "|| -> u8 { 0 }");
}

/// The names of the nodes that an expansion tags, by id: for each
/// `Tagged::new(NodeId(n), name, binding)`, the value bound to `binding`
/// (its first token), at index `n`; and the ids in the order they appear
/// in the expansion.
fn tagged_nodes(input: TokenStream) -> (Vec<String>, Vec<u32>) {
    let text = super::expand(input).to_string();
    let is_node = |token: &str| {
        ["__adl_node", "__adl_collate"].iter().any(|prefix| {
            token
                .strip_prefix(prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    let mut values = std::collections::HashMap::new();
    for statement in text.split("let ").skip(1) {
        let mut tokens = statement.split_whitespace();
        if let (Some(binding), Some("="), Some(value)) =
            (tokens.next(), tokens.next(), tokens.next())
            && is_node(binding)
        {
            values.insert(binding.to_owned(), value.to_owned());
        }
    }
    let mut by_id = std::collections::BTreeMap::new();
    let mut order = Vec::new();
    for tagged in text.split("exec :: NodeId (").skip(1) {
        let (id, rest) = tagged.split_once(')').expect("NodeId(n)");
        let id: u32 = id.trim().parse().expect("a literal id");
        let binding = rest
            .split_whitespace()
            .map(|t| t.trim_end_matches(')'))
            .find(|t| is_node(t))
            .expect("the tagged binding");
        let previous = by_id.insert(id, values[binding].clone());
        assert!(previous.is_none(), "id {id} is tagged twice");
        order.push(id);
    }
    let ids: Vec<u32> = by_id.keys().copied().collect();
    assert_eq!(ids, (0..ids.len() as u32).collect::<Vec<_>>(), "ids 0..n");
    (by_id.into_values().collect(), order)
}

#[test]
fn node_ids_follow_the_canonical_order_of_the_description() {
    let (names, order) = tagged_nodes(quote! {
        pre: p0 -> p1,
        sample: s0,
        Frame {
            a: {
                pre: ap,
                Inner {
                    x: { sample: xs, collate: xc, batch: xb },
                    y: { collate: yc },
                },
                batch: ab,
            },
            b: { sample: bs, collate: bc, batch: bb },
        },
        batch: q0,
        post: q1,
    });
    // `Description::nodes()`: pre, then the body (each branch's nodes in
    // branch order, recursively; a stage level's sample, collate, batch),
    // then post. The nodes of a parallel level's `sample:` stand in its
    // description's `pre`, its `batch:` in its `post`.
    assert_eq!(
        names,
        [
            "p0", "p1", "s0", "ap", "xs", "xc", "xb", "yc", "ab", "bs", "bc", "bb", "q0", "q1"
        ]
    );
    // The expansion builds the branches before the pipeline around them:
    // the ids do not follow the order of the generated code.
    assert_ne!(order, (0..order.len() as u32).collect::<Vec<_>>());

    let (names, _) = tagged_nodes(quote! {
        pre: p,
        sample: s -> t,
        collate: c,
        batch: b,
        post: q,
    });
    assert_eq!(names, ["p", "s", "t", "c", "b", "q"]);

    // Left-out nodes (an unknown stage, a second collate) are no nodes of
    // the description and get no id.
    let (names, _) = tagged_nodes(quote! {
        smaple: x,
        sample: s,
        collate: c -> d,
    });
    assert_eq!(names, ["s", "c"]);
}

/// One mistake, one error: the expansion reads a pipeline as it was
/// meant, so that the types around a mistake are not errors too.
#[test]
fn mistakes_are_read_as_meant() {
    // A misspelt stage is the stage it is closest to, when not written.
    let input = quote! { smaple: s, collate: c };
    assert_eq!(errors(input.clone()).len(), 1);
    assert!(
        super::expand(input)
            .to_string()
            .contains("did you mean `sample:`?"),
        "the help says how it was read"
    );
    assert_eq!(tagged_nodes(quote! { smaple: s, collate: c }).0, ["s", "c"]);
    // ... and left out when it is written too (then it is no guess).
    assert_eq!(
        tagged_nodes(quote! { smaple: x, sample: s, collate: c }).0,
        ["s", "c"]
    );
    // Too far from every stage: left out.
    assert_eq!(tagged_nodes(quote! { stuff: x, collate: c }).0, ["c"]);
    // A repeated stage is chained after the first.
    assert_eq!(
        errors(quote! { sample: a, collate: c, sample: b }),
        ["stage `sample:` is given twice"]
    );
    assert_eq!(
        tagged_nodes(quote! { sample: a, collate: c, sample: b }).0,
        ["a", "b", "c"]
    );
    // A repeated `collate:` is one error, its help to keep one.
    let input = quote! { collate: default, collate: default };
    assert_eq!(errors(input.clone()), ["stage `collate:` is given twice"]);
    assert!(
        super::expand(input)
            .to_string()
            .contains("keep one `collate:`")
    );
    // A stage too far from any, holding `default`: one error, not also a
    // missing collate.
    assert_eq!(
        errors(quote! { sample: a, collation: default }).len(),
        1,
        "unknown_stage only"
    );
    // Two misspellings of one stage: one guess, two errors (each its own
    // mistake), no `duplicate_stage`.
    assert_eq!(errors(quote! { smaple: a, sampel: b, collate: c }).len(), 2);
    // A guessed stage out of its place is not also `stage_order`.
    assert_eq!(errors(quote! { sample: a, collate: c, pr: b }).len(), 1);
    // No collate: `default` stands in; a `default` written elsewhere is
    // that one mistake.
    // (The helper shows a collate by its value's first token:
    // `__adl_crate::collate::DefaultCollate`.)
    assert_eq!(
        tagged_nodes(quote! { sample: a }).0,
        tagged_nodes(quote! { sample: a, collate: default }).0
    );
    assert_eq!(
        errors(quote! { sample: a -> default, batch: b }),
        ["`default` is a collate; it can only stand under `collate:`"]
    );
}

/// `random(..)` is a sample node by its syntax: out of place, it is the
/// checker's error, in our words, and left out of the expansion (no
/// second error from rustc's bounds).
#[test]
fn random_nodes_out_of_place_are_reported_and_left_out() {
    let input = quote! {
        sample: a,
        collate: default,
        batch: b -> random(|x, rng| x) -> c,
    };
    assert_eq!(
        errors(input.clone()),
        ["`random(|x, rng| x)` is not a batch node; it cannot stand under `batch:`"]
    );
    assert_eq!(tagged_nodes(input).0, ["a", "__adl_crate", "b", "c"]);
    let input = quote! { sample: a, collate: random(|x, rng| x) };
    assert_eq!(errors(input.clone()).len(), 1);
    // The default collate stands in.
    assert_eq!(
        tagged_nodes(input).0,
        tagged_nodes(quote! { sample: a, collate: default }).0
    );
    assert_eq!(
        errors(quote! { pre: random(|x: u8, rng| x), collate: default }),
        Vec::<String>::new()
    );
}

#[test]
fn a_batch_struct_is_named_by_its_path_on_a_struct_form() {
    assert_eq!(
        errors(quote! { Frame => { a: { collate: default } } }),
        ["expected the batch struct after `=>`: `Frame => FrameBatch { ... }`"]
    );
    assert_eq!(
        errors(quote! { Record<f32> => Batches { "a": { collate: default } } }),
        [
            "`Batches` names the batch struct of a form over the fields of a struct, but this form routes keys: its batch is the keyed container of its branches' batches; leave `=> Batches` out"
        ]
    );
    assert_eq!(
        errors(quote! { Frame { radar: Radar => &RadarBatch { range: { collate: default } } } }),
        [
            "the batch of a parallel form is a struct of your own with a field per branch, named by its path after `=>` (`Frame => FrameBatch { .. }`), not another kind of type"
        ]
    );
    // Left out where it is an error: the generated batch stands in.
    let text =
        super::expand(quote! { Record<f32> => Batches { "a": { collate: default } } }).to_string();
    assert!(!text.contains("Batches {"), "{text}");
    assert!(errors(quote! { Frame => FrameBatch { a: { collate: default } } }).is_empty());
}

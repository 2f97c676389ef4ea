//! What the index says a bare name is, in each of Rust's scopes, and the
//! errors and repairs that `pipeline!` makes of it.

use std::sync::Arc;

use proc_macro2::TokenStream;
use quote::quote;

use super::{Meaning, SourceIndex, scope};

/// The meanings of the names of each `pipeline!` call of `source`, in the
/// order of the calls, as `name: local` or `name: fn |closure|`.
fn meanings(source: &str) -> Vec<Vec<String>> {
    let file = syn::parse_file(source).expect("the source parses");
    scope::calls_of(&file)
        .into_iter()
        .map(|(_, names)| {
            let mut names: Vec<String> = names
                .iter()
                .map(|(name, meaning)| match meaning {
                    Meaning::Local => format!("{name}: local"),
                    Meaning::PlainFn(shape) => format!("{name}: fn {}", shape.closure()),
                })
                .collect();
            names.sort();
            names
        })
        .collect()
}

/// The first lines of the `compile_error!`s of an expansion.
fn errors(expansion: &TokenStream) -> Vec<String> {
    let text = expansion.to_string();
    text.split("compile_error !")
        .skip(1)
        .map(|rest| {
            let start = rest.find('"').map_or(0, |i| i + 1);
            rest[start..]
                .split("\\n")
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn a_plain_function_and_a_local_variable_have_meanings() {
    let source = r#"
        fn plain(x: i64) -> i64 { x + 1 }
        fn main() {
            let norm = Normalize { mean: 0.5 };
            let p = pipeline! { sample: plain -> norm, collate: default };
        }
    "#;
    assert_eq!(
        meanings(source),
        [["norm: local", "plain: fn |x: i64| plain(x)"]]
    );
}

#[test]
fn anything_that_could_make_a_name_a_type_leaves_it_to_rustc() {
    // `#[transform]` (any macro attribute), an item of that name, a `use`
    // of it, a generic parameter of that name: anywhere in the file.
    for other in [
        "#[transform] fn plain(x: i64) -> i64 { x }",
        "struct plain {}",
        "mod elsewhere { pub struct plain; }",
        "mod elsewhere { use super::x::plain; }",
        "use nodes::{other as plain};",
        "fn g<plain>() {}",
        "type plain = Double;",
    ] {
        let source = format!(
            "fn plain(x: i64) -> i64 {{ x }}\n{other}\nfn main() {{ pipeline! {{ sample: plain, collate: default }}; }}"
        );
        assert_eq!(meanings(&source), [Vec::<String>::new()], "{other}");
    }
}

#[test]
fn a_glob_import_or_an_item_macro_the_call_sees_leaves_every_name_to_rustc() {
    for opaque in ["use nodes::*;", "make_nodes!();", "make_nodes! { plain }"] {
        let in_module = format!(
            "fn plain(x: i64) -> i64 {{ x }}\n{opaque}\nfn main() {{ let norm = 1; pipeline! {{ sample: plain -> norm, collate: default }}; }}"
        );
        assert_eq!(meanings(&in_module), [Vec::<String>::new()], "{opaque}");
        let in_block = format!(
            "fn plain(x: i64) -> i64 {{ x }}\nfn main() {{ {opaque} let norm = 1; pipeline! {{ sample: plain -> norm, collate: default }}; }}"
        );
        assert_eq!(meanings(&in_block), [Vec::<String>::new()], "{opaque}");
    }
    // Elsewhere, or a macro that makes no items, it changes nothing.
    let source = r#"
        fn plain(x: i64) -> i64 { x }
        mod tests { use super::*; }
        fn main() {
            println!("{}", plain(1));
            pipeline! { sample: plain, collate: default };
        }
    "#;
    assert_eq!(meanings(source), [["plain: fn |x: i64| plain(x)"]]);
}

#[test]
fn locals_are_seen_after_their_let_and_within_their_function_only() {
    let source = r#"
        fn main() {
            let a = pipeline! { sample: later, collate: default };
            let later = 1;
            fn nested() {
                let b = pipeline! { sample: later, collate: default };
            }
            let c = pipeline! { sample: later -> outer_fn, collate: default };
            fn outer_fn(s: &str) -> usize { s.len() }
        }
    "#;
    assert_eq!(
        meanings(source),
        [
            vec![],
            vec![],
            vec![
                "later: local".to_owned(),
                "outer_fn: fn |s: &str| outer_fn(s)".to_owned()
            ]
        ]
    );
}

#[test]
fn every_kind_of_binding_is_a_local() {
    let source = r#"
        fn f(param: i64, (tup_a, tup_b): (i64, i64)) {
            let closure = |arg: i64| pipeline! { sample: arg -> param -> tup_b, collate: default };
            match x { Some(arm) if true => pipeline! { sample: arm, collate: default }, _ => {} }
            if let Some(iflet) = x { pipeline! { sample: iflet, collate: default }; }
            while let Some(whilelet) = x { pipeline! { sample: whilelet, collate: default }; }
            for each in xs { pipeline! { sample: each, collate: default }; }
            let Some(letelse) = x else { return };
            pipeline! { sample: letelse -> arm, collate: default };
        }
    "#;
    assert_eq!(
        meanings(source),
        [
            vec!["arg: local", "param: local", "tup_b: local"],
            vec!["arm: local"],
            vec!["iflet: local"],
            vec!["whilelet: local"],
            vec!["each: local"],
            // `arm` is the match arm's only.
            vec!["letelse: local"],
        ]
    );
}

#[test]
fn the_innermost_meaning_wins_and_modules_see_only_their_own_names() {
    let source = r#"
        fn plain(x: i64) -> i64 { x }
        fn main() {
            let plain = 3;
            pipeline! { sample: plain, collate: default };
        }
        mod child {
            fn g() { pipeline! { sample: plain, collate: default }; }
        }
    "#;
    assert_eq!(meanings(source), [vec!["plain: local"], vec![]]);
}

#[test]
fn closures_take_one_input() {
    let source = r#"
        fn add(a: i64, b: i64) -> i64 { a + b }
        fn none() -> i64 { 1 }
        fn generic<T>(x: T) -> T { x }
        fn borrowed<'a>(x: &'a str) -> &'a str { x }
        fn opaque(x: impl Into<i64>) -> i64 { x.into() }
        fn pattern((a, b): (i64, i64)) -> i64 { a + b }
        fn main() { pipeline! { sample: add -> none -> generic -> borrowed -> opaque -> pattern, collate: default }; }
    "#;
    assert_eq!(
        meanings(source),
        [[
            "add: fn |(a, b): (i64, i64)| add(a, b)",
            "borrowed: fn |x| borrowed(x)",
            "generic: fn |x| generic(x)",
            "none: fn |(): ()| none()",
            "opaque: fn |x| opaque(x)",
            "pattern: fn |arg0: (i64, i64)| pattern(arg0)",
        ]]
    );
}

#[test]
fn calls_inside_other_macros_are_found_and_twins_keep_what_they_agree_on() {
    let source = r#"
        fn plain(x: i64) -> i64 { x }
        fn a() { let v = vec![adl::pipeline! { sample: plain -> norm, collate: default }]; }
        fn b() { let norm = 1; let v = vec![adl::pipeline! { sample: plain -> norm, collate: default }]; }
    "#;
    assert_eq!(meanings(source).len(), 2);
    let index = SourceIndex::parse(source).expect("parses");
    let names = index.names_of(&quote!(sample: plain -> norm, collate: default));
    let mut names: Vec<&String> = names.keys().collect();
    names.sort();
    assert_eq!(names, ["plain"]);
    assert!(
        index
            .names_of(&quote!(sample: plain, collate: default))
            .is_empty()
    );
    assert!(SourceIndex::parse("fn main( {").is_none());
}

#[test]
fn the_expansion_says_what_the_name_is_and_repairs_the_node() {
    let source = r#"
        fn plain(x: i64) -> i64 { x + 1 }
        fn add(a: i64, b: i64) -> i64 { a + b }
        fn main() {
            let norm = 1;
            pipeline! { sample: plain -> norm -> add, collate: default };
        }
    "#;
    let index = SourceIndex::parse(source).expect("parses");
    let input = quote!(sample: plain -> norm -> add, collate: default);
    let out = super::super::expand_in(input.clone(), || Some(Arc::new(index)));
    assert_eq!(
        errors(&out),
        [
            "`plain` is a plain function, not a node: a bare name in a pipeline is a node declared with `#[transform]`",
            "`norm` is a local variable, but a bare name in a pipeline is read as a `#[transform]` node type, not as a value",
            "`add` is a plain function, not a node: a bare name in a pipeline is a node declared with `#[transform]`",
        ]
    );
    let text = out.to_string();
    let code = &text[text.find("let __adl_node1").expect("the pipeline's code")..];
    // `plain` is the closure, `norm` the value, `add` left out.
    assert!(
        code.contains(
            "let __adl_node1 = __adl_crate :: graph :: SampleFn :: new (| x : i64 | plain (x)"
        ),
        "{code}"
    );
    assert!(code.contains("let __adl_node2 = norm ;"), "{code}");
    assert!(!code.contains("add"), "{code}");
    // Without the file, the names are node types, as written.
    let plain = super::super::expand(input);
    assert!(errors(&plain).is_empty());
    assert!(plain.to_string().contains("plain { }"));
}

#[test]
fn a_stage_left_empty_by_a_repair_is_left_out() {
    let source = r#"
        fn add(a: i64, b: i64) -> i64 { a + b }
        fn main() { pipeline! { sample: add, collate: default }; }
    "#;
    let index = SourceIndex::parse(source).expect("parses");
    let out = super::super::expand_in(quote!(sample: add, collate: default), || {
        Some(Arc::new(index))
    });
    // One error: not also `empty_stage`.
    assert_eq!(errors(&out).len(), 1, "{out}");
}

#[test]
fn calls_inside_macro_rules_or_unknown_macros_have_no_meanings_nor_their_twins() {
    // A `macro_rules!` body lands where the macro is used; so does another
    // macro's argument. A call written alike elsewhere keeps nothing.
    let source = r#"
        fn double(x: i64) -> i64 { x * 2 }
        macro_rules! doubled { () => { adl::pipeline! { sample: double, collate: default } } }
        fn main() {
            let norm = 2;
            let a = with_nodes!(pipeline! { sample: norm, collate: default });
            let b = pipeline! { sample: double, collate: default };
        }
    "#;
    assert_eq!(
        meanings(source),
        [
            Vec::<String>::new(),
            vec![],
            vec!["double: fn |x: i64| double(x)".to_owned()]
        ]
    );
    let index = SourceIndex::parse(source).expect("parses");
    assert!(
        index
            .names_of(&quote!(sample: double, collate: default))
            .is_empty()
    );
    // A standard macro's name that the file defines is not the standard
    // macro: as a statement it may make items, and its calls are not
    // placed.
    let shadowed = r#"
        macro_rules! vec { ($($t:tt)*) => { struct norm {} } }
        fn main() {
            let norm = 2;
            vec![pipeline! { sample: norm, collate: default }];
            pipeline! { sample: norm -> norm, collate: default };
        }
    "#;
    assert_eq!(meanings(shadowed), [Vec::<String>::new(), vec![]]);
}

#[test]
fn attributes_and_derives_that_may_make_items_leave_names_to_rustc() {
    let call = "let norm = 1; pipeline! { sample: plain -> norm, collate: default };";
    let both = vec![
        "norm: local".to_owned(),
        "plain: fn |x: i64| plain(x)".to_owned(),
    ];
    for (around, expected) in [
        // On another item of the scope, or on the function around the call.
        (
            format!("#[node_for(double)] struct Config;\nfn main() {{ {call} }}"),
            vec![],
        ),
        (format!("#[with_nodes] fn main() {{ {call} }}"), vec![]),
        (
            format!("#[derive(Nodes)] struct Config;\nfn main() {{ {call} }}"),
            vec![],
        ),
        (
            format!("#[cfg_attr(test, with_nodes)] fn main() {{ {call} }}"),
            vec![],
        ),
        (
            format!("#[with_nodes] impl Config {{ fn f() {{ {call} }} }}"),
            vec![],
        ),
        (
            format!(
                "#[with_nodes] mod m {{ fn plain(x: i64) -> i64 {{ x }} fn f() {{ {call} }} }}"
            ),
            vec![],
        ),
        // Inert attributes, the standard derives, adl's own (whose names
        // are known), tests and tokio's entry points change nothing.
        (
            format!(
                "#[derive(Debug, Clone)] #[repr(C)] struct Config;\n#[test] fn main() {{ {call} }}"
            ),
            both.clone(),
        ),
        (
            format!(
                "#[derive(adl::Collate)] #[collate(derive(Debug))] struct Frame {{ x: i64 }}\n#[tokio::main] async fn main() {{ {call} }}"
            ),
            both.clone(),
        ),
        (
            format!(
                "#[cfg_attr(test, derive(Debug))] struct Config;\n#[allow(unused)] fn main() {{ {call} }}"
            ),
            both.clone(),
        ),
    ] {
        let source = format!("fn plain(x: i64) -> i64 {{ x }}\n{around}");
        assert_eq!(meanings(&source), [expected], "{around}");
    }
    // adl's naming derives: `Frame` makes `FrameBatch`.
    let source = r#"
        #[derive(Collate)] struct Frame { x: i64 }
        fn FrameBatch(x: i64) -> i64 { x }
        fn main() { pipeline! { sample: FrameBatch, collate: default }; }
    "#;
    assert_eq!(meanings(source), [Vec::<String>::new()]);
}

#[test]
fn raw_identifiers_are_the_names_they_spell() {
    let source = r#"
        #[adl::transform] fn r#double(x: i64) -> i64 { x * 2 }
        fn main() { let double = 3; pipeline! { sample: double, collate: default }; }
    "#;
    assert_eq!(meanings(source), [Vec::<String>::new()]);
    // The closure spells the names as written.
    let source = r#"
        fn r#plain(r#type: i64) -> i64 { r#type }
        fn main() { pipeline! { sample: plain, collate: default }; }
    "#;
    assert_eq!(
        meanings(source),
        [["plain: fn |r#type: i64| r#plain(r#type)"]]
    );
}

#[test]
fn closures_call_unsafe_functions_in_unsafe_blocks_and_do_not_return_borrows() {
    let source = r#"
        unsafe fn raw(x: i64) -> i64 { x }
        fn first(s: &str) -> &str { s }
        fn double(double: i64) -> i64 { double * 2 }
        async fn fetch(x: i64) -> i64 { x }
        fn main() { pipeline! { sample: raw -> first -> double -> fetch, collate: default }; }
    "#;
    assert_eq!(
        meanings(source),
        [[
            "double: fn |double_: i64| double(double_)",
            "first: fn |s| first(s)",
            "raw: fn |x: i64| unsafe { raw(x) }",
        ]]
    );
}

#[test]
fn the_help_names_the_stage_closure_type_and_the_crate_path() {
    let source = r#"
        fn main() {
            let total = Total;
            pipeline! { crate = my::adl; collate: default, batch: total };
        }
    "#;
    let index = SourceIndex::parse(source).expect("parses");
    let out = super::super::expand_in(
        quote!(crate = my::adl; collate: default, batch: total),
        || Some(Arc::new(index)),
    );
    assert!(
        out.to_string()
            .contains("(my::adl::graph::BatchFn::new(total, \\\"total\\\"))"),
        "{out}"
    );
}

#[test]
fn an_untyped_closure_cannot_be_the_first_node() {
    let source = r#"
        fn generic<T>(x: T) -> T { x }
        fn main() { pipeline! { sample: generic -> generic, collate: default }; }
    "#;
    let index = SourceIndex::parse(source).expect("parses");
    let out = super::super::expand_in(quote!(sample: generic -> generic, collate: default), || {
        Some(Arc::new(index))
    });
    assert_eq!(errors(&out).len(), 2, "{out}");
    // The first is left out; the second follows nothing, so it is first
    // now, and left out too (the errors' text writes `generic(x)`).
    let text = out.to_string();
    assert!(
        !text.contains("generic (") && !text.contains("generic {"),
        "{text}"
    );
}

#[test]
fn files_too_large_or_too_deep_are_not_indexed() {
    let deep = format!(
        "fn main() {{ let x = {}1{}; }}",
        "(".repeat(200),
        ")".repeat(200)
    );
    assert!(SourceIndex::parse(&deep).is_none());
    let large = format!("fn main() {{}}\n{}", "// padding\n".repeat(200_000));
    assert!(SourceIndex::parse(&large).is_none());
    assert!(SourceIndex::parse("fn main() { let x = ((1)); }").is_some());
}

#[test]
fn what_a_standard_macro_or_an_attribute_could_hide_leaves_names_to_rustc() {
    let call = "pipeline! { sample: plain -> norm, collate: default }";
    let both = vec![
        "norm: local".to_owned(),
        "plain: fn |x: i64| plain(x)".to_owned(),
    ];
    for (body, expected) in [
        // A block inside a standard macro's arguments may hold items.
        (
            format!(
                "let norm = 1; vec![{{ #[adl::transform] fn norm(x: i64) -> i64 {{ x }} {call} }}];"
            ),
            vec![],
        ),
        (format!("let norm = 1; vec![{call}];"), both.clone()),
        // A standard macro's name imported from elsewhere is not it.
        (
            format!("use other::vec; let norm = 1; vec![{call}];"),
            vec![],
        ),
        (
            format!("use other::println; let norm = 1; println!(); let p = {call};"),
            vec![],
        ),
    ] {
        let source = format!("fn plain(x: i64) -> i64 {{ x }}\nfn main() {{ {body} }}");
        assert_eq!(meanings(&source), [expected], "{body}");
    }
    // An inert attribute's name imported as a macro is that macro; a
    // derive's helper on an item without a derive is a macro too.
    for item in [
        "use adl::transform as test;\n#[test] fn plain(x: i64) -> i64 { x }",
        "#[serde(rename = \"p\")] fn plain(x: i64) -> i64 { x }",
        "#[other::transform] struct Config;\nfn plain(x: i64) -> i64 { x }",
    ] {
        let source = format!("{item}\nfn main() {{ let norm = 1; {call}; }}");
        assert_eq!(meanings(&source), [Vec::<String>::new()], "{item}");
    }
    // A crate's inner attributes and a derive's helpers on its item are
    // inert.
    let source = format!(
        "#![forbid(unsafe_code)]\n#![cfg_attr(docsrs, feature(doc_cfg))]\n\
         #[derive(serde::Serialize)] #[serde(rename_all = \"snake_case\")] struct Config;\n\
         fn plain(x: i64) -> i64 {{ x }}\nfn main() {{ let norm = 1; {call}; }}"
    );
    assert_eq!(meanings(&source), [both]);
}

#[test]
fn an_untyped_closure_after_a_collate_with_nothing_before_it_is_left_out() {
    let source = r#"
        fn generic<T>(x: T) -> T { x }
        fn main() { pipeline! { collate: default, batch: generic }; }
    "#;
    let index = SourceIndex::parse(source).expect("parses");
    let out = super::super::expand_in(quote!(collate: default, batch: generic), || {
        Some(Arc::new(index))
    });
    assert_eq!(errors(&out).len(), 1, "{out}");
    let text = out.to_string();
    assert!(
        !text.contains("generic (") && !text.contains("generic {"),
        "{text}"
    );
}

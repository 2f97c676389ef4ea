//! Transforms, collates and pipelines: sequential, parallel and sequence
//! composition, identity defaults, and errors that name the step, the key
//! and the sample.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use adl::collate::DefaultCollate;
use adl::pipeline::{
    BoxedPipeline, IdentityCollate, ParallelPipelines, Post, Pre, SequencePipeline, Stages,
    collate_fn, run,
};
use adl::transform::{
    BoxedTransform, Identity, MissingKey, ParallelTransforms, Then, TransformExt, fallible, named,
};
use adl::{Collate, Error, Pipeline, Record, Transform};
use ndarray::{Array1, array};
use proptest::prelude::*;

fn record<T>(pairs: Vec<(&str, T)>) -> Record<T> {
    let (names, values): (Vec<String>, Vec<T>) =
        pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).unzip();
    Record::new(Arc::from(names), values).expect("as many names as values")
}

fn btree<T>(pairs: Vec<(&str, T)>) -> BTreeMap<String, T> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

fn missing_key(e: &Error) -> Option<&MissingKey> {
    match e {
        Error::Transform { cause, .. } => cause.downcast_ref(),
        _ => None,
    }
}

// ---- transforms ------------------------------------------------------------

#[test]
fn closures_and_functions_are_transforms() {
    fn negate(x: i64) -> i64 {
        -x
    }
    assert_eq!(negate.apply(3).unwrap(), -3);
    assert_eq!((|s: &str| s.len()).apply("four").unwrap(), 4);
}

#[test]
fn then_applies_left_to_right() {
    let t = (|x: i64| x + 1).then(|x: i64| x * 3).then(|x: i64| x - 2);
    assert_eq!(t.apply(5).unwrap(), 16);
    // Types change along the chain.
    let t = (|x: i64| x * 2)
        .then(|x: i64| x.to_string())
        .then(|s: String| s.len());
    assert_eq!(t.apply(500).unwrap(), 4);
    let (a, b) = Then::new(|x: i64| x, |x: i64| x).into_parts();
    assert_eq!((a(1), b(2)), (1, 2));
}

#[test]
fn identity_is_neutral() {
    assert_eq!(Identity.apply("x").unwrap(), "x");
    let t = Then::new(Identity, |x: i64| x + 1).then(Identity);
    assert_eq!(t.apply(1).unwrap(), 2);
}

#[test]
fn fallible_steps_fail_with_their_name() {
    let half = fallible(|x: i64| {
        if x % 2 == 0 {
            Ok(x / 2)
        } else {
            Err(format!("{x} is odd"))
        }
    });
    assert_eq!(half.apply(4).unwrap(), 2);
    let err = half.apply(3).unwrap_err();
    assert!(matches!(&err, Error::Transform { node, .. } if node.is_empty()));
    assert_eq!(format!("{err:#}"), "transform: 3 is odd");

    let chain = named("normalize", (|x: i64| x + 1).then(half.named("half")));
    let err = chain.apply(4).unwrap_err();
    assert_eq!(err.to_string(), "transform `normalize/half`");
    assert_eq!(format!("{err:#}"), "transform `normalize/half`: 5 is odd");
    assert_eq!(chain.name(), "normalize");
    // `{:#}` says the cause; the cause is kept (to match on), and is
    // std's source (for anyhow's chain and `downcast_ref`).
    assert_eq!(err.cause().expect("has a cause").to_string(), "5 is odd");
    let source = std::error::Error::source(&err).expect("has a source");
    assert_eq!(source.to_string(), "5 is odd");
}

#[test]
fn named_wraps_other_errors() {
    // A transform failing with another kind of error (here a collate error
    // from DefaultCollate used inside a transform) keeps it as its cause.
    let stack = named("stack", |v: Vec<Array1<f32>>| DefaultCollate.collate(v));
    let t = stack.then(fallible(|r: adl::Result<_>| r)).named("outer");
    let err = t.apply(vec![array![1.0f32], array![1.0, 2.0]]).unwrap_err();
    match &err {
        Error::Transform { node, cause } => {
            assert_eq!(node, "outer");
            assert!(cause.to_string().contains("sample 1"), "{cause}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn boxed_transforms_chain_at_run_time() {
    let ks = [2, 3, 4];
    let chain = ks
        .iter()
        .fold(BoxedTransform::<i64, i64>::new(Identity), |acc, &k| {
            acc.then(move |x: i64| x * k).boxed()
        });
    assert_eq!(chain.apply(1).unwrap(), 24);
    let mixed: Vec<BoxedTransform<i64, i64>> = vec![
        (|x: i64| x + 1).boxed(),
        fallible(|x: i64| Ok::<_, Error>(x)).boxed(),
    ];
    assert_eq!(mixed[0].apply(1).unwrap() + mixed[1].apply(1).unwrap(), 3);
}

#[test]
fn tuple_transforms_route_elements() {
    let t = (|x: i64| x + 1, |s: &str| s.to_uppercase(), Identity);
    assert_eq!(t.apply((1, "a", 2.5)).unwrap(), (2, "A".to_string(), 2.5));
    let t = (|x: i64| x, fallible(|_: i64| Err::<i64, _>("no")));
    assert_eq!(
        format!("{:#}", t.apply((1, 2)).unwrap_err()),
        "transform `.1`: no"
    );
}

#[test]
fn parallel_transforms_route_keys_and_drop_the_rest() {
    let t = ParallelTransforms::new()
        .with("b", (|x: i64| x * 3).boxed())
        .with("a", (|x: i64| x + 1).boxed());
    assert_eq!(t.keys(), ["b", "a"]);

    let out = t.apply(record(vec![("a", 1), ("z", 0), ("b", 2)])).unwrap();
    assert_eq!(
        out.names(),
        ["b", "a"],
        "records keep the transforms' key order"
    );
    assert_eq!(out.values(), [6, 2]);

    let map: HashMap<String, i64> = btree(vec![("a", 1), ("b", 2), ("z", 0)])
        .into_iter()
        .collect();
    let out = t.apply(map).unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!((out["a"], out["b"]), (2, 6));

    let err = t.apply(btree(vec![("b", 2), ("c", 5)])).unwrap_err();
    assert_eq!(
        format!("{err:#}"),
        "transform `a`: the sample has no key `a`; its keys are [b, c]"
    );
    let m = missing_key(&err).unwrap();
    assert_eq!(
        (m.key.as_str(), m.available.clone()),
        ("a", vec!["b".into(), "c".into()])
    );
}

#[test]
fn parallel_transforms_name_the_failing_branch() {
    let t: ParallelTransforms<BoxedTransform<i64, i64>> = [
        ("ok", (|x: i64| x).boxed()),
        (
            "bad",
            fallible(|_: i64| Err::<i64, _>("boom"))
                .named("step")
                .boxed(),
        ),
    ]
    .into_iter()
    .collect();
    let err = t.apply(btree(vec![("ok", 1), ("bad", 2)])).unwrap_err();
    assert_eq!(format!("{err:#}"), "transform `bad/step`: boom");
    // A key given twice keeps its place and the last transform.
    let t = ParallelTransforms::new()
        .with("a", (|x: i64| x).boxed())
        .with("b", (|x: i64| x).boxed())
        .with("a", (|x: i64| -x).boxed());
    assert_eq!(t.keys(), ["a", "b"]);
    assert_eq!(t.apply(btree(vec![("a", 1), ("b", 1)])).unwrap()["a"], -1);
    assert!(t.get("c").is_none());
}

// ---- collates and three-stage pipelines ------------------------------------

#[test]
fn identity_collate_and_collate_fn() {
    assert_eq!(
        IdentityCollate.collate(vec!["a", "b"]).unwrap(),
        vec!["a", "b"]
    );
    assert_eq!(
        IdentityCollate.collate(Vec::<i64>::new()).unwrap(),
        Vec::<i64>::new()
    );
    let total = collate_fn(|v: Vec<i64>| v.into_iter().sum::<i64>());
    assert_eq!(total.collate(vec![1, 2, 3]).unwrap(), 6);
}

#[test]
fn tuple_collates_compose_in_parallel() {
    let c = (DefaultCollate, IdentityCollate);
    let (x, names) = c.collate(vec![(1.0f64, "a"), (2.0, "b")]).unwrap();
    assert_eq!(x, array![1.0, 2.0]);
    assert_eq!(names, vec!["a", "b"]);
    let c = (IdentityCollate, DefaultCollate);
    let err = c
        .collate(vec![(0, array![1.0f32]), (0, array![1.0, 2.0])])
        .unwrap_err();
    match err {
        Error::Collate { path, position, .. } => assert_eq!((path.as_str(), position), (".1", 1)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn stages_default_to_identity() {
    let p = Stages::new();
    assert_eq!(run(&p, vec![1, 2, 3]).unwrap(), vec![1, 2, 3]);
    assert_eq!(Pipeline::<i64>::sample(&p, 7).unwrap(), 7);
}

#[test]
fn stages_run_sample_collate_batch() {
    let p = Stages::new()
        .with_sample(|x: i64| x + 2)
        .with_collate(IdentityCollate)
        .with_batch(|v: Vec<i64>| v.into_iter().map(|x| x * 2).collect::<Vec<_>>());
    let t: Vec<i64> = [1, 2, 3]
        .into_iter()
        .map(|x| p.sample(x).unwrap())
        .collect();
    assert_eq!(t, vec![3, 4, 5]);
    let c = p.collate(t).unwrap();
    assert_eq!(p.batch(c).unwrap(), vec![6, 8, 10]);

    let (s, _, b) = p.clone_parts();
    assert_eq!((s(1), b(vec![1])), (3, vec![2]));
}

trait CloneParts<S, C, B> {
    fn clone_parts(&self) -> (S, C, B);
}

impl<S: Clone, C: Clone, B: Clone> CloneParts<S, C, B> for Stages<S, C, B> {
    fn clone_parts(&self) -> (S, C, B) {
        (
            self.sample_stage().clone(),
            self.collate_stage().clone(),
            self.batch_stage().clone(),
        )
    }
}

#[test]
fn stages_with_default_collate() {
    let p = Stages::new()
        .with_sample(|(x, y): (f32, i64)| (array![x, x * 2.0], y))
        .with_collate(DefaultCollate)
        .with_batch(|(x, y): (ndarray::Array2<f32>, Array1<i64>)| (x.sum(), y.sum()));
    assert_eq!(run(&p, vec![(1.0, 1), (2.0, 2)]).unwrap(), (9.0, 3));
    let p = Stages::new().with_collate(DefaultCollate);
    let err = run(&p, Vec::<f32>::new()).unwrap_err();
    assert!(matches!(err, Error::Collate { .. }));
}

#[test]
fn pre_and_post_composition() {
    let p = Stages::new()
        .with_sample(|x: i64| x * 10)
        .with_batch(|v: Vec<i64>| v.iter().sum::<i64>())
        .pre(|s: &str| s.len() as i64)
        .post(|total: i64| format!("total {total}"));
    assert_eq!(p.sample("abc").unwrap(), 30);
    assert_eq!(run(&p, ["a", "bb"]).unwrap(), "total 30");

    // The wrappers work on any pipeline.
    let seq = SequencePipeline::new(Stages::new().with_sample(|x: i64| x + 1));
    let p = seq
        .pre(|n: usize| vec![0i64; n])
        .post(|steps: Vec<Vec<i64>>| steps.len());
    assert_eq!(run(&p, [3, 3]).unwrap(), 3);
    let p = Post::new(
        Pre::new(|x: i64| (x,), (Stages::new(),)),
        |(v,): (Vec<i64>,)| v.len(),
    );
    assert_eq!(run(&p, [1, 2]).unwrap(), 2);
}

// ---- parallel pipelines ----------------------------------------------------

type Branch = BoxedPipeline<i64, i64, Vec<i64>, Vec<i64>>;

fn branch(sample: impl Fn(i64) -> i64 + Send + Sync + 'static, batch: i64) -> Branch {
    Box::new(
        Stages::new()
            .with_sample(sample)
            .with_batch(move |v: Vec<i64>| v.into_iter().map(|x| x * batch).collect::<Vec<_>>()),
    )
}

fn two_branches() -> ParallelPipelines<Branch> {
    ParallelPipelines::new()
        .with("a", branch(|x| x * 2, 5))
        .with("b", branch(|x| x + 1, 1))
}

#[test]
fn parallel_pipelines_over_maps_and_records() {
    let p = two_branches();
    let out = run(
        &p,
        vec![
            btree(vec![("a", 1), ("b", 2)]),
            btree(vec![("a", 3), ("b", 4), ("c", 9)]),
        ],
    )
    .unwrap();
    assert_eq!(out, btree(vec![("a", vec![10, 30]), ("b", vec![3, 5])]));

    let out = run(&p, vec![record(vec![("b", 2), ("a", 1)])]).unwrap();
    assert_eq!(out.names(), ["a", "b"]);
    assert_eq!(out.values(), [vec![10], vec![3]]);

    let raw: Vec<HashMap<String, i64>> =
        vec![btree(vec![("a", 1), ("b", 2)]).into_iter().collect()];
    let out = run(&p, raw).unwrap();
    assert_eq!(out["b"], vec![3]);
}

#[test]
fn parallel_pipelines_missing_keys() {
    let p = two_branches();
    let err = run(&p, vec![btree(vec![("a", 1)])]).unwrap_err();
    assert_eq!(missing_key(&err).unwrap().key, "b");
    assert_eq!(
        format!("{err:#}"),
        "transform `b`: the sample has no key `b`; its keys are [a]"
    );

    // In the collate stage, a missing key names the sample.
    let transformed = vec![btree(vec![("a", 1), ("b", 2)]), btree(vec![("a", 1)])];
    let err = Pipeline::<BTreeMap<String, i64>>::collate(&p, transformed).unwrap_err();
    match &err {
        Error::Collate { path, position, .. } => {
            assert_eq!((path.as_str(), *position), ("[\"b\"]", 1))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn parallel_pipelines_name_branch_collate_errors() {
    let p = ParallelPipelines::new().with("image", Stages::new().with_collate(DefaultCollate));
    let raw = vec![
        btree(vec![("image", array![1.0f32, 2.0])]),
        btree(vec![("image", array![1.0f32])]),
    ];
    match run(&p, raw).unwrap_err() {
        Error::Collate { path, position, .. } => {
            assert_eq!((path.as_str(), position), ("[\"image\"]", 1))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tuple_pipelines_have_their_own_collates() {
    let p = (
        Stages::new()
            .with_sample(|x: f32| x / 2.0)
            .with_collate(DefaultCollate),
        Stages::new().with_sample(|s: &str| s.len()),
        SequencePipeline::new(Stages::new()),
    );
    let (x, lens, seq) = run(&p, vec![(1.0, "a", vec![1, 2]), (3.0, "bcd", vec![3, 4])]).unwrap();
    assert_eq!(x, array![0.5f32, 1.5]);
    assert_eq!(lens, vec![1, 3]);
    assert_eq!(seq, vec![vec![1, 3], vec![2, 4]]);

    let err = run(&p, vec![(1.0, "a", vec![1, 2]), (3.0, "b", vec![3])]).unwrap_err();
    match err {
        Error::Collate {
            path,
            position,
            reason,
        } => {
            assert_eq!((path.as_str(), position), (".2", 1));
            assert!(
                reason.contains("length 1, but sample 0 has length 2"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn pointers_to_pipelines_are_pipelines() {
    let p = Stages::new().with_sample(|x: i64| x + 1);
    assert_eq!(run(&&p, [1]).unwrap(), vec![2]);
    assert_eq!(run(&Arc::new(p), [1]).unwrap(), vec![2]);
    let b: Branch = branch(|x| x, 2);
    assert_eq!(run(&b, [1, 2]).unwrap(), vec![2, 4]);
}

// ---- sequences -------------------------------------------------------------

fn times_two_then_five() -> SequencePipeline<
    impl Pipeline<i64, Transformed = i64, Collated = Vec<i64>, Processed = Vec<i64>>,
> {
    SequencePipeline::new(
        Stages::new()
            .with_sample(|x: i64| x * 2)
            .with_batch(|v: Vec<i64>| v.into_iter().map(|x| x * 5).collect::<Vec<_>>()),
    )
}

#[test]
fn sequences_are_collated_time_major() {
    let p = times_two_then_five();
    let out = run(&p, vec![vec![1, 4], vec![2, 5], vec![3, 6]]).unwrap();
    assert_eq!(out, vec![vec![10, 20, 30], vec![40, 50, 60]]);
    assert_eq!(run(&p, vec![vec![7], vec![8]]).unwrap(), vec![vec![70, 80]]);
    // No samples, or empty sequences: no steps.
    assert_eq!(
        run(&p, Vec::<Vec<i64>>::new()).unwrap(),
        Vec::<Vec<i64>>::new()
    );
    assert_eq!(
        run(&p, vec![vec![], vec![]]).unwrap(),
        Vec::<Vec<i64>>::new()
    );
}

#[test]
fn ragged_sequences_are_an_error() {
    let p = times_two_then_five();
    for (raw, position, len, first) in [
        (vec![vec![1, 2, 3], vec![4, 5]], 1, 2, 3),
        (vec![vec![1, 2], vec![]], 1, 0, 2),
        (vec![vec![1], vec![2], vec![3, 4]], 2, 2, 1),
    ] {
        match run(&p, raw).unwrap_err() {
            Error::Collate {
                path,
                position: at,
                reason,
            } => {
                assert_eq!((path.as_str(), at), ("", position));
                assert!(
                    reason.contains(&format!("length {len}, but sample 0 has length {first}")),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn sequence_errors_name_the_step() {
    let p = SequencePipeline::new(Stages::new().with_sample(fallible(|x: i64| {
        if x < 0 { Err("negative") } else { Ok(x) }
    })));
    let err = run(&p, vec![vec![1, -1]]).unwrap_err();
    assert_eq!(format!("{err:#}"), "transform `[1]`: negative");

    let p = SequencePipeline::new(Stages::new().with_collate(DefaultCollate));
    let raw = vec![
        vec![array![1.0f32], array![1.0f32]],
        vec![array![1.0f32], array![1.0f32, 2.0]],
    ];
    match run(&p, raw).unwrap_err() {
        Error::Collate { path, position, .. } => assert_eq!((path.as_str(), position), ("[1]", 1)),
        other => panic!("{other:?}"),
    }
}

proptest! {
    #[test]
    fn sequence_collate_transposes(n in 1usize..6, len in 0usize..6, seed in any::<i64>()) {
        let raw: Vec<Vec<i64>> = (0..n)
            .map(|i| (0..len).map(|t| seed.wrapping_add((i * 10 + t) as i64)).collect())
            .collect();
        let p = SequencePipeline::new(Stages::new());
        let out = run(&p, raw.clone()).unwrap();
        prop_assert_eq!(out.len(), len);
        for (t, step) in out.iter().enumerate() {
            prop_assert_eq!(step.len(), n);
            for (i, x) in step.iter().enumerate() {
                prop_assert_eq!(*x, raw[i][t]);
            }
        }
    }

    #[test]
    fn then_is_associative(x in -1000i64..1000, a in -5i64..5, b in -5i64..5) {
        let f = move |v: i64| v + a;
        let g = move |v: i64| v * b;
        let h = move |v: i64| v - a * b;
        let left = f.then(g).then(h);
        let right = Then::new(f, g.then(h));
        prop_assert_eq!(left.apply(x).unwrap(), right.apply(x).unwrap());
    }
}

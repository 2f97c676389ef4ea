//! The planner: graph shape, the rules on runtime-built pipelines, and the
//! agreement of the graph's path walk with `Description::check`.

use adl_core::description::{Body, Description, NodeInfo, Rule, Section, Stage};
use adl_graph::{GraphBuilder, NodeKind, Planner, SvgError};

mod common;

use common::{Frame, FrameBatch, Raw, Tensor, batch, collate, sample};

fn rules(description: &Description) -> Vec<Rule> {
    match Planner.plan(description) {
        Ok(_) => Vec::new(),
        Err(e) => e.rules().collect(),
    }
}

#[test]
fn a_linear_plan_runs_source_to_sink_in_order() {
    let description = GraphBuilder::new()
        .pre(sample("decode").typed::<Raw, Frame>())
        .sample(sample("flip").typed::<Frame, Frame>())
        .collate(collate("default").typed::<Frame, FrameBatch>())
        .batch(batch("to_tensor").typed::<FrameBatch, Tensor>())
        .post(batch("log"))
        .build();
    let plan = Planner.plan(&description).unwrap();
    let paths = plan.paths();
    assert_eq!(paths.len(), 1);
    assert_eq!(paths[0].location, "pipeline");
    let names: Vec<&str> = paths[0]
        .nodes(&plan)
        .into_iter()
        .map(|n| plan.graph()[n].name())
        .collect();
    assert_eq!(
        names,
        [
            "source",
            "decode",
            "flip",
            "default",
            "to_tensor",
            "log",
            "sink"
        ]
    );
    let sections: Vec<Section> = plan.transforms().filter_map(|(_, n)| n.section()).collect();
    assert_eq!(
        sections,
        [
            Section::Pre,
            Section::Sample,
            Section::Collate,
            Section::Batch,
            Section::Post
        ]
    );
    // The edges carry the types: the source's is what the first node takes.
    let types: Vec<Option<String>> = paths[0]
        .edges
        .iter()
        .map(|&e| plan.graph()[e].ty().map(|t| t.short_name()))
        .collect();
    let name = |s: &str| Some(s.to_owned());
    assert_eq!(
        types,
        [
            name("Raw"),
            name("Frame"),
            name("Frame"),
            name("FrameBatch"),
            name("Tensor"),
            None
        ]
    );
    assert_eq!(plan.source().index(), 0);
    assert_eq!(plan.sink().index(), plan.graph().node_count() - 1);
}

#[test]
fn a_parallel_body_splits_and_merges() {
    let branch = |n: &'static str| {
        GraphBuilder::new()
            .sample(sample(n))
            .collate(collate("default"))
    };
    let description = GraphBuilder::parallel()
        .pre(sample("decode"))
        .branch("radar", branch("crop"))
        .branch(
            "camera",
            GraphBuilder::parallel()
                .branch("left", branch("undistort"))
                .branch("right", branch("undistort")),
        )
        .post(batch("stack"))
        .build();
    let plan = Planner.plan(&description).unwrap();
    let locations: Vec<String> = plan.paths().into_iter().map(|p| p.location).collect();
    assert_eq!(
        locations,
        [
            "pipeline/radar",
            "pipeline/camera/left",
            "pipeline/camera/right"
        ]
    );
    let splits = plan
        .graph()
        .node_weights()
        .filter(|n| matches!(n.kind(), NodeKind::Split))
        .count();
    let merges = plan
        .graph()
        .node_weights()
        .filter(|n| matches!(n.kind(), NodeKind::Merge))
        .count();
    assert_eq!((splits, merges), (2, 2));
    let (_, right) = plan
        .transforms()
        .filter(|(_, n)| n.name() == "undistort")
        .nth(1)
        .unwrap();
    assert_eq!(right.branch(), ["camera", "right"]);
}

#[test]
fn runtime_pipeline_with_two_collates_is_rejected() {
    let description = GraphBuilder::new()
        .sample(sample("flip"))
        .collate(collate("default"))
        .collate(collate("stack"))
        .build();
    let error = Planner.plan(&description).unwrap_err();
    assert_eq!(error.rules().collect::<Vec<_>>(), [Rule::CollateOnce]);
    assert_eq!(error.violations()[0].at, "pipeline/stack");
    assert_eq!(
        error.to_string(),
        "pipeline/stack: a pipeline collates exactly once: `stack` would collate again after `default` [collate_once]"
    );
}

#[test]
fn runtime_batch_node_in_sample_stage_is_rejected() {
    let description = GraphBuilder::new()
        .node(Stage::from_keyword("sample").unwrap(), batch("normalize"))
        .collate(collate("default"))
        .build();
    assert_eq!(rules(&description), [Rule::BatchNodeInSample]);
    let error = Planner.plan(&description).unwrap_err();
    assert_eq!(error.violations()[0].at, "pipeline/normalize");
}

#[test]
fn runtime_type_mismatch_is_found_by_type_id() {
    // Same short name, different types: the TypeId decides.
    mod other {
        pub(crate) struct Frame;
    }
    let description = GraphBuilder::new()
        .sample(sample("decode").typed::<Raw, other::Frame>())
        .sample(sample("flip").typed::<Frame, Frame>())
        .collate(collate("default").typed::<Frame, FrameBatch>())
        .build();
    let error = Planner.plan(&description).unwrap_err();
    assert_eq!(error.rules().collect::<Vec<_>>(), [Rule::TypeMismatch]);
    assert_eq!(
        error.to_string(),
        "pipeline/flip: type mismatch: `flip` does not take `Frame`, which the node before it gives [type_mismatch]"
    );
    let plan = Planner.draft(&description);
    assert_eq!(
        plan.graph()
            .edge_weights()
            .filter(|f| f.is_mismatch())
            .count(),
        1
    );
}

#[test]
fn every_violation_is_listed_one_per_line() {
    let description = GraphBuilder::parallel()
        .branch("radar", GraphBuilder::new().sample(sample("crop")))
        .branch(
            "lidar",
            GraphBuilder::new()
                .collate(collate("c"))
                .batch(sample("flip")),
        )
        .branch("lidar", GraphBuilder::new().collate(collate("c")))
        .build();
    let error = Planner.plan(&description).unwrap_err();
    assert_eq!(
        error.to_string().lines().collect::<Vec<_>>(),
        [
            "pipeline/radar: a pipeline collates exactly once, but `pipeline/radar` never collates [missing_collate]",
            "pipeline/lidar/flip: `flip` is not a batch node; it cannot stand under `batch:` [sample_node_in_batch]",
            "pipeline/lidar: branch `lidar` is given twice [duplicate_branch]",
        ]
    );
}

#[test]
fn post_after_a_parallel_body_is_checked_on_every_path() {
    // The post of a parallel body stands after the merge, on every branch's
    // path: both the description and the graph walk find it there, and
    // report it once, where it stands (at the root, not in a branch).
    let branch = || GraphBuilder::new().collate(collate("default"));
    let description = GraphBuilder::parallel()
        .branch("a", branch())
        .branch("b", branch())
        .post(sample("flip"))
        .build();
    let found: Vec<String> = description.check().into_iter().map(|v| v.at).collect();
    assert_eq!(found, ["pipeline/flip"]);
    let error = Planner.plan(&description).unwrap_err();
    let at: Vec<&str> = error.violations().iter().map(|v| v.at.as_str()).collect();
    assert_eq!(at, ["pipeline/flip"]);
    assert!(error.rules().all(|r| r == Rule::SampleNodeInBatch));
    // So is a `pre:` node, and on a body whose branches share a name.
    let description = GraphBuilder::parallel()
        .pre(batch("q"))
        .branch("x", branch())
        .branch("x", branch())
        .build();
    assert_eq!(
        Planner.draft(&description).check_paths(),
        description
            .check()
            .into_iter()
            .filter(|v| v.rule != Rule::DuplicateBranch)
            .collect::<Vec<_>>()
    );
    let at: Vec<String> = description.check().into_iter().map(|v| v.at).collect();
    assert_eq!(at, ["pipeline/q", "pipeline/x"]);
}

#[test]
fn empty_parallel_bodies_and_branches() {
    let none = GraphBuilder::parallel().build();
    assert_eq!(rules(&none), [Rule::NoBranches]);
    assert!(Planner.draft(&none).paths().is_empty());
    // Two empty branches: two edges from the split to the merge, two paths.
    let empty = GraphBuilder::parallel()
        .branch("a", GraphBuilder::new())
        .branch("b", GraphBuilder::new())
        .build();
    let plan = Planner.draft(&empty);
    let locations: Vec<String> = plan.paths().into_iter().map(|p| p.location).collect();
    assert_eq!(locations, ["pipeline/a", "pipeline/b"]);
    assert_eq!(rules(&empty), [Rule::MissingCollate, Rule::MissingCollate]);
}

/// Every description of a small family: stage nodes of every kind in every
/// section, linear and in branches. On each, the graph's path walk finds
/// exactly what `Description::check` finds, in the same order (leaving out
/// the rules about branch lists, which are no path's business).
#[test]
fn the_path_walk_agrees_with_description_check() {
    let options = |section: &[NodeInfo]| -> Vec<Vec<NodeInfo>> {
        let mut out = vec![vec![]];
        out.extend(section.iter().map(|n| vec![n.clone()]));
        out.push(section.to_vec());
        out
    };
    let some = [sample("s"), batch("b")];
    let collates = [collate("c1"), collate("c2")];
    let typed = [
        sample("t").typed::<Raw, Frame>(),
        sample("u").typed::<Tensor, Frame>(),
    ];
    let mut bodies = Vec::new();
    for pre in options(&some) {
        for s in options(&typed) {
            for c in options(&collates) {
                for b in options(&some) {
                    bodies.push(
                        Description::new(Body::stages(s.clone(), c.clone(), b.clone()))
                            .with_pre(pre.clone())
                            .with_post(b.clone()),
                    );
                }
            }
        }
    }
    let mut all = bodies.clone();
    for (i, pair) in bodies.windows(2).enumerate().step_by(7) {
        // Untyped pre: types are not compared across a split.
        let pre = if i % 2 == 0 {
            vec![sample("p")]
        } else {
            vec![batch("q")]
        };
        let parallel = GraphBuilder::parallel()
            .branch("x", pair[0].clone())
            .branch("y", GraphBuilder::parallel().branch("z", pair[1].clone()));
        let parallel = pre.into_iter().fold(parallel, |p, n| p.pre(n)).build();
        all.push(parallel);
    }
    let mut broken = 0;
    for description in &all {
        let plan = Planner.draft(description);
        let expected: Vec<_> = description
            .check()
            .into_iter()
            .filter(|v| !matches!(v.rule, Rule::DuplicateBranch | Rule::NoBranches))
            .collect();
        assert_eq!(plan.check_paths(), expected, "{description:#?}");
        assert_eq!(plan.check(), description.check());
        broken += usize::from(!expected.is_empty());
    }
    assert!(broken > 0 && broken < all.len());
}

#[test]
fn plan_from_a_description() {
    let description = GraphBuilder::new().collate(collate("default")).build();
    let plan = adl_graph::Plan::try_from(&description).unwrap();
    assert_eq!(plan.description(), &description);
}

#[test]
fn svg_without_graphviz_is_a_clear_error() {
    let plan = Planner.draft(&GraphBuilder::new().collate(collate("default")).build());
    match plan.to_svg_with("adl-no-such-graphviz-program") {
        Err(e @ SvgError::NotInstalled { .. }) => {
            assert!(
                e.to_string()
                    .contains("`adl-no-such-graphviz-program` is not installed")
            );
        }
        other => panic!("{other:?}"),
    }
    // Where Graphviz is installed, it renders.
    if let Ok(svg) = plan.to_svg() {
        assert!(svg.contains("<svg"));
    }
}

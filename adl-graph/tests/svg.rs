//! The pure-Rust SVG of a plan (`Plan::to_svg`): the DOT's groups, the
//! source side a loader's dataset tells, the batch type at the sink, a
//! canvas the size of the drawing. Snapshots in `tests/snapshots/`; to
//! update after a deliberate change: `INSTA_UPDATE=always cargo test -p
//! adl-graph --test svg`, then review the `.snap` files (and the pictures:
//! `ADL_SVG_OUT=DIR` writes each one there).

use adl::collate::DefaultCollate;
use adl::pipeline::Stages;
use adl::{Dataset, Origin, SensorOrigin};
use adl_core::description::Description;
use adl_graph::loader::Loader;
use adl_graph::{DeviceFacts, GraphBuilder, Plan, Planner, Settings};

mod common;

use common::{Frame, FrameBatch, Raw, Tensor, batch, collate, sample};

/// The SVG of `plan`, written to `ADL_SVG_OUT/name.svg` where that is set
/// (to look at it), and checked to fit its canvas.
fn svg(name: &str, plan: &Plan) -> String {
    let svg = plan.to_svg().expect("the pure-Rust SVG always draws");
    if let Some(dir) = std::env::var_os("ADL_SVG_OUT") {
        std::fs::write(std::path::Path::new(&dir).join(format!("{name}.svg")), &svg).unwrap();
    }
    assert_fits(&svg);
    svg
}

/// The number after `attribute="` in `tag`.
fn number(tag: &str, attribute: &str) -> f64 {
    let key = format!(" {attribute}=\"");
    let rest = &tag[tag.find(&key).expect(attribute) + key.len()..];
    rest[..rest.find('"').unwrap()].parse().unwrap()
}

/// The canvas holds every frame and box of `svg`, and no more than a
/// margin beyond them: no blank half.
fn assert_fits(svg: &str) {
    let canvas = &svg[svg.find("<svg ").unwrap()..];
    let (width, height) = (number(canvas, "width"), number(canvas, "height"));
    // Frames and boxes, less the background.
    let rects: Vec<(f64, f64)> = svg
        .match_indices("<rect ")
        .skip(1)
        .map(|(at, _)| {
            let tag = &svg[at..at + svg[at..].find('>').unwrap()];
            (
                number(tag, "x") + number(tag, "width"),
                number(tag, "y") + number(tag, "height"),
            )
        })
        .collect();
    let right = rects.iter().map(|r| r.0).fold(0.0, f64::max);
    let bottom = rects.iter().map(|r| r.1).fold(0.0, f64::max);
    assert!(right <= width && bottom <= height, "drawn past the canvas");
    // The sink (an ellipse) is right of every box; the schedule on top
    // may be the widest line. The height is the drawing's.
    assert!(height - bottom <= 10.0, "{height} high, drawn to {bottom}");
    assert!(right >= width / 2.0, "{width} wide, drawn to {right}");
}

#[test]
fn linear() {
    let description = common::linear();
    let svg = svg("linear", &Planner.plan(&description).unwrap());
    // The DOT's groups: the read stage, each stage with its pool, each
    // device; the batch type at the sink; the doc as a tooltip.
    for group in [
        ">read · 1 worker + consumer<",
        ">sample · 1 worker + consumer<",
        ">collate · 1 worker + consumer<",
        ">batch · 1 worker + consumer<",
        ">cpu<",
    ] {
        assert!(svg.contains(group), "{group} missing:\n{svg}");
    }
    assert!(svg.contains(">sink</text>\n<text") && svg.contains(">Tensor</text>\n</g>"));
    assert!(svg.contains("<title>Mirror the image left to right.</title>"));
    insta::assert_snapshot!(svg);
}

#[test]
fn parallel_two_branches() {
    let description = common::two_branches();
    let svg = svg("parallel", &Planner.plan(&description).unwrap());
    assert!(svg.contains(">branch radar<") && svg.contains(">branch lidar<"));
    assert!(svg.contains(">radar: Radar<") && svg.contains(">lidar: Lidar<"));
    insta::assert_snapshot!(svg);
}

#[test]
fn nested_branches_each_in_its_frame() {
    let description = common::nested_branches();
    let svg = svg("nested", &Planner.plan(&description).unwrap());
    for branch in ["imu", "camera", "left", "right"] {
        assert!(svg.contains(&format!(">branch {branch}<")), "{branch}");
    }
    assert_eq!(svg.matches(">split<").count(), 2);
    assert_eq!(svg.matches(">merge<").count(), 2);
}

#[test]
fn kernels_fused_on_a_device() {
    let kernel = |name: &'static str| {
        batch(name)
            .typed::<Tensor, Tensor>()
            .with_kernel(format!("__kernel void {name}(__global float* x) {{}}"))
    };
    let description = GraphBuilder::new()
        .sample(sample("decode").typed::<Raw, Frame>())
        .collate(collate("default").typed::<Frame, FrameBatch>())
        .batch(batch("to_tensor").typed::<FrameBatch, Tensor>())
        .batch(kernel("normalize"))
        .batch(kernel("clamp"))
        .build();
    let settings = Settings::default()
        .workers(2)
        .device(DeviceFacts::named("GPU 0"), "the first GPU");
    let plan = Planner.schedule(&description, &settings).unwrap();
    let svg = svg("opencl", &plan);
    assert!(svg.contains(">opencl: GPU 0<"), "{svg}");
    assert!(svg.contains(">[opencl kernel]<"), "{svg}");
    if plan.fused_groups().is_empty() {
        assert!(!svg.contains(">fused kernel: "), "{svg}");
    } else {
        assert!(svg.contains(">fused kernel: normalize + clamp<"), "{svg}");
    }
    insta::assert_snapshot!(svg);
}

/// A broken pipeline can still be drawn (`Planner::draft`): the odd name
/// escaped, the node in the wrong stage and the edge whose ends disagree
/// drawn in red.
#[test]
fn broken_draft() {
    let description = GraphBuilder::new()
        .sample(sample("decode").typed::<Raw, Frame>())
        .sample(batch("say \"hi\" <now>").typed::<FrameBatch, Tensor>())
        .collate(collate("default"))
        .build();
    let plain = svg(
        "plain",
        &Planner
            .plan(
                &GraphBuilder::new()
                    .sample(sample("decode").typed::<Raw, Frame>())
                    .collate(collate("default"))
                    .build(),
            )
            .unwrap(),
    );
    let svg = svg("broken", &Planner.draft(&description));
    assert!(svg.contains(">say &quot;hi&quot; &lt;now&gt;<"), "{svg}");
    let red = |s: &str| s.matches("\"red\"").count();
    assert!(red(&svg) > red(&plain), "nothing drawn red:\n{svg}");
    assert!(svg.contains(">FrameBatch ≠ Frame<") || svg.contains(">Frame ≠ FrameBatch<"));
}

/// A recording of two file sensors, as a loader sees it: `get` gives the
/// index; `origin` names the trace, each sensor and its file.
struct Drive {
    len: usize,
}

impl Dataset for Drive {
    type Sample = u64;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> adl::Result<u64> {
        Ok(index as u64)
    }

    fn storage(&self) -> Option<&dyn adl::storage::Storage<Origin = Origin>> {
        Some(self)
    }
}

impl adl::storage::Storage for Drive {
    type Origin = Origin;

    fn origin(&self, index: usize) -> Option<Origin> {
        Some(Origin::in_trace(
            "drive-07",
            index,
            vec![
                SensorOrigin::new("camera", index)
                    .in_file(format!("/data/drive-07/camera/{index:06}.jpg"), None),
                SensorOrigin::new("radar", index)
                    .in_file("/data/drive-07/radar/data.npy", Some(index)),
            ],
        ))
    }
}

#[test]
fn a_loaders_plan_draws_its_sensors_and_trace() {
    let loader = Loader::new(
        Drive { len: 40 },
        Stages::new()
            .with_sample(|x: u64| x * 2)
            .with_collate(DefaultCollate),
    )
    .workers(2)
    .build()
    .unwrap();
    let plan = loader.plan();
    let sources = plan.sources().unwrap();
    assert_eq!(sources.samples, 40);
    let svg = svg("loader", plan);
    for part in [
        ">camera<",
        ">file camera/000000.jpg<",
        ">radar<",
        ">file radar/data.npy<",
        ">trace `drive-07`<",
        ">synchronized<",
        ">40 samples<",
        "<title>/data/drive-07/radar/data.npy</title>",
    ] {
        assert!(svg.contains(part), "{part} missing:\n{svg}");
    }
    // Each sensor into the trace, the trace into the source: three arrows
    // more than the plan's edges.
    assert_eq!(
        svg.matches("marker-end=").count(),
        plan.graph().edge_count() + 3
    );
    insta::assert_snapshot!(svg);
    // The DOT draws the same, in its read stage's cluster.
    let dot = plan.to_dot();
    for part in [
        "subgraph cluster_read {",
        "s0 [label=\"camera\\nfile camera/000000.jpg\", tooltip=\"/data/drive-07/camera/000000.jpg\"];",
        "s2 [label=\"trace `drive-07`\\nsynchronized\\n40 samples\"];",
        "    s0 -> s2;\n    s1 -> s2;\n    s2 -> n0;",
    ] {
        assert!(dot.contains(part), "{part} missing:\n{dot}");
    }
}

#[test]
fn a_description_drawn_alone_has_no_sources() {
    let description: Description = GraphBuilder::new().collate(collate("default")).build();
    let plan = Planner.plan(&description).unwrap();
    assert!(plan.sources().is_none());
    let svg = svg("alone", &plan);
    assert!(!svg.contains(">trace ") && !svg.contains(">dataset<"));
}

//! The graphs of the examples' pipelines, as the planner draws them
//! (insta snapshots of the DOT), and a run of each on real data.

use crate::{multimodal, px4_pipeline};

use adl::files::px4::{Px4Log, TopicSensor};
use adl::graph::Planner;
use adl::pipes::DatasetExt;
use adl::sync::Nearest;
use adl::{Dataset, Metadata, Recording, Sensor};

#[test]
fn px4_pipeline_graph() {
    let pipeline = px4_pipeline::flight_pipeline();
    assert_eq!(
        pipeline.graph().check(),
        vec![],
        "the example's pipeline breaks a rule"
    );
    let plan = Planner
        .plan(pipeline.graph())
        .expect("the example's pipeline plans");
    insta::assert_snapshot!(plan.to_dot());
}

/// The two PX4 logs of `tests/data/px4/`.
const LOGS: [&str; 2] = ["pixhawk4-sample-small.ulg", "cube-orange-vtol-small.ulg"];

/// The sensors of the example's pipeline, the GPS last.
const FLIGHT_SENSORS: [&str; 4] = [
    "sensor_combined",
    "vehicle_attitude",
    "vehicle_local_position",
    "vehicle_gps_position",
];

/// A trace of `sensors` of PX4 log `log`, synchronized to `reference`
/// (owning its sensors, as the loader's workers need).
fn px4_trace(log: &str, sensors: &[&str], reference: &str) -> Recording<Vec<TopicSensor>> {
    let path = format!("{}/tests/data/px4/{log}", env!("CARGO_MANIFEST_DIR"));
    let log = Px4Log::open(&path).unwrap();
    let sensors = sensors
        .iter()
        .map(|name| log.sensor(name).unwrap().clone())
        .collect();
    Recording::new(
        log.path().display().to_string(),
        sensors,
        &Nearest::new(reference, 0.05).unwrap(),
    )
    .unwrap()
}

#[test]
fn px4_pipeline_runs_on_both_logs() {
    for log in LOGS {
        let trace = px4_trace(log, &FLIGHT_SENSORS, "vehicle_gps_position");
        let pipeline = px4_pipeline::flight_pipeline();
        let mut seen = 0;
        for samples in (&trace).batch(8).unwrap().iter() {
            let batch = adl::pipeline::run(&pipeline, samples.unwrap()).unwrap();
            let n = batch.imu.gyro.nrows();
            assert_eq!(batch.imu.accel.shape(), &[n, 3]);
            assert_eq!(batch.pose.attitude.shape(), &[n, 4]);
            assert_eq!(batch.pose.position.shape(), &[n, 3]);
            // The batch node removed the batch's mean angular rate.
            let mean = batch.imu.gyro.mean_axis(ndarray::Axis(0)).unwrap();
            assert!(mean.iter().all(|m| m.abs() < 1e-5), "{mean}");
            assert!(
                batch
                    .imu
                    .accel
                    .iter()
                    .all(|a| a.is_finite() && a.abs() < 16.0),
                "accel in g"
            );
            let altitude = batch.pose.altitude.expect("the trace has a GPS");
            assert_eq!(altitude.len(), n);
            assert!(altitude.iter().all(|a| a.is_finite()), "{altitude}");
            seen += n;
        }
        assert_eq!(seen, trace.len());
    }
}

/// A log without a GPS: the trace takes another reference, and the
/// pipeline still runs, its altitude `None` (what `px4_trace` does for such
/// a log, shown with `--without`).
#[test]
fn px4_pipeline_runs_without_a_gps() {
    for log in LOGS {
        let trace = px4_trace(log, &FLIGHT_SENSORS[..3], "vehicle_local_position");
        assert!(trace.len() > 0);
        let pipeline = px4_pipeline::flight_pipeline();
        let loader = adl::graph::loader::Loader::new(trace, pipeline)
            .batch_size(8)
            .workers(2)
            .build()
            .unwrap();
        let mut seen = 0;
        for batch in loader.epoch(0) {
            let batch = batch.unwrap();
            assert!(batch.pose.altitude.is_none());
            assert_eq!(batch.pose.position.ncols(), 3);
            seen += batch.imu.gyro.nrows();
        }
        assert_eq!(seen, loader.dataset().len());
    }
}

#[test]
fn multimodal_pipeline_graph() {
    let plan = Planner
        .plan(multimodal::pipeline().graph())
        .expect("the example's pipeline plans");
    insta::assert_snapshot!(plan.to_dot());
}

/// The multimodal example: three sensors of three types at 10, 20 and
/// 100 Hz with jitter, synchronized to the camera, through one branch per
/// sensor and the loader.
#[test]
fn multimodal_example_runs_typed_end_to_end() {
    use adl::Trace;
    let trace = Recording::new(
        "synthetic",
        multimodal::rig(20).unwrap(),
        &Nearest::new("camera", 0.02).unwrap(),
    )
    .unwrap();
    assert_eq!(trace.sensor("imu").unwrap().len(), 2000);
    let n = trace.len();
    assert!(n > 150 && n <= 200, "{n} of 200 camera frames synchronized");
    // Every synchronized sample is within the tolerance of the camera's
    // time, for every sensor.
    let indices = trace.indices().unwrap();
    let camera = trace.sensors().camera.metadata().timestamps().to_vec();
    for name in ["radar", "imu"] {
        let times = trace.sensor(name).unwrap().timestamps();
        let rows = indices.column(name).unwrap();
        for (row, cam) in rows.iter().zip(indices.column("camera").unwrap()) {
            let dt = (times[*row as usize] - camera[*cam as usize]).abs();
            assert!(dt <= 0.02, "{name}: {dt}");
        }
    }
    let sample: multimodal::Sample = trace.get(0).unwrap();
    assert_eq!(sample.imu.shape(), &[10, 6]);

    let loader = adl::graph::loader::Loader::new(trace, multimodal::pipeline())
        .batch_size(16)
        .shuffle(3)
        .workers(2)
        .build()
        .unwrap();
    let mut seen = 0;
    for batch in loader.epoch(0) {
        let batch = batch.unwrap();
        let b = batch.camera.shape()[0];
        assert_eq!(batch.camera.shape(), &[b, 3, 16, 16]);
        assert_eq!(batch.radar.shape(), &[b, 8, 32]);
        assert_eq!(batch.imu.shape(), &[b, 10, 6]);
        assert!(batch.camera.iter().all(|v| (0.0..=1.0).contains(v)));
        assert!(batch.radar.iter().all(|v| v.is_finite() && *v <= 0.1));
        // Each IMU window was centred.
        let means = batch.imu.mean_axis(ndarray::Axis(1)).unwrap();
        assert!(means.iter().all(|m| m.abs() < 1e-5), "{means}");
        seen += b;
    }
    assert_eq!(seen, n);
}

/// Both examples' pictures, drawn without Graphviz: an SVG that names every
/// node of the plan, in the groups of its stage (with the stage's pool) and
/// of where it runs, and the types on the edges.
#[test]
fn the_examples_draw_as_svg_naming_every_node() {
    let plans = [
        Planner
            .plan(px4_pipeline::flight_pipeline().graph())
            .unwrap(),
        Planner.plan(multimodal::pipeline().graph()).unwrap(),
    ];
    for plan in plans {
        let svg = plan.to_svg().expect("the plan lays out");
        assert!(svg.starts_with("<?xml") && svg.contains("<svg"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        for node in plan.graph().node_weights() {
            assert!(
                svg.contains(&format!(">{}<", node.name())),
                "{} is not drawn",
                node.name()
            );
            if let Some(stage) = node.stands_in() {
                // Its stage's group (with the pool), its device's group,
                // and where its kernel runs.
                let kernel = node.info().unwrap().kernel.is_some();
                let device = match (kernel, node.device()) {
                    (true, adl::description::Device::OpenCl) => ">[opencl kernel]<",
                    (true, _) => ">[kernel: Rust body]<",
                    (false, _) => ">cpu<",
                };
                assert!(svg.contains(&format!(">{stage} · ")), "{stage}");
                assert!(svg.contains(device), "{device}");
            }
            if node.kind() == &adl::graph::NodeKind::Source {
                assert!(svg.contains("read · 1 worker + consumer"), "{svg}");
            }
        }
        // Types as a user writes them, escaped for XML.
        assert!(
            svg.contains("Array") && svg.contains("&lt;") && !svg.contains("ArrayBase"),
            "{svg}"
        );
    }
}

/// The main example itself on a log without a GPS (`--without gps`): it
/// takes the local position as its reference and runs its pipeline to the
/// end, writing its pictures: the plan and the synchronization.
#[test]
fn the_main_example_runs_without_a_gps() {
    let dir = std::env::temp_dir().join(format!("adl-px4-{}", std::process::id()));
    let (dot, svg) = (dir.join("p.dot"), dir.join("p.svg"));
    let mut example = match std::env::var_os("ADL_PX4_TRACE_EXAMPLE") {
        // The example's executable from the build these tests come from
        // (`cargo xtask test` says where): run as it is. `cargo run` built
        // it once more otherwise, with the features of `adl` alone, where
        // the test command's build has the workspace's (some forty
        // seconds of the suite's two cores).
        Some(executable) => std::process::Command::new(executable),
        None => {
            let mut cargo = std::process::Command::new(env!("CARGO"));
            cargo.args(["run", "-q", "--example", "px4_trace", "--"]);
            cargo
        }
    };
    let output = example
        .args(["--without", "gps"])
        .arg("--dot")
        .arg(&dot)
        .arg("--svg")
        .arg(&svg)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("no GPS: the local position (`vehicle_local_position`) is the reference"),
        "{stdout}"
    );
    assert!(
        stdout.contains("altitude: none (no GPS in the trace)"),
        "{stdout}"
    );
    assert!(std::fs::read_to_string(&svg).unwrap().contains("to_flight"));
    assert!(
        std::fs::read_to_string(&dot)
            .unwrap()
            .starts_with("digraph")
    );
    // The synchronization drawn beside them, from the reference it took.
    let sync = std::fs::read_to_string(dir.join("px4_sync.svg")).unwrap();
    assert!(
        sync.contains("vehicle_local_position (reference)") && sync.contains("class=\"match\""),
        "{sync}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

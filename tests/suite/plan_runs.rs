//! The plan is what runs: each example's pipeline, and pipelines of batch
//! kernels, run through the Loader, and what ran (per node: the device, and
//! the nodes it ran as one with, as the loader's statistics record them)
//! equals what [`Loader::plan`] scheduled, with and without a device, with
//! fusion on and off, with 0 and 2 workers.

use crate::{multimodal, px4_pipeline};

use adl::InMemory;
use adl::description::Device;
use adl::files::px4::Px4Log;
use adl::graph::loader::{Loader, LoaderBuilder};
use adl::kernel::{Affine, Clamp, FlipByFlag, Normalize, U8ToF32};
use adl::prelude::*;
use adl::sync::Nearest;
use ndarray::{Array3, Array4};

/// Run an epoch of `builder`'s loader and check that every node ran as its
/// plan says; returns the loader's statistics report (for messages).
fn runs_as_planned<D, P>(builder: LoaderBuilder<D, P>) -> String
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: adl::exec::Recycle + Send + 'static,
{
    let loader = builder.build().expect("the loader builds");
    for batch in loader.epoch(0) {
        batch.expect("every batch is built");
    }
    let plan = loader.plan();
    let stats = loader.statistics();
    let paths = plan.node_paths();
    let nodes: Vec<_> = plan.transforms().collect();
    assert_eq!(paths.len(), nodes.len());
    let report = format!("{}\n{}\n{stats}", plan.schedule(), plan.to_dot());
    for ((index, node), path) in nodes.into_iter().zip(&paths) {
        let row = stats
            .nodes
            .iter()
            .find(|row| &row.name == path)
            .unwrap_or_else(|| panic!("no statistics row for `{path}`\n{report}"));
        assert!(row.calls > 0, "`{path}` never ran\n{report}");
        let planned_group = plan.fused_with(index).unwrap_or_default();
        match (&row.kernel, node.info().and_then(|i| i.kernel.as_ref())) {
            (Some(ran), Some(_)) => {
                assert_eq!(ran.device, node.device(), "`{path}`'s device\n{report}");
                assert_eq!(ran.fused_with, planned_group, "`{path}`'s group\n{report}");
                assert!(!ran.varied, "`{path}` ran in two ways\n{report}");
            }
            (None, None) => {
                assert_eq!(node.device(), Device::Cpu, "`{path}`\n{report}");
                assert!(planned_group.is_empty(), "`{path}`\n{report}");
            }
            (ran, kernel) => panic!(
                "`{path}`: ran as a kernel {ran:?}, has a kernel {}\n{report}",
                kernel.is_some()
            ),
        }
    }
    report
}

/// The first OpenCL device of the machine, whatever its kind (POCL's CPU
/// device in CI), as a CPU device must be chosen: by name or index.
fn opencl_device() -> Option<adl::graph::opencl::DeviceChoice> {
    let choice = adl::graph::opencl::DeviceChoice::Index {
        platform: 0,
        device: 0,
    };
    match adl::graph::opencl::OpenCl::open(&choice) {
        Ok(Some(_)) => Some(choice),
        _ => {
            assert!(
                std::env::var("ADL_REQUIRE_OPENCL").as_deref() != Ok("1"),
                "ADL_REQUIRE_OPENCL=1 but there is no OpenCL device"
            );
            None
        }
    }
}

/// Every way to run a loader of `make()`: 0 and 2 workers, fusion on and
/// off, the Rust kernels and (where there is one) an OpenCL device.
fn every_schedule<D, P>(make: impl Fn() -> LoaderBuilder<D, P>)
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: adl::exec::Recycle + Send + 'static,
{
    let devices = [
        Some(adl::graph::opencl::DeviceChoice::Rust),
        opencl_device(),
    ];
    for device in devices.into_iter().flatten() {
        for fusion in [true, false] {
            for workers in [0, 2] {
                runs_as_planned(
                    make()
                        .opencl(device.clone())
                        .fusion(fusion)
                        .workers(workers),
                );
            }
        }
    }
}

/// The ROS bag example: a camera, an IMU and a pose interpolated at its
/// stamps, a lidar padded, from the rosbag2 test bag.
#[test]
fn the_ros_bag_example_runs_as_planned() {
    let path = format!("{}/tests/data/ros/flight_mcap", env!("CARGO_MANIFEST_DIR"));
    let bag = adl::files::ros::Bag::open(&path).unwrap();
    every_schedule(|| {
        Loader::new(
            crate::ros_flight::open(&bag).unwrap(),
            crate::ros_flight::flight_pipeline(),
        )
        .batch_size(3)
    });
}

#[test]
fn the_px4_example_runs_as_planned() {
    let path = format!(
        "{}/tests/data/px4/pixhawk4-sample-small.ulg",
        env!("CARGO_MANIFEST_DIR")
    );
    let log = Px4Log::open(&path).unwrap();
    let trace = || {
        let sensors: Vec<_> = [
            "sensor_combined",
            "vehicle_attitude",
            "vehicle_local_position",
            "vehicle_gps_position",
        ]
        .iter()
        .map(|name| log.sensor(name).unwrap().clone())
        .collect();
        Recording::new(
            "px4",
            sensors,
            &Nearest::new("vehicle_gps_position", 0.05).unwrap(),
        )
        .unwrap()
    };
    every_schedule(|| Loader::new(trace(), px4_pipeline::flight_pipeline()).batch_size(8));
}

#[test]
fn the_multimodal_example_runs_as_planned() {
    let trace = Recording::new(
        "synthetic",
        multimodal::rig(4).unwrap(),
        &Nearest::new("camera", 0.02).unwrap(),
    )
    .unwrap();
    let report = runs_as_planned(
        Loader::new(trace, multimodal::pipeline())
            .batch_size(8)
            .workers(2),
    );
    // Its rows are named by path: four collates named `default`, one per
    // branch, are four rows.
    for branch in ["camera", "radar", "imu"] {
        assert!(report.contains(&format!("{branch}/default")), "{report}");
    }
}

/// W2's batch stage: a flip, bytes to floats, normalisation, all built-in
/// kernels that run as one on a device and on the CPU.
fn images(n: usize) -> InMemory<(Array3<u8>, bool)> {
    (0..n)
        .map(|i| {
            let image = Array3::from_shape_fn((3, 8, 8), |(c, h, w)| {
                (adl::exec::mix64((i * 192 + c * 64 + h * 8 + w) as u64) >> 56) as u8
            });
            (image, i % 2 == 0)
        })
        .collect()
}

#[test]
fn built_in_kernels_run_as_planned() {
    every_schedule(|| {
        let pipeline = adl::pipeline! {
            collate: default,
            batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> Normalize::per_channel([0.5, 0.4, 0.3], [0.2, 0.2, 0.2]),
        };
        Loader::new(images(40), pipeline).batch_size(8)
    });
}

/// A user's kernel: a kernel of its own, never merged into another.
// SAFETY: one work item per element, each reads `input[i]` and writes
// `output[i]` for its own `i < n`.
#[adl::transform(
    batch,
    name = "double_it",
    unsafe(
        opencl = "__kernel void double_it(__global const float* input, __global float* output, __global const uchar* flags, const ulong n, const ulong per_sample, const ulong channels, const ulong inner, const ulong last) { size_t i = get_global_id(0); output[i] = input[i] * 2.0f; }"
    )
)]
fn double(b: Array4<f32>) -> Array4<f32> {
    b * 2.0
}

/// A run of kernels with a user's kernel in the middle, and a Rust batch
/// node that ends the chain: on a device the built-in kernels on each side
/// of the user's merge; on the CPU the tail after it does.
#[test]
fn a_chain_around_a_users_kernel_runs_as_planned() {
    every_schedule(|| {
        let pipeline = adl::pipeline! {
            collate: default,
            batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> double -> Affine::new(2.0, 1.0) -> Clamp::new(0.0, 3.0) -> |b: Array4<f32>| b.sum(),
        };
        Loader::new(images(24), pipeline).batch_size(8)
    });
    // What that plan is, spelled out, with and without a device.
    let pipeline = adl::pipeline! {
        collate: default,
        batch: FlipByFlag::new() -> U8ToF32::divide(255.0) -> double -> Affine::new(2.0, 1.0) -> Clamp::new(0.0, 3.0) -> |b: Array4<f32>| b.sum(),
    };
    let groups = |plan: &adl::graph::Plan| -> Vec<Vec<String>> {
        plan.fused_groups()
            .iter()
            .map(|g| {
                g.iter()
                    .map(|&n| plan.graph()[n].name().to_owned())
                    .collect()
            })
            .collect()
    };
    let gpu = adl::graph::Settings::default()
        .device(adl::graph::DeviceFacts::named("GPU"), "the first GPU");
    let on_gpu = adl::graph::Planner
        .schedule(pipeline.graph(), &gpu)
        .unwrap();
    assert_eq!(
        groups(&on_gpu),
        [["flip_by_flag", "u8_to_f32"], ["affine", "clamp"]]
    );
    let on_cpu = adl::graph::Planner.plan(pipeline.graph()).unwrap();
    assert_eq!(groups(&on_cpu), [["affine", "clamp"]]);
}

//! The integration tests of the facade, as one test binary (one link, not
//! one per file: the inner loop `cargo test --workspace` spends its time
//! testing, not linking). Each module is one concern, as each file was.
//!
//! The tests with a `main` of their own stay binaries apart: the parity
//! cases (`tests/parity.rs`), a killed job and its resume
//! (`tests/killed_job.rs`), the fault drills (`tests/faults.rs`) and the
//! billion-sample epoch (`tests/billion_epoch.rs`).

// The examples' pipelines, which example_graphs and plan_runs draw and run.
#[path = "../../examples/shared/multimodal.rs"]
#[allow(dead_code, unreachable_pub)]
mod multimodal;
#[path = "../../examples/shared/px4_pipeline.rs"]
#[allow(dead_code, unreachable_pub)]
mod px4_pipeline;
#[path = "../../examples/shared/ros_flight.rs"]
#[allow(dead_code, unreachable_pub)]
mod ros_flight;

mod architecture;
mod collate;
mod collate_properties;
mod dataset_properties;
mod example_graphs;
mod file_imports;
mod flat_map;
mod fused_lanes;
mod interpolation;
#[cfg(feature = "lerobot")]
mod lerobot;
mod loader;
mod memory_budget;
mod opencl;
mod pipeline;
mod pipeline_dsl;
mod pipeline_loader;
mod pipes;
mod plan_runs;
mod px4;
mod read_many;
mod read_stage;
mod sensor_set;
mod shuffle_quality;
mod sync_bad_input;
mod sync_properties;
mod timeline;
mod trace_bad_input;
mod transform;

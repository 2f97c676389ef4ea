//! The compile-pass set (`tests/ui/pass/`: every DSL form), each file a
//! module of this test binary and its `main` run as a test. Built with the
//! workspace's other tests, where `adl` is built already: as trybuild's
//! pass cases they made its project build every dependency with code
//! generated (`cargo build`), where its compile-fail cases alone need
//! only `cargo check` (on CI's two cores, about half of the UI tests'
//! time).

// The cases' `pub` items are forms of the DSL under test (a node's
// visibility follows its function's), not an API of this binary.
#![allow(unreachable_pub)]

#[path = "pass/pipeline_closures.rs"]
mod pipeline_closures;

#[path = "pass/pipeline_keyed_branches.rs"]
mod pipeline_keyed_branches;

#[path = "pass/pipeline_named_batch.rs"]
mod pipeline_named_batch;

#[path = "pass/pipeline_names.rs"]
mod pipeline_names;

#[path = "pass/pipeline_pre_post.rs"]
mod pipeline_pre_post;

#[path = "pass/pipeline_random.rs"]
mod pipeline_random;

#[path = "pass/pipeline_stages.rs"]
mod pipeline_stages;

#[path = "pass/pipeline_struct_branches.rs"]
mod pipeline_struct_branches;

#[path = "pass/pipeline_values.rs"]
mod pipeline_values;

#[path = "pass/sensor_set.rs"]
mod sensor_set;

#[path = "pass/transform_batch.rs"]
mod transform_batch;

#[path = "pass/transform_fallible.rs"]
mod transform_fallible;

#[path = "pass/transform_fn.rs"]
mod transform_fn;

#[path = "pass/transform_impl.rs"]
mod transform_impl;

#[test]
fn pipeline_closures_compiles_and_runs() {
    pipeline_closures::main();
}

#[test]
fn pipeline_keyed_branches_compiles_and_runs() {
    pipeline_keyed_branches::main();
}

#[test]
fn pipeline_named_batch_compiles_and_runs() {
    pipeline_named_batch::main();
}

#[test]
fn pipeline_names_compiles_and_runs() {
    pipeline_names::main();
}

#[test]
fn pipeline_pre_post_compiles_and_runs() {
    pipeline_pre_post::main();
}

#[test]
fn pipeline_random_compiles_and_runs() {
    pipeline_random::main();
}

#[test]
fn pipeline_stages_compiles_and_runs() {
    pipeline_stages::main();
}

#[test]
fn pipeline_struct_branches_compiles_and_runs() {
    pipeline_struct_branches::main();
}

#[test]
fn pipeline_values_compiles_and_runs() {
    pipeline_values::main();
}

#[test]
fn sensor_set_compiles_and_runs() {
    sensor_set::main().unwrap();
}

#[test]
fn transform_batch_compiles_and_runs() {
    transform_batch::main();
}

#[test]
fn transform_fallible_compiles_and_runs() {
    transform_fallible::main();
}

#[test]
fn transform_fn_compiles_and_runs() {
    transform_fn::main();
}

#[test]
fn transform_impl_compiles_and_runs() {
    transform_impl::main();
}

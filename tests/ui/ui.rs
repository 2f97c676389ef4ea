//! Compile-fail tests of the DSL, one folder per composition rule
//! (`tests/ui/<rule id>/`, ids from `adl::description::Rule::ALL`), each case with
//! the `.stderr` a user sees; `tests/ui/sensor_set/` holds the errors of
//! `#[derive(SensorSet)]`, `tests/ui/named_batch/` those of a parallel
//! form's named batch struct (`Frame => FrameBatch { .. }`), and
//! `tests/ui/name_not_a_node/` rustc's own error where a bare name in a
//! pipeline is a plain `fn` or a local variable (one error, at the name).
//! The compile-pass set (`tests/ui/pass/`, every DSL form) is the test
//! binary `pass.rs`, built with the workspace's tests: with no pass case,
//! trybuild checks (`cargo check`) where it would build.
//!
//! Refresh the expected output after a deliberate change with
//! `TRYBUILD=overwrite cargo test -p adl-ui`.

use std::path::Path;

use adl::description::Rule;

#[test]
fn every_rule_fails_to_compile_with_our_message() {
    let t = trybuild::TestCases::new();
    let ui = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    for rule in Rule::ALL {
        // Shown only with the `opencl` feature off, which this build has
        // on: its expansion is a snapshot in adl-macros
        // (`transform::tests::opencl_needs_the_feature`).
        if *rule == Rule::OpenClFeatureOff {
            continue;
        }
        let dir = ui.join(rule.id());
        let has_case = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .flatten()
                    .any(|e| e.path().extension().is_some_and(|x| x == "rs"))
            })
            .unwrap_or(false);
        if has_case {
            t.compile_fail(format!("{}/*.rs", rule.id()));
        } else {
            missing.push(rule.id());
        }
    }
    // The derives' own errors, and a named batch struct's (not
    // composition rules).
    t.compile_fail("sensor_set/*.rs");
    // A bare name that is not a node (a plain `fn`, a local variable):
    // rustc's own error at the name, once.
    t.compile_fail("name_not_a_node/*.rs");
    t.compile_fail("named_batch/*.rs");
    assert!(
        missing.is_empty(),
        "rules without a compile-fail test in tests/ui/<id>/: {missing:?}"
    );
}

//! The crates' shape, as `cargo tree` shows it: the runtime (adl-core and
//! the engine adl-graph) builds no parser. The rules it checks at run time
//! come from `adl-rules`, which has no dependency; `syn`, `quote` and
//! `proc-macro2` are the macros' alone (adl-lang, behind adl-macros).
//! How a pipeline runs (`adl-exec`: the execution context, accelerators,
//! the kernel ABI, batch memory) stands below the specification: adl-core
//! depends on it, and it on no adl crate but the rules. The operations
//! (`adl-ops`: batch kernels and their fusion, image transforms) stand on
//! the specification, and adl-core defines nothing that runs. Inside
//! adl-core, the description of a pipeline names nothing that runs one;
//! the facade re-exports the crates whole. Inside every
//! crate, no source files import each other in a circle
//! (`file_imports`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The packages `package` depends on when built as a library (normal
/// edges, proc macros left out: they run in the compiler, not in the
/// program), one name per line.
fn runtime_dependencies(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-p",
            package,
            "-e",
            "normal,no-proc-macro",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_runtime_builds_no_parser() {
    for package in [
        "adl-rules",
        "adl-exec",
        "adl-core",
        "adl-ops",
        "adl-graph",
        "adl-value",
    ] {
        let deps = runtime_dependencies(package);
        assert!(deps.iter().any(|d| d == package), "{package}: {deps:?}");
        for parser in ["syn", "quote", "proc-macro2", "adl-lang", "adl-macros"] {
            assert!(
                !deps.iter().any(|d| d == parser),
                "{package} builds {parser} into the runtime: {deps:?}"
            );
        }
    }
}

#[test]
fn the_rules_depend_on_nothing() {
    assert_eq!(runtime_dependencies("adl-rules"), ["adl-rules"]);
}

/// The execution crate (`adl-exec`: the execution context, the
/// accelerator trait, the kernel ABI's launches, block kernels, byte views,
/// wide-vector loops, the buffer pool) depends on no adl crate but the
/// rules (a launch's fusion class), which depend on nothing: nothing of
/// the specification, the data model or the engine is below it, so no
/// dependency runs in a circle through it.
#[test]
fn the_execution_crate_depends_on_no_adl_crate_but_the_rules() {
    let deps = runtime_dependencies("adl-exec");
    assert!(deps.iter().any(|d| d == "adl-exec"), "{deps:?}");
    let mut adl: Vec<&String> = deps
        .iter()
        .filter(|d| (d.starts_with("adl-") || *d == "adl") && *d != "adl-exec")
        .collect();
    adl.dedup();
    assert_eq!(adl, ["adl-rules"], "adl-exec's adl dependencies: {deps:?}");
}

/// adl-core, the specification and the data model, stands on the
/// execution crate (every stage method has a twin that takes its context;
/// collation builds its batches in a context's buffer pool) and on the
/// rules, and builds no parser (see `the_runtime_builds_no_parser`); the
/// operations stand on it, not it on them.
#[test]
fn the_data_model_stands_on_the_execution_crate() {
    let deps = runtime_dependencies("adl-core");
    for below in ["adl-exec", "adl-rules"] {
        assert!(
            deps.iter().any(|d| d == below),
            "adl-core does not depend on {below}: {deps:?}"
        );
    }
    assert!(
        !deps.iter().any(|d| d == "adl-ops"),
        "adl-core depends on the operations: {deps:?}"
    );
    let ops = runtime_dependencies("adl-ops");
    for below in ["adl-core", "adl-exec"] {
        assert!(
            ops.iter().any(|d| d == below),
            "adl-ops does not depend on {below}: {ops:?}"
        );
    }
}

/// adl-core holds the specification and the data model, not what runs
/// them: its code defines no execution context, no device, no kernel node
/// and no OpenCL C, and resizes no image (those are adl-exec's and
/// adl-ops'). Doc comments are not code.
#[test]
fn the_specification_defines_nothing_that_runs() {
    let found = code_naming(
        "adl-core/src",
        &[
            "trait Context",
            "trait Accelerator",
            "trait KernelNode",
            "struct Sequential",
            "__kernel",
            "fast_image_resize",
        ],
    );
    assert!(
        found.is_empty(),
        "adl-core defines what runs:\n{}",
        found.join("\n")
    );
}

/// The lines of code (comments left out) of the Rust files under `dir`
/// (from the repository's root) that contain any of `names`, as
/// `file:line: code`.
fn code_naming(dir: &str, names: &[&str]) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut found = Vec::new();
    for file in crate::file_imports::rust_files(&dir) {
        let text = std::fs::read_to_string(&file).expect("the file reads");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if !code.starts_with("//") && names.iter().any(|name| code.contains(name)) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, code));
            }
        }
    }
    found
}

/// What a pipeline looks like (`adl::description`) is data about
/// pipelines, below what runs them: its code names neither the
/// transforms nor the pipelines of adl-core (the closure nodes are
/// transforms, the parallel branches a pipeline's), so that description,
/// transform and pipeline make no cycle. Doc links are not code.
#[test]
fn the_description_of_a_pipeline_names_nothing_that_runs() {
    let found = code_naming(
        "adl-core/src/description",
        &["crate::pipeline", "crate::transform", "crate::pipes"],
    );
    assert!(
        found.is_empty(),
        "the description names what runs:\n{}",
        found.join("\n")
    );
}

/// The facade re-exports adl-core by a glob and each other crate whole
/// (the operations' modules merged into adl-core's where a user looks for
/// them), so that it mirrors the crates and cannot drift from them.
#[test]
fn the_facade_mirrors_the_crates() {
    let facade = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("the facade reads");
    for line in [
        "pub use adl_core::*;",
        "pub use adl_graph as graph;",
        "pub use adl_files as files;",
        "pub use adl_ops::kernel;",
        "pub use adl_core::transform::*;",
        "pub use adl_ops::image::*;",
    ] {
        assert!(facade.contains(line), "the facade lacks `{line}`");
    }
}

/// The methods of spec trait `name` in adl-core's `file`: those in its
/// body (`fn name(`), in order.
fn trait_methods(file: &str, name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("adl-core/src/spec")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("the spec file reads");
    let start = text
        .find(&format!("pub trait {name}"))
        .unwrap_or_else(|| panic!("{} has no trait {name}", path.display()));
    let body = &text[start..];
    let body = &body[..body.find("\n}\n").expect("the trait ends")];
    body.split("fn ")
        .skip(1)
        .filter_map(|rest| rest.split(['(', '<']).next())
        .map(str::to_owned)
        .collect()
}

/// The spec traits are the specification, with two engine hooks each:
/// `storage()` (origins, hints, reads ahead: `adl::storage`) and
/// `get_fetched()` (a `get` handed what was read ahead for it, a value,
/// so that nothing is parked in a sensor): a wrapper forwards or routes
/// them, and `storage`'s tests check every wrapper does both. A dataset
/// has two more, `get_many()` and `reads_many()` (a batch's samples in
/// one call, where that is cheaper: `tests/suite/read_many.rs`), which a
/// wrapper may leave at their defaults (one `get` each), always right.
#[test]
fn the_spec_traits_carry_their_engine_hooks() {
    assert_eq!(
        trait_methods("dataset.rs", "Dataset"),
        [
            "len",
            "is_empty",
            "get",
            "get_fetched",
            "get_many",
            "reads_many",
            "storage"
        ]
    );
    let sensor = trait_methods("sensor.rs", "Sensor");
    let engine: Vec<&String> = sensor
        .iter()
        .filter(|m| {
            ![
                "name",
                "metadata",
                "get",
                "len",
                "is_empty",
                "stream",
                "stream_batches",
                "duration",
                "map",
                "try_map",
                "boxed",
                "framerate",
            ]
            .contains(&m.as_str())
        })
        .collect();
    assert_eq!(
        engine,
        ["get_fetched", "storage"],
        "Sensor's methods: {sensor:?}"
    );
}

/// The source folders of every package in the repository (a folder with
/// a `Cargo.toml` and a `src`, the facade's own included), `target` left
/// out.
fn source_folders(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("Cargo.toml").is_file() && dir.join("src").is_dir() {
        out.push(dir.join("src"));
    }
    for entry in std::fs::read_dir(dir).expect("the directory reads") {
        let path = entry.expect("the directory reads").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() && !name.starts_with('.') && !["target", "src"].contains(&name) {
            source_folders(&path, out);
        }
    }
}

/// No two source files of a crate import each other, directly or round
/// a circle, by the code's own paths (`use crate::..`, `super::..`): each
/// file stands on those below it, so a change to one is read knowing
/// only them (see `file_imports` for what counts).
#[test]
fn no_source_files_import_each_other_in_a_circle() {
    let mut folders = Vec::new();
    source_folders(Path::new(env!("CARGO_MANIFEST_DIR")), &mut folders);
    assert!(folders.len() >= 10, "the packages' sources: {folders:?}");
    let mut found = String::new();
    for src in &folders {
        let imports = crate::file_imports::Imports::of(src);
        for circle in imports.circles() {
            found.push_str(&format!(
                "{}:\n{}",
                src.display(),
                imports.describe(&circle)
            ));
        }
    }
    assert!(
        found.is_empty(),
        "source files import each other in a circle:\n{found}"
    );
}

//! The crates' shape, as `cargo tree` shows it: the runtime (adl-core and
//! the engine adl-graph) builds no parser. The rules it checks at run time
//! come from `adl-rules`, which has no dependency; `syn`, `quote` and
//! `proc-macro2` are the macros' alone (adl-lang, behind adl-macros).

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
    for package in ["adl-rules", "adl-core", "adl-graph"] {
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

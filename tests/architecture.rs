//! The crates' shape, as `cargo tree` shows it: the runtime (adl-core and
//! the engine adl-graph) builds no parser. The rules it checks at run time
//! come from `adl-rules`, which has no dependency; `syn`, `quote` and
//! `proc-macro2` are the macros' alone (adl-lang, behind adl-macros).
//! Inside adl-core, the plumbing (kernel machinery, batch memory) stands
//! below the specification and names nothing above it.

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

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the directory reads") {
        let path = entry.expect("the directory reads").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The first segment of each path a `crate::` reference at the start of
/// `rest` names: `a` for `crate::a::b`, `a` and `b` for `crate::{a, b::c}`.
fn first_segments(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = rest.strip_prefix('{') else {
        return vec![ident(rest)];
    };
    // The items of the group, split at its top-level commas.
    let (mut items, mut depth, mut item) = (Vec::new(), 0usize, String::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    items
        .iter()
        .map(|item| ident(item))
        .filter(|s| !s.is_empty())
        .collect()
}

/// The plumbing of adl-core (`adl-core/src/plumbing`: block kernels, byte
/// views, wide-vector loops, the buffer pool) names no module of the crate
/// but itself and `error`, in code and in docs alike: it stands below the
/// specification, no dependency runs in a circle through it, and it could
/// become a crate of its own.
#[test]
fn the_plumbing_names_nothing_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("adl-core/src/plumbing");
    let files = rust_files(&root);
    assert!(files.len() > 5, "the plumbing's files: {files:?}");
    let allowed = ["plumbing", "error", "Error", "Result"];
    let mut named = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("the file reads");
        let at_root = file.file_name().is_some_and(|n| n == "mod.rs");
        for (n, line) in text.lines().enumerate() {
            let place = format!("{}:{}", file.display(), n + 1);
            for (at, _) in line.match_indices("crate::") {
                let before = line[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                    continue;
                }
                for segment in first_segments(&line[at + "crate::".len()..]) {
                    if !allowed.contains(&segment.as_str()) {
                        named.push(format!("{place}: crate::{segment}"));
                    }
                }
            }
            // `super` is the crate's root from the plumbing's own root, and
            // two levels up from its files.
            if (at_root && line.contains("super::")) || line.contains("super::super") {
                named.push(format!("{place}: {}", line.trim()));
            }
        }
    }
    assert!(
        named.is_empty(),
        "the plumbing names modules above it:\n{}",
        named.join("\n")
    );
}

#[test]
fn crate_paths_are_read_with_their_groups() {
    assert_eq!(first_segments("plumbing::bytes::typed"), ["plumbing"]);
    assert_eq!(
        first_segments("{Error, kernel::{Lanewise, FusedLanes}, Result};"),
        ["Error", "kernel", "Result"]
    );
}

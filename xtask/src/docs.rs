//! Docs that cannot drift: `cargo doc` of the workspace with broken
//! intra-doc links denied, then every Rust path the project's Markdown
//! names in backticks (`adl::files::Video`, `adl::graph::loader::Loader`,
//! `adl_python::RustLoader`, ...) looked up in the documentation it made.
//!
//! A path resolves where rustdoc wrote a page for it: a module's folder, an
//! item's page (`struct.Video.html`, `fn.run.html`, ...), a re-export in its
//! parent module's index (`adl::graph`), or a member's anchor on its type's
//! page (`method.`, `variant.`, `structfield.`, ...). The facade's
//! re-exported crates (`pub use adl_graph as graph;` in src/lib.rs) are
//! followed into their own crate's pages.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The features the documented build turns on: those of the test build, so
/// that LeRobot's, video's and object storage's items are documented.
const FEATURES: &str = "adl-files/store,adl/lerobot";

/// The kinds of item page rustdoc writes, `{kind}.{Name}.html`.
const ITEM_KINDS: [&str; 13] = [
    "struct",
    "enum",
    "trait",
    "fn",
    "macro",
    "type",
    "constant",
    "static",
    "attr",
    "derive",
    "union",
    "traitalias",
    "primitive",
];

/// The anchors rustdoc gives a type's or trait's members on its page.
const MEMBER_ANCHORS: [&str; 6] = [
    "method",
    "tymethod",
    "variant",
    "structfield",
    "associatedtype",
    "associatedconstant",
];

/// Run `cargo doc` with rustdoc's warnings denied (broken and private
/// intra-doc links among them), then check the Markdown's paths against
/// its pages.
pub(crate) fn check(root: &Path, cargo: &str) -> Result<(), String> {
    let status = doc_command(root, cargo)
        .status()
        .map_err(|e| format!("could not run {cargo} doc: {e}"))?;
    if !status.success() {
        return Err(format!(
            "`cargo doc --workspace --no-deps --features {FEATURES}` with rustdoc's warnings denied failed ({status})"
        ));
    }
    check_pages(root)
}

/// `cargo doc` of the workspace with rustdoc's warnings denied.
fn doc_command(root: &Path, cargo: &str) -> Command {
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args(["doc", "--workspace", "--no-deps", "--features", FEATURES])
        .env("RUSTDOCFLAGS", "-D warnings");
    command
}

/// Every Rust path the Markdown names looked up in the pages `cargo doc`
/// made.
fn check_pages(root: &Path) -> Result<(), String> {
    let doc = crate::target_dir(root).join("doc");
    let aliases = facade_aliases(&root.join("src/lib.rs"))?;
    let mut missing = Vec::new();
    let mut checked = 0usize;
    for file in markdown_files(root)? {
        let text = fs::read_to_string(&file)
            .map_err(|e| format!("could not read {}: {e}", file.display()))?;
        for (line, path) in rust_paths(&text) {
            checked += 1;
            if !resolves(&doc, &aliases, &path) {
                let shown = file.strip_prefix(root).unwrap_or(&file);
                missing.push(format!("{}:{line}: `{path}`", shown.display()));
            }
        }
    }
    if missing.is_empty() {
        println!("xtask: docs: {checked} Rust paths named in the Markdown all documented");
        Ok(())
    } else {
        Err(format!(
            "the docs name Rust items that the documentation does not have (renamed or removed?):\n  {}",
            missing.join("\n  ")
        ))
    }
}

/// The facade's crate aliases, `pub use adl_graph as graph;`: alias to
/// crate.
fn facade_aliases(lib: &Path) -> Result<HashMap<String, String>, String> {
    let text =
        fs::read_to_string(lib).map_err(|e| format!("could not read {}: {e}", lib.display()))?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("pub use ")?.strip_suffix(';')?;
            let (krate, alias) = rest.split_once(" as ")?;
            (!krate.contains("::")).then(|| (alias.trim().to_string(), krate.trim().to_string()))
        })
        .collect())
}

/// The project's own Markdown: the README, docs/ and each crate's and
/// folder's README, found by walking the root (target/, .git and test data
/// left out).
fn markdown_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries =
            fs::read_dir(dir).map_err(|e| format!("could not list {}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("could not list {}: {e}", dir.display()))?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                let skipped = name.starts_with('.')
                    || matches!(name.as_ref(), "target" | "data" | "corpus" | "regressions");
                if !skipped {
                    walk(&path, found)?;
                }
            } else if name.ends_with(".md") {
                found.push(path);
            }
        }
        Ok(())
    }
    let mut found = Vec::new();
    walk(root, &mut found)?;
    found.sort();
    Ok(found)
}

/// The Rust paths in a Markdown text's inline code spans (fenced blocks
/// left out), with their line numbers: a span's leading path from a crate
/// of the project (`adl`, `adl_*`), cut where the path ends (at generics,
/// a call or a method's `.`).
fn rust_paths(text: &str) -> BTreeSet<(usize, String)> {
    let mut paths = BTreeSet::new();
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans: the text between each pair of backticks.
        for span in line.split('`').skip(1).step_by(2) {
            let path: String = span
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let path = path.trim_end_matches(':');
            let from_project = path
                .split_once("::")
                .is_some_and(|(krate, _)| krate == "adl" || krate.starts_with("adl_"));
            // `__private` is the macros' hidden module, not documented.
            if from_project && !path.contains("__private") {
                paths.insert((index + 1, path.to_string()));
            }
        }
    }
    paths
}

/// Whether rustdoc wrote a page or anchor for `path` under `doc`.
fn resolves(doc: &Path, aliases: &HashMap<String, String>, path: &str) -> bool {
    let segments: Vec<&str> = path.split("::").collect();
    let mut dir = doc.join(segments[0]);
    if !dir.join("index.html").is_file() {
        return false;
    }
    // The page of the item reached so far, where it is not a module.
    let mut page: Option<PathBuf> = None;
    for (position, segment) in segments.iter().enumerate().skip(1) {
        let last = position == segments.len() - 1;
        if let Some(item) = &page {
            // Past an item's page only a member of it can follow, last.
            return last && has_member(item, segment);
        }
        if dir.join(segment).join("index.html").is_file() {
            dir = dir.join(segment);
            continue;
        }
        // A crate the facade re-exports under another name.
        if dir == doc.join(segments[0])
            && let Some(krate) = aliases.get(*segment)
            && doc.join(krate).join("index.html").is_file()
        {
            dir = doc.join(krate);
            continue;
        }
        if let Some(item) = ITEM_KINDS
            .iter()
            .map(|kind| dir.join(format!("{kind}.{segment}.html")))
            .find(|file| file.is_file())
        {
            page = Some(item);
            continue;
        }
        // A re-export of something else (documented at its source).
        return last && has_anchor(&dir.join("index.html"), &format!("reexport.{segment}"));
    }
    true
}

/// Whether a type's or trait's page documents a member `name`.
fn has_member(page: &Path, name: &str) -> bool {
    let Ok(html) = fs::read_to_string(page) else {
        return false;
    };
    MEMBER_ANCHORS
        .iter()
        .any(|kind| html.contains(&format!("id=\"{kind}.{name}\"")))
}

/// Whether a page has an element with the id `id`.
fn has_anchor(page: &Path, id: &str) -> bool {
    fs::read_to_string(page).is_ok_and(|html| html.contains(&format!("id=\"{id}\"")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_cut_where_they_end_and_fences_are_left_out() {
        let text = "see `adl::graph::Planner.plan(pipe.graph())` and `adl::Transform<In>`\n\
                    ```rust\nlet x = `adl::Inside`;\n```\n\
                    not `Loader::new` nor `adl.Loader`, but `adl_python::RustLoader` and `adl::__private`";
        let paths: Vec<String> = rust_paths(text).into_iter().map(|(_, p)| p).collect();
        assert_eq!(
            paths,
            [
                "adl::Transform",
                "adl::graph::Planner",
                "adl_python::RustLoader"
            ]
        );
    }

    #[test]
    fn aliases_are_read_from_use_lines() {
        let dir = std::env::temp_dir().join(format!("xtask-docs-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("lib.rs");
        fs::write(
            &lib,
            "pub use adl_core::*;\npub use adl_graph as graph;\npub use adl_macros::transform_without_opencl as transform;\n",
        )
        .unwrap();
        let aliases = facade_aliases(&lib).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(aliases.len(), 1);
        assert_eq!(aliases["graph"], "adl_graph");
    }

    #[test]
    fn pages_anchors_and_aliases_resolve_and_others_do_not() {
        let doc = std::env::temp_dir().join(format!("xtask-doc-{}", std::process::id()));
        let write = |path: &str, html: &str| {
            let file = doc.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, html).unwrap();
        };
        write("adl/index.html", r#"<h2 id="reexport.ndarray">"#);
        write("adl/files/index.html", "");
        write("adl/struct.Loader.html", r#"<section id="method.new">"#);
        write("adl_graph/index.html", "");
        write("adl_graph/loader/index.html", "");
        write("adl_graph/loader/enum.ShardOrder.html", "");
        let aliases = HashMap::from([("graph".to_string(), "adl_graph".to_string())]);
        let found = |path| resolves(&doc, &aliases, path);
        assert!(found("adl::files"));
        assert!(found("adl::ndarray"));
        assert!(found("adl::Loader"));
        assert!(found("adl::Loader::new"));
        assert!(found("adl::graph::loader::ShardOrder"));
        assert!(!found("adl::Loader::old"));
        assert!(!found("adl::Loader::new::more"));
        assert!(!found("adl::Gone"));
        assert!(!found("adl::graph::loader::Sampler"));
        assert!(!found("adl_missing::Thing"));
        fs::remove_dir_all(&doc).unwrap();
    }
}

//! Which source files of a crate import which, read from the code's own
//! paths (`use crate::a::b`, `super::c::f(..)`, `$crate::d::E` in a
//! macro), and the circles among them: the architecture test holds every
//! crate of the workspace to none.
//!
//! A file is the module it defines (`src/a/b.rs` and `src/a/b/mod.rs` are
//! `a::b`; `lib.rs` and `main.rs` the root). A path names the longest
//! module it starts with, relative to the file for `self::` and
//! `super::`. A module and its own ancestors are one subtree, not a
//! circle (a parent declares and re-exports its children; a child uses
//! its parent's items), so an import between them is not counted.
//! Comments, strings and a file's `#[cfg(test)] mod` are left out: a
//! test may use what it tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path in its crate (`[]`: the crate root).
pub(crate) type Module = Vec<String>;

/// The crate whose sources are under `src`: each file's module, the
/// modules it imports, and the line that names each.
pub(crate) struct Imports {
    /// Each file's module and its path.
    pub(crate) files: BTreeMap<Module, PathBuf>,
    /// For each module, the modules its file imports, each with the first
    /// line that does (1-based) and its text.
    pub(crate) edges: BTreeMap<Module, BTreeMap<Module, (usize, String)>>,
}

impl Imports {
    /// The imports of the crate whose sources are under `src`.
    pub(crate) fn of(src: &Path) -> Imports {
        let mut files = BTreeMap::new();
        for file in rust_files(src) {
            files.insert(module_of(src, &file), file);
        }
        let mut edges = BTreeMap::new();
        for (module, file) in &files {
            let text = std::fs::read_to_string(file).expect("a source file reads");
            edges.insert(module.clone(), imports(module, &text, &files));
        }
        Imports { files, edges }
    }

    /// The circles: each a set of two or more modules that import each
    /// other round (the strongly connected components), in order.
    pub(crate) fn circles(&self) -> Vec<Vec<Module>> {
        let mut tarjan = Tarjan {
            edges: &self.edges,
            next: 0,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            found: Vec::new(),
        };
        for module in self.edges.keys() {
            if !tarjan.index.contains_key(module) {
                tarjan.visit(module);
            }
        }
        tarjan.found
    }

    /// A circle in words: each module's file, and the lines by which it
    /// imports the others of the circle.
    pub(crate) fn describe(&self, circle: &[Module]) -> String {
        let mut out = String::new();
        for from in circle {
            let file = self.files[from].display();
            for (to, (line, text)) in &self.edges[from] {
                if circle.contains(to) {
                    out.push_str(&format!("  {file}:{line} imports {}: {text}\n", name(to)));
                }
            }
        }
        out
    }
}

/// A module's path as Rust writes it.
pub(crate) fn name(module: &Module) -> String {
    match module.is_empty() {
        true => "crate".to_owned(),
        false => module.join("::"),
    }
}

/// Tarjan's strongly connected components over the import edges.
struct Tarjan<'a> {
    edges: &'a BTreeMap<Module, BTreeMap<Module, (usize, String)>>,
    next: usize,
    index: BTreeMap<Module, usize>,
    low: BTreeMap<Module, usize>,
    stack: Vec<Module>,
    on_stack: BTreeSet<Module>,
    found: Vec<Vec<Module>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, module: &Module) {
        self.index.insert(module.clone(), self.next);
        self.low.insert(module.clone(), self.next);
        self.next += 1;
        self.stack.push(module.clone());
        self.on_stack.insert(module.clone());
        let targets: Vec<Module> = self
            .edges
            .get(module)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        for target in targets {
            if !self.index.contains_key(&target) {
                self.visit(&target);
                let low = self.low[module].min(self.low[&target]);
                self.low.insert(module.clone(), low);
            } else if self.on_stack.contains(&target) {
                let low = self.low[module].min(self.index[&target]);
                self.low.insert(module.clone(), low);
            }
        }
        if self.low[module] == self.index[module] {
            let mut component = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack.remove(&top);
                let done = &top == module;
                component.push(top);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                self.found.push(component);
            }
        }
    }
}

/// The `.rs` files under `dir`, recursively, in order.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the directory reads") {
        let path = entry.expect("the directory reads").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The module `file` (under `src`) defines.
fn module_of(src: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(src).expect("the file is under src");
    let mut parts: Module = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.last().map(String::as_str) {
        Some("mod") => {
            parts.pop();
        }
        Some("lib" | "main") if parts.len() == 1 => parts.clear(),
        _ => {}
    }
    parts
}

/// The modules that `text`, the file of `module`, imports (of `files`),
/// each with the first line that names it.
fn imports(
    module: &Module,
    text: &str,
    files: &BTreeMap<Module, PathBuf>,
) -> BTreeMap<Module, (usize, String)> {
    let code = without_tests(&code_only(text));
    let mut out = BTreeMap::new();
    for (at, path) in paths(&code) {
        for target in resolve(module, &path, files) {
            let apart = !target.starts_with(module) && !module.starts_with(&target);
            if apart && !out.contains_key(&target) {
                let line = code[..at].matches('\n').count() + 1;
                let said = text.lines().nth(line - 1).unwrap_or("").trim().to_owned();
                out.insert(target, (line, said));
            }
        }
    }
    out
}

/// `text` with its comments, strings and character literals blanked
/// (each character a space, newlines kept, so that offsets keep their
/// lines).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    blank(&mut out, '/');
                    blank(&mut out, '*');
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    blank(&mut out, '*');
                    blank(&mut out, '/');
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && !chars
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"..", r#".."#, ...
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let closing: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let start = i;
            j += 1;
            while j < chars.len() {
                if chars[j] == '"'
                    && chars[j..].iter().take(closing.len()).collect::<String>() == closing
                {
                    j += closing.len();
                    break;
                }
                j += 1;
            }
            for &k in &chars[start..j.min(chars.len())] {
                blank(&mut out, k);
            }
            i = j;
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            if i < chars.len() {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'), else a lifetime.
            let end = match next {
                Some('\\') => chars[i + 2..]
                    .iter()
                    .position(|&k| k == '\'')
                    .map(|p| i + 2 + p),
                Some(_) if chars.get(i + 2) == Some(&'\'') => Some(i + 2),
                _ => None,
            };
            match end {
                Some(end) => {
                    for &k in &chars[i..=end] {
                        blank(&mut out, k);
                    }
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `code` without its `#[cfg(test)]` modules (blanked, lines kept).
fn without_tests(code: &str) -> String {
    let mut out = code.to_owned();
    let mut from = 0;
    while let Some(found) = out[from..].find("#[cfg(test)]") {
        let start = from + found;
        let rest = &out[start + "#[cfg(test)]".len()..];
        let trimmed = rest.trim_start();
        let is_module = trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ");
        let open = rest.find('{');
        let semi = rest.find(';');
        match (is_module, open) {
            (true, Some(open)) if semi.is_none_or(|s| s > open) => {
                let body = start + "#[cfg(test)]".len() + open;
                let mut depth = 0;
                let mut end = out.len();
                for (k, ch) in out[body..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = body + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let blanked: String = out[start..end]
                    .chars()
                    .map(|ch| if ch == '\n' { '\n' } else { ' ' })
                    .collect();
                out.replace_range(start..end, &blanked);
                from = end;
            }
            _ => from = start + 1,
        }
    }
    out
}

/// Each path in `code` that starts at `crate`, `$crate`, `self` or
/// `super`, as its segments (a `{..}` group as one segment, kept whole),
/// with its offset.
fn paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let bytes = code.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(word(bytes[i - 1]) || bytes[i - 1] == b':');
        let head = ["crate::", "self::", "super::"]
            .into_iter()
            .find(|h| code[i..].starts_with(h));
        let (true, Some(head)) = (starts_word, head) else {
            i += 1;
            continue;
        };
        let at = i;
        let mut segments = vec![head.trim_end_matches(':').to_owned()];
        i += head.len();
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < bytes.len() && bytes[i] == b'{' {
                let mut depth = 0;
                let start = i;
                while i < bytes.len() {
                    match bytes[i] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                segments.push(code[start..i].to_owned());
                break;
            }
            let start = i;
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
            if start == i {
                break;
            }
            segments.push(code[start..i].to_owned());
            if code[i..].starts_with("::") {
                i += 2;
            } else {
                break;
            }
        }
        out.push((at, segments));
    }
    out
}

/// The modules of `files` that `path`, written in `module`, names: the
/// longest module it starts with, and for a `{..}` group at its end, the
/// longest each of the group's paths starts with.
fn resolve(module: &Module, path: &[String], files: &BTreeMap<Module, PathBuf>) -> Vec<Module> {
    let mut base: Module = Vec::new();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("self" | "super") => {
            base = module.clone();
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "self" => {}
                    "super" => {
                        base.pop();
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return Vec::new(),
    }
    let mut full = base;
    let mut group = None;
    for segment in rest {
        match segment.starts_with('{') {
            true => group = Some(segment.clone()),
            false => full.push(segment.clone()),
        }
    }
    let longest = |candidate: &Module| -> Module {
        (0..=candidate.len())
            .rev()
            .map(|k| candidate[..k].to_vec())
            .find(|m| files.contains_key(m))
            .unwrap_or_default()
    };
    let mut out = vec![longest(&full)];
    if let Some(group) = group {
        let inner = &group[1..group.len() - 1];
        for item in split_top(inner) {
            let segments: Vec<String> = item
                .split("::")
                .map(|s| s.split_whitespace().next().unwrap_or("").to_owned())
                .filter(|s| !s.is_empty() && !s.starts_with('{'))
                .collect();
            if segments.first().is_some_and(|s| s != "self") {
                let mut candidate = full.clone();
                candidate.extend(segments);
                out.push(longest(&candidate));
            }
        }
    }
    out
}

/// `text` split at its commas outside braces.
fn split_top(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, ch) in text.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate written under a temporary folder: `(path, text)` each.
    fn crate_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Imports) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let imports = Imports::of(dir.path());
        (dir, imports)
    }

    fn names(circles: Vec<Vec<Module>>) -> Vec<Vec<String>> {
        circles
            .iter()
            .map(|c| c.iter().map(name).collect())
            .collect()
    }

    #[test]
    fn a_circle_through_three_files_is_found_with_its_lines() {
        let (_dir, imports) = crate_of(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\npub use a::A;\n"),
            ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
            ("b.rs", "pub struct B;\nfn f() { super::c::g(); }\n"),
            ("c/mod.rs", "use crate::{a::A, d};\nmod d;\npub fn g() {}\n"),
            ("c/d.rs", "use super::super::b;\n"),
        ]);
        assert_eq!(names(imports.circles()), [["a", "b", "c"]]);
        let words = imports.describe(&imports.circles()[0]);
        assert!(
            words.contains("a.rs:1 imports b: use crate::b::B;"),
            "{words}"
        );
        assert!(
            words.contains("b.rs:2 imports c: fn f() { super::c::g(); }"),
            "{words}"
        );
    }

    #[test]
    fn parents_and_children_comments_strings_and_tests_make_no_circle() {
        let (_dir, imports) = crate_of(&[
            ("lib.rs", "mod a;\nmod b;\npub use a::inner::X;\n"),
            ("a/mod.rs", "pub mod inner;\npub(crate) fn helper() {}\n"),
            (
                "a/inner.rs",
                "pub struct X;\nfn f() { super::helper() }\n// crate::b::Y\n",
            ),
            (
                "b.rs",
                "use crate::a::inner::X;\nconst S: &str = \"crate::a\";\nconst R: &str = r#\"super::a\"#;\nfn c() -> char { '\"' }\n",
            ),
            (
                "c.rs",
                "pub struct Y;\n#[cfg(test)]\nmod tests {\n    use crate::b::*;\n    fn t() { let _ = crate::b::c(); }\n}\n",
            ),
        ]);
        assert!(
            imports.circles().is_empty(),
            "{:?}",
            names(imports.circles())
        );
        assert_eq!(
            imports.edges[&vec!["b".to_owned()]].len(),
            1,
            "b imports a::inner"
        );
        assert!(imports.edges[&vec!["c".to_owned()]].is_empty());
    }

    #[test]
    fn a_macro_path_and_a_group_count() {
        let (_dir, imports) = crate_of(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "macro_rules! m { () => { $crate::b::B } }\n"),
            ("b.rs", "use crate::{\n    a,\n    c::{self, D},\n};\n"),
            ("c.rs", ""),
        ]);
        assert_eq!(names(imports.circles()), [["a", "b"]]);
        let b = &imports.edges[&vec!["b".to_owned()]];
        assert!(b.contains_key(&vec!["c".to_owned()]));
    }
}

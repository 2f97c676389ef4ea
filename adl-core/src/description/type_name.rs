//! Type names as a user writes them: module paths stripped, and ndarray's
//! `ArrayBase<OwnedRepr<f32>, Dim<[usize; 2]>, f32>` written `Array2<f32>`.

/// The short form of `std::any::type_name` output: every path segment
/// without its module path, ndarray arrays by their aliases.
pub(crate) fn short_type_name(name: &str) -> String {
    aliases(&strip_paths(name))
}

/// Strip module paths from every path segment of a type name.
fn strip_paths(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word.rsplit("::").next().unwrap_or(word));
        word.clear();
    };
    for c in name.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Rewrite every `ArrayBase<..>` and `Dim<..>` of a path-stripped name by
/// ndarray's aliases, innermost first; what does not match stays as is.
fn aliases(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = find_generic(rest, &["ArrayBase<", "Dim<"]) {
        out.push_str(&rest[..at.start]);
        let open = at.start + at.head.len();
        let Some(close) = matching(rest, open) else {
            out.push_str(&rest[at.start..]);
            return out;
        };
        let args: Vec<String> = split_top(&rest[open..close])
            .into_iter()
            .map(|a| aliases(a.trim()))
            .collect();
        let rewritten = match at.head {
            "ArrayBase<" => array_alias(&args),
            _ => dim_alias(&args),
        };
        match rewritten {
            Some(alias) => out.push_str(&alias),
            None => {
                out.push_str(&at.head[..at.head.len() - 1]);
                out.push('<');
                out.push_str(&args.join(", "));
                out.push('>');
            }
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Where a generic name starts (at a word boundary).
struct Found {
    start: usize,
    head: &'static str,
}

fn find_generic(text: &str, heads: &[&'static str]) -> Option<Found> {
    heads
        .iter()
        .filter_map(|&head| {
            let mut from = 0;
            while let Some(i) = text[from..].find(head) {
                let start = from + i;
                let boundary = text[..start]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                if boundary {
                    return Some(Found { start, head });
                }
                from = start + head.len();
            }
            None
        })
        .min_by_key(|f| f.start)
}

/// The index of the `>` that closes the `<` just before `open`.
fn matching(text: &str, open: usize) -> Option<usize> {
    let mut depth = 1usize;
    let mut previous = ' ';
    for (i, c) in text[open..].char_indices() {
        let arrow = previous == '-';
        previous = c;
        match c {
            // The `>` of a `->` closes nothing.
            '>' if arrow => {}
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Split at the commas that are not inside brackets.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0usize, 0);
    let mut previous = ' ';
    for (i, c) in text.char_indices() {
        let arrow = previous == '-';
        previous = c;
        match c {
            '>' if arrow => {}
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[from..]);
    parts
}

/// `[usize; 2]` -> `2`, `IxDynImpl` -> `D`.
fn rank(dim: &str) -> Option<String> {
    let dim = dim.trim();
    if dim == "IxDynImpl" {
        return Some("D".to_owned());
    }
    let n = dim.strip_prefix("[usize;")?.strip_suffix(']')?.trim();
    n.parse::<usize>().ok().map(|n| n.to_string())
}

/// `Dim<[usize; 2]>` -> `Ix2`.
fn dim_alias(args: &[String]) -> Option<String> {
    match args {
        [dim] => rank(dim).map(|r| {
            if r == "D" {
                "IxDyn".to_owned()
            } else {
                format!("Ix{r}")
            }
        }),
        _ => None,
    }
}

/// `ArrayBase<OwnedRepr<f32>, Ix2, f32>` -> `Array2<f32>` (and the views,
/// shared and copy-on-write arrays).
fn array_alias(args: &[String]) -> Option<String> {
    let (repr, dim) = (args.first()?, args.get(1)?);
    let rank = match dim.as_str() {
        "IxDyn" => "D".to_owned(),
        d => d.strip_prefix("Ix")?.to_owned(),
    };
    let inner = |prefix: &str| {
        repr.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix('>'))
            .map(str::trim)
    };
    let (alias, element) = if let Some(e) = inner("OwnedRepr<") {
        ("Array", e)
    } else if let Some(e) = inner("OwnedArcRepr<") {
        ("ArcArray", e)
    } else if let Some(e) = inner("ViewRepr<&mut ") {
        ("ArrayViewMut", e)
    } else if let Some(e) = inner("ViewRepr<&") {
        ("ArrayView", e)
    } else if let Some(e) = inner("CowRepr<") {
        ("CowArray", e.split_once(',').map_or(e, |(_, e)| e.trim()))
    } else {
        return None;
    };
    Some(format!("{alias}{rank}<{element}>"))
}

#[cfg(test)]
mod tests {
    use super::short_type_name;

    #[test]
    fn paths_are_stripped() {
        assert_eq!(short_type_name("alloc::vec::Vec<my::Frame>"), "Vec<Frame>");
        assert_eq!(
            short_type_name("(i64, core::option::Option<f32>)"),
            "(i64, Option<f32>)"
        );
    }

    #[test]
    fn arrays_are_written_as_their_aliases() {
        let cases = [
            (
                "ndarray::ArrayBase<ndarray::data_repr::OwnedRepr<f32>, ndarray::dimension::dim::Dim<[usize; 2]>, f32>",
                "Array2<f32>",
            ),
            (
                "alloc::vec::Vec<ndarray::ArrayBase<ndarray::data_repr::OwnedRepr<u8>, ndarray::dimension::dim::Dim<[usize; 3]>, u8>>",
                "Vec<Array3<u8>>",
            ),
            (
                "ndarray::ArrayBase<ndarray::ViewRepr<&f64>, ndarray::dimension::dim::Dim<[usize; 1]>, f64>",
                "ArrayView1<f64>",
            ),
            (
                "ndarray::ArrayBase<ndarray::ViewRepr<&mut i64>, ndarray::dimension::dim::Dim<ndarray::dimension::dynindeximpl::IxDynImpl>, i64>",
                "ArrayViewMutD<i64>",
            ),
            (
                "ndarray::ArrayBase<ndarray::data_repr::OwnedArcRepr<f32>, ndarray::dimension::dim::Dim<[usize; 4]>, f32>",
                "ArcArray4<f32>",
            ),
            (
                "(ndarray::ArrayBase<ndarray::data_repr::OwnedRepr<u8>, ndarray::dimension::dim::Dim<[usize; 4]>, u8>, ndarray::ArrayBase<ndarray::data_repr::OwnedRepr<bool>, ndarray::dimension::dim::Dim<[usize; 1]>, bool>)",
                "(Array4<u8>, Array1<bool>)",
            ),
            ("ndarray::dimension::dim::Dim<[usize; 2]>", "Ix2"),
            (
                "(adl_core::collate::rows::Rows<u8, ndarray::dimension::dim::Dim<[usize; 4]>>, ndarray::ArrayBase<ndarray::data_repr::OwnedRepr<bool>, ndarray::dimension::dim::Dim<[usize; 1]>, bool>)",
                "(Rows<u8, Ix4>, Array1<bool>)",
            ),
            (
                "ndarray::ArrayBase<ndarray::data_repr::OwnedRepr<fn(u8) -> u8>, ndarray::dimension::dim::Dim<[usize; 1]>, fn(u8) -> u8>",
                "Array1<fn(u8) -> u8>",
            ),
            ("my::ArrayBaseLike<u8>", "ArrayBaseLike<u8>"),
            ("ndarray::ArrayBase<Weird, u8>", "ArrayBase<Weird, u8>"),
            ("ndarray::ArrayBase<unclosed", "ArrayBase<unclosed"),
        ];
        for (name, short) in cases {
            assert_eq!(short_type_name(name), short, "{name}");
        }
    }
}

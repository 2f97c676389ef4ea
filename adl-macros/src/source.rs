//! The file a `pipeline!` call is written in, indexed once
//! ([`adl_lang::pipeline::SourceIndex`]): what its bare names are, so
//! that a plain function or a local variable written as a node is an
//! error in the library's words.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use adl_lang::pipeline::SourceIndex;
use proc_macro::{Span, TokenStream, TokenTree};

/// The last file indexed, with its text: consecutive calls mostly come
/// from one file, and an edited file (an IDE's macro server lives long)
/// is indexed again.
type Cached = (PathBuf, String, Arc<SourceIndex>);

static LAST: Mutex<Option<Cached>> = Mutex::new(None);

/// The index of the file the current macro call is written in; `None`
/// where the call's tokens are not all written at the call (a
/// `pipeline!` written by another macro), where the compiler gives no
/// file on disk, or where it cannot be read or parsed (then rustc's own
/// errors stand).
pub(crate) fn index_of_call_site(input: &TokenStream) -> Option<Arc<SourceIndex>> {
    let call = Span::call_site();
    if !written_within(input.clone(), &call) {
        return None;
    }
    let path = call.local_file()?;
    // Generated files are `include!`d into scopes they do not show.
    if let Some(out_dir) = std::env::var_os("OUT_DIR")
        && path.starts_with(out_dir)
    {
        return None;
    }
    if std::fs::metadata(&path).ok()?.len() > SourceIndex::LARGEST_FILE as u64 {
        return None;
    }
    let source = std::fs::read_to_string(&path).ok()?;
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((p, text, index)) = last.as_ref()
        && *p == path
        && *text == source
    {
        return Some(Arc::clone(index));
    }
    let index = Arc::new(SourceIndex::parse(&source)?);
    *last = Some((path, source, Arc::clone(&index)));
    Some(index)
}

/// Whether every token of `tokens` is written inside `call`'s span, in
/// its file: not so for tokens a `macro_rules!` substitutes into a call
/// in its body, or that a wrapper macro forwards.
fn written_within(tokens: TokenStream, call: &Span) -> bool {
    let file = call.file();
    let (from, to) = (position(&call.start()), position(&call.end()));
    tokens.into_iter().all(|tree| {
        let span = tree.span();
        let inside =
            span.file() == file && position(&span.start()) >= from && position(&span.end()) <= to;
        inside
            && match tree {
                TokenTree::Group(group) => written_within(group.stream(), call),
                _ => true,
            }
    })
}

/// A span's place as (line, column).
fn position(span: &Span) -> (usize, usize) {
    (span.line(), span.column())
}

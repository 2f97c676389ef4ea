//! The file a `pipeline!` call is written in, indexed once
//! ([`adl_lang::pipeline::SourceIndex`]): what its bare names are, so
//! that a plain function or a local variable written as a node is an
//! error in the library's words.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use adl_lang::pipeline::SourceIndex;

/// The last file indexed: consecutive calls mostly come from one file.
/// Keyed by its path, length and modification time, so that an edited
/// file (an IDE's macro server lives long) is indexed again.
type Cached = (PathBuf, u64, Option<SystemTime>, Arc<SourceIndex>);

static LAST: Mutex<Option<Cached>> = Mutex::new(None);

/// The index of the file the current macro call is written in; `None`
/// where the compiler gives no file on disk or it cannot be read or
/// parsed (then rustc's own errors stand).
pub(crate) fn index_of_call_site() -> Option<Arc<SourceIndex>> {
    let path = proc_macro::Span::call_site().local_file()?;
    // Generated files are `include!`d into scopes they do not show.
    if let Some(out_dir) = std::env::var_os("OUT_DIR")
        && path.starts_with(out_dir)
    {
        return None;
    }
    let meta = std::fs::metadata(&path).ok()?;
    let (len, modified) = (meta.len(), meta.modified().ok());
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((p, l, m, index)) = last.as_ref()
        && *p == path
        && *l == len
        && *m == modified
    {
        return Some(Arc::clone(index));
    }
    let source = std::fs::read_to_string(&path).ok()?;
    let index = Arc::new(SourceIndex::parse(&source)?);
    *last = Some((path, len, modified, Arc::clone(&index)));
    Some(index)
}

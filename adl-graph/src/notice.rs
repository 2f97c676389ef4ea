//! One-line notices on standard error, each printed once per process: the
//! device chosen for batch kernels, or why they run on the CPU.

use std::collections::HashSet;
use std::sync::Mutex;

static SHOWN: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Print `line` (prefixed `adl: `) unless it was printed before, or
/// `ADL_QUIET` is set.
pub(crate) fn once(line: impl Into<String>) {
    let line = line.into();
    let mut shown = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
    if shown.get_or_insert_with(HashSet::new).insert(line.clone())
        && std::env::var_os("ADL_QUIET").is_none()
    {
        eprintln!("adl: {line}");
    }
}

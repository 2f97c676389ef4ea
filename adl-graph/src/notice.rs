//! One-line notices on standard error, each printed at most once per
//! process: where batch kernels run (said by the first loader that has
//! kernel nodes, whatever later loaders find), or a device's limit.
//! [`QUIET_VARIABLE`] hides them all.

use std::collections::HashSet;
use std::sync::Mutex;

/// The environment variable that hides adl's notices on standard error:
/// `ADL_QUIET` set, to any value. The notices say where batch kernels run
/// when nobody chose (`ADL_OPENCL_DEVICE` unset) or when the device asked
/// for cannot run them; each is one line, printed once per process.
pub const QUIET_VARIABLE: &str = "ADL_QUIET";

/// What a notice is about: a process prints one notice per key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    /// Where batch kernels run: said once, by the first loader with kernel
    /// nodes (later loaders' plans say theirs).
    KernelDevice,
    /// Reads ahead that a dataset's `get` dropped unused: said once.
    UnusedReads,
    /// A notice of its own: each distinct line once.
    #[cfg_attr(
        not(feature = "opencl"),
        allow(dead_code, reason = "only an OpenCL device has notices of its own")
    )]
    Line(String),
}

/// The keys a process has printed.
#[derive(Debug, Default)]
pub(crate) struct Shown {
    keys: HashSet<Key>,
}

impl Shown {
    /// Whether a notice under `key` is new (and from now on, shown).
    pub(crate) fn admit(&mut self, key: Key) -> bool {
        self.keys.insert(key)
    }
}

static SHOWN: Mutex<Option<Shown>> = Mutex::new(None);

/// Print `line` (prefixed `adl: `) unless a notice under `key` was printed
/// before in this process, or [`QUIET_VARIABLE`] is set.
pub(crate) fn once_for(key: Key, line: &str) {
    let mut shown = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
    if shown.get_or_insert_with(Shown::default).admit(key)
        && std::env::var_os(QUIET_VARIABLE).is_none()
    {
        eprintln!("adl: {line}");
    }
}

/// Print `line` (prefixed `adl: `) unless it was printed before, or
/// [`QUIET_VARIABLE`] is set.
#[cfg(feature = "opencl")]
pub(crate) fn once(line: impl Into<String>) {
    let line = line.into();
    once_for(Key::Line(line.clone()), &line);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_admitted_once_and_lines_each_once() {
        let mut shown = Shown::default();
        assert!(shown.admit(Key::KernelDevice));
        // Another loader's device notice, whatever it says: not again.
        assert!(!shown.admit(Key::KernelDevice));
        assert!(shown.admit(Key::Line("a".into())));
        assert!(shown.admit(Key::Line("b".into())));
        assert!(!shown.admit(Key::Line("a".into())));
    }
}

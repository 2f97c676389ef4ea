//! [`States`]: what a loader handed to Python keeps of its states: where
//! the epoch iterated last stands (`state_dict`), and a state given by
//! `load_state_dict` for the next epoch of its number. Shared by
//! `adl.Loader` and `RustLoader`; and a state as a dict (`to_dict`,
//! `from_dict`), its Python form.
//!
//! A state loaded is also where the loader stands until an epoch moves
//! on: `state_dict()` right after `load_state_dict(s)` is `s` (a
//! checkpoint taken then keeps the position), and `iter(loader)` resumes
//! its epoch.

use std::sync::{Arc, Mutex, MutexGuard};

use adl_graph::loader::LoaderState;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// `mutex`'s value (a panic elsewhere while it was held leaves a value
/// still good to use).
pub(crate) fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Where the epoch iterated last stands: written by the epoch as it
/// goes, read by its loader.
#[derive(Debug, Clone, Default)]
pub(crate) struct Last(Arc<Mutex<Option<LoaderState>>>);

impl Last {
    /// The epoch stands at `state` now.
    pub(crate) fn set(&self, state: LoaderState) {
        *locked(&self.0) = Some(state);
    }
}

/// A loader's states (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct States {
    /// Where the loader stands: the handle the epoch started last writes
    /// to, or the state loaded since. Replaced (not written) by a load,
    /// so that an epoch started before it no longer moves it.
    last: Mutex<Last>,
    pending: Mutex<Option<LoaderState>>,
}

impl States {
    /// The state given for epoch `epoch`, if the one given is of it. An
    /// epoch starting uses it up either way: once another epoch has
    /// started, where the loader stands is that epoch's place, and
    /// `iter(loader)` goes on from there, not back to the state loaded.
    pub(crate) fn take_for(&self, epoch: u64) -> Option<LoaderState> {
        locked(&self.pending)
            .take()
            .filter(|state| state.epoch == epoch)
    }

    /// An epoch started at `state`: the handle it writes where it stands
    /// to.
    pub(crate) fn started(&self, state: LoaderState) -> Last {
        let last = locked(&self.last).clone();
        last.set(state);
        last
    }

    /// Where the loader stands (the epoch iterated last, or the state
    /// loaded since), or `before` (the start of epoch 0) before any.
    pub(crate) fn last_or(&self, before: impl FnOnce() -> LoaderState) -> LoaderState {
        let last = locked(&self.last).clone();
        let state = locked(&last.0).clone();
        state.unwrap_or_else(before)
    }

    /// `state` (a `state_dict`), for the next epoch of its number; until
    /// an epoch starts, it is where the loader stands.
    pub(crate) fn load(&self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let state = from_dict(state)?;
        *locked(&self.last) = Last(Arc::new(Mutex::new(Some(state.clone()))));
        *locked(&self.pending) = Some(state);
        Ok(())
    }

    /// The epoch `iter(loader)` goes to: that of the state loaded and not
    /// yet resumed, else the one after the epoch started last, else 0;
    /// and whether it resumes a loaded state.
    pub(crate) fn next_epoch(&self) -> (u64, bool) {
        if let Some(pending) = locked(&self.pending).as_ref() {
            return (pending.epoch, true);
        }
        let last = locked(&self.last).clone();
        let state = locked(&last.0).clone();
        (state.map_or(0, |s| s.epoch.saturating_add(1)), false)
    }
}

/// The keys of a loader state as a dict.
const FIELDS: [&str; 7] = [
    "version",
    "epoch",
    "cursor",
    "sampler",
    "seed",
    "pipeline",
    "dataset_len",
];

/// `state` as the dict `state_dict()` gives.
pub(crate) fn to_dict<'py>(py: Python<'py>, state: &LoaderState) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("version", state.version)?;
    out.set_item("epoch", state.epoch)?;
    out.set_item("cursor", state.cursor)?;
    out.set_item("sampler", &state.sampler)?;
    out.set_item("seed", state.seed)?;
    out.set_item("pipeline", state.pipeline)?;
    out.set_item("dataset_len", state.dataset_len)?;
    Ok(out)
}

/// The state in `state`, a dict `to_dict` made; a missing key names the
/// keys a state has.
pub(crate) fn from_dict(state: &Bound<'_, PyAny>) -> PyResult<LoaderState> {
    let field = |name: &str| -> PyResult<Bound<'_, PyAny>> {
        state.get_item(name).map_err(|_| {
            PyKeyError::new_err(format!(
                "a loader state has {}; this one has no `{name}`",
                PyList::new(state.py(), FIELDS)
                    .and_then(|l| l.str())
                    .map_or_else(|_| FIELDS.join(", "), |s| s.to_string())
            ))
        })
    };
    Ok(LoaderState {
        version: field("version")?.extract()?,
        epoch: field("epoch")?.extract()?,
        cursor: field("cursor")?.extract()?,
        sampler: field("sampler")?.extract()?,
        seed: field("seed")?.extract()?,
        pipeline: field("pipeline")?.extract()?,
        dataset_len: field("dataset_len")?.extract()?,
    })
}

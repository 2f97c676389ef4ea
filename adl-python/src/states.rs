//! [`States`]: what a loader handed to Python keeps of its states: where
//! the epoch iterated last stands (`state_dict`), and a state given by
//! `load_state_dict` for the next epoch of its number. Shared by
//! `adl.Loader` and `RustLoader`.

use std::sync::{Arc, Mutex, MutexGuard};

use adl_graph::loader::LoaderState;
use pyo3::prelude::*;

use crate::loader::from_dict;

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
    last: Last,
    pending: Mutex<Option<LoaderState>>,
}

impl States {
    /// The state given for epoch `epoch`, if the one given is of it (it
    /// is used once).
    pub(crate) fn take_for(&self, epoch: u64) -> Option<LoaderState> {
        let mut pending = locked(&self.pending);
        match pending.as_ref() {
            Some(state) if state.epoch == epoch => pending.take(),
            _ => None,
        }
    }

    /// An epoch started at `state`: the handle it writes where it stands
    /// to.
    pub(crate) fn started(&self, state: LoaderState) -> Last {
        self.last.set(state);
        self.last.clone()
    }

    /// Where the epoch iterated last stands, or `before` (the start of
    /// epoch 0) before any.
    pub(crate) fn last_or(&self, before: impl FnOnce() -> LoaderState) -> LoaderState {
        locked(&self.last.0).clone().unwrap_or_else(before)
    }

    /// `state` (a `state_dict`), for the next epoch of its number.
    pub(crate) fn load(&self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        *locked(&self.pending) = Some(from_dict(state)?);
        Ok(())
    }
}

//! adl's errors as Python exceptions: the builtin class the reference
//! raises for the same mistake, adl's message.

use adl_core::Error;
use pyo3::exceptions::{PyIndexError, PyKeyError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// `error` as the Python exception a user of abstract-dataloader expects:
/// a sensor that is not there is a `KeyError`; an empty sensor, or a
/// margin that trims past a sensor's samples, an `IndexError` (where the
/// reference indexes past an array's end); a file that cannot be read or
/// is not what it should be an `OSError`; a bad parameter or bad
/// timestamps a `ValueError`; anything else a `RuntimeError`. The message
/// is adl's, which names the sensor and the value.
pub fn to_python(error: Error) -> PyErr {
    let message = format!("{error:#}");
    match &error {
        Error::UnknownSensor { .. } => PyKeyError::new_err(message),
        Error::EmptySensor { .. } | Error::IndexOutOfRange { .. } => PyIndexError::new_err(message),
        // The margin checks (adl-core's `sync::margin`) name the margin.
        Error::InvalidParameter { parameter, .. } if parameter.starts_with("margin") => {
            PyIndexError::new_err(message)
        }
        // A file or object that cannot be read or is not what it should
        // be (as Pillow raises OSError for a truncated image).
        Error::Source { .. } | Error::Read { .. } | Error::Load { .. } => {
            PyOSError::new_err(message)
        }
        Error::InvalidParameter { .. }
        | Error::NonFiniteTimestamp { .. }
        | Error::UnsortedTimestamps { .. }
        | Error::ConstantTimestamps { .. } => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// `error` with `note` added (`BaseException.add_note`, Python 3.11+; on
/// older Pythons the same `__notes__` list, which tracebacks there do not
/// show but [`notes`] reads): where adl knows more of where an exception
/// happened than the code that raised it (the trace, the sensor), it says
/// so without changing the exception's type, so that code catching it as
/// before still does.
pub(crate) fn add_note(py: Python<'_>, error: &PyErr, note: &str) {
    let value = error.value(py);
    if value.call_method1("add_note", (note,)).is_ok() {
        return;
    }
    let added = match value.getattr("__notes__") {
        Ok(notes) => notes.call_method1("append", (note,)).map(drop),
        Err(_) => PyList::new(py, [note]).and_then(|list| value.setattr("__notes__", list)),
    };
    // An exception that takes no attribute keeps its message alone.
    drop(added);
}

/// The notes of `error` (its `__notes__`), in order; none where it has
/// none.
pub(crate) fn notes(py: Python<'_>, error: &PyErr) -> Vec<String> {
    let Ok(notes) = error.value(py).getattr("__notes__") else {
        return Vec::new();
    };
    let Ok(iter) = notes.try_iter() else {
        return Vec::new();
    };
    iter.filter_map(|note| note.ok()?.str().ok().map(|s| s.to_string()))
        .collect()
}

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
    // A trace that could not be opened raises what its cause raises, with
    // the whole message (the trace named first).
    let mut kind = &error;
    while let Error::Trace { cause, .. } = kind {
        kind = cause;
    }
    match kind {
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

/// A Python exception raised in a call adl's threads made, its text
/// taken while the call still held the GIL.
///
/// An adl [`Error`] is formatted where it lands, on any thread: a worker
/// records a skipped sample's reason, a log line prints a chain. A bare
/// `PyErr` formats itself by taking the GIL, which a worker thread must
/// not do once the interpreter has begun to exit (see `crate::exit`):
/// this one formats from its text and never touches Python. The
/// exception itself is kept for `adl.LoaderError.__cause__`.
pub(crate) struct PythonError {
    text: String,
    error: PyErr,
}

impl PythonError {
    /// `error`, its text (`Type: message`) taken now, with the GIL.
    pub(crate) fn new(py: Python<'_>, error: PyErr) -> Self {
        let text = match error.value(py).str() {
            Ok(message) => format!(
                "{}: {message}",
                error
                    .get_type(py)
                    .qualname()
                    .map_or_else(|_| "Exception".into(), |name| name.to_string())
            ),
            Err(_) => "an exception whose message cannot be read".into(),
        };
        PythonError { text, error }
    }

    /// The exception.
    pub(crate) fn error(&self) -> &PyErr {
        &self.error
    }
}

impl std::fmt::Display for PythonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::fmt::Debug for PythonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("PythonError").field(&self.text).finish()
    }
}

impl std::error::Error for PythonError {}

pyo3::create_exception!(
    adl,
    LoaderError,
    PyRuntimeError,
    "A sample or batch the loader could not make: the message names the sample (its index) and the step; the Python exception that caused it, if one did, is its `__cause__`."
);

/// An error unless this is the process that made the loader: a process
/// forked from it has none of its threads (they stay in the parent), and
/// a batch claimed by one of them would never come.
pub(crate) fn same_process(maker: u32) -> PyResult<()> {
    let this = std::process::id();
    if this == maker {
        return Ok(());
    }
    Err(PyRuntimeError::new_err(format!(
        "this adl.Loader was made in process {maker}, and this is process {this}, forked from it: \
         its worker threads stayed in the parent. Make the loader in the process that iterates it \
         (after the fork: in a DataLoader's worker_init_fn, or in the child)"
    )))
}

/// `error` as a [`LoaderError`], the Python exception in its causes (a
/// dataset's or a pipeline's) as its `__cause__`, and that exception's
/// notes (where adl's `Trace` said which trace and sensor raised it) in
/// the message.
pub(crate) fn loader_error(py: Python<'_>, error: &adl_core::Error) -> PyErr {
    let mut message = format!("{error:#}");
    let mut original = None;
    let mut cause = error.cause();
    while let Some(inner) = cause {
        if let Some(python) = inner.downcast_ref::<crate::errors::PythonError>() {
            original = Some(python.error().clone_ref(py));
            break;
        }
        if let Some(python) = inner.downcast_ref::<PyErr>() {
            original = Some(python.clone_ref(py));
            break;
        }
        cause = inner
            .downcast_ref::<adl_core::Error>()
            .and_then(adl_core::Error::cause);
    }
    if let Some(original) = &original {
        for note in crate::errors::notes(py, original) {
            message.push_str("; ");
            message.push_str(note.strip_prefix("adl: ").unwrap_or(&note));
        }
    }
    let raised = LoaderError::new_err(message);
    if let Some(original) = original {
        raised.set_cause(py, Some(original));
    }
    raised
}

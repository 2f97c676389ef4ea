//! adl's errors as Python exceptions: the builtin class the reference
//! raises for the same mistake, adl's message.

use adl_core::Error;
use pyo3::PyErr;
use pyo3::exceptions::{PyIndexError, PyKeyError, PyOSError, PyRuntimeError, PyValueError};

/// `error` as the Python exception a user of abstract-dataloader expects:
/// a sensor that is not there is a `KeyError`; an empty sensor, or a
/// margin that trims past a sensor's samples, an `IndexError` (where the
/// reference indexes past an array's end); a file that cannot be read or
/// is not what it should be an `OSError`; a bad parameter or bad
/// timestamps a `ValueError`; anything else a `RuntimeError`. The message
/// is adl's, which names the sensor and the value.
pub fn to_python(error: Error) -> PyErr {
    let message = error.to_string();
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

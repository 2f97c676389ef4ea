//! What the file tests share.

use adl::Error;

/// The message of `result`'s error, which must be an `Error::Source`
/// naming `file`.
pub(crate) fn source_error<T: std::fmt::Debug>(result: adl::Result<T>, file: &str) -> String {
    let err = result.unwrap_err();
    assert!(
        matches!(&err, Error::Source { path, .. } if path.ends_with(file)),
        "not a source error naming {file}: {err:?}"
    );
    // As a person reads it: with its cause (an I/O error's words).
    format!("{err:#}")
}

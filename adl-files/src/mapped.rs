//! A file mapped into memory, with the errors of opening one in words.

use std::fs::File;
use std::path::Path;

use adl_core::{Error, Result};
use memmap2::Mmap;

/// Map the file at `path` for reading. A missing, unreadable or empty file
/// is an [`Error::Source`] naming it.
///
/// The mapping reads the file as it is on disk: a file truncated by
/// another process while mapped is outside what adl can check (reads past
/// its new end fault), as with NumPy's `mmap_mode`.
pub(crate) fn map(path: &Path) -> Result<Mmap> {
    let file = File::open(path).map_err(|e| Error::file_io(path, "cannot open", e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::file_io(path, "cannot read its size", e))?
        .len();
    if len == 0 {
        return Err(Error::file(path, "the file is empty"));
    }
    // SAFETY: the mapping is read-only and lives as long as the sensor
    // that holds it; a file changed on disk by another process while it is
    // mapped is the caveat documented above, as for every memory map.
    unsafe { Mmap::map(&file) }.map_err(|e| Error::file_io(path, "cannot map", e))
}

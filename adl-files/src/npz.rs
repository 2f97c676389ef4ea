//! NumPy `.npz` archives: one array of the archive, read out whole (an
//! `.npz` is a zip file of `.npy` members, stored or deflated, so its
//! arrays cannot be mapped in place).

use std::io::{Cursor, Read};

use adl_core::Result;

use crate::location::Location;

/// The bytes of the `.npy` member `array` (written `array` or
/// `array.npy`, as `numpy.savez` names it) of the `.npz` archive at
/// `location`, decompressed. Every failure names the archive: not a zip
/// archive, no such member (the members listed), a member that does not
/// decompress.
pub(crate) fn member(location: &Location, array: &str) -> Result<Vec<u8>> {
    let archive = match location.as_path() {
        Some(path) => std::fs::read(path).map_err(|e| location.error_io("cannot read", e))?,
        None => location.object()?.get()?.to_vec(),
    };
    let mut zip = zip::ZipArchive::new(Cursor::new(archive)).map_err(|e| {
        location.error(format!(
            "not a NumPy .npz file (a zip archive of .npy files): {e}"
        ))
    })?;
    let wanted = if array.ends_with(".npy") {
        array.to_string()
    } else {
        format!("{array}.npy")
    };
    let names: Vec<String> = zip.file_names().map(str::to_string).collect();
    if !names.contains(&wanted) {
        // Names as they are, but for what would not print (a damaged
        // archive's names are any bytes).
        let arrays: Vec<String> = names
            .iter()
            .map(|n| {
                n.strip_suffix(".npy")
                    .unwrap_or(n)
                    .escape_debug()
                    .to_string()
            })
            .collect();
        return Err(location.error(format!(
            "has no array `{}`; its arrays are [{}]",
            wanted.trim_end_matches(".npy"),
            arrays.join(", ")
        )));
    }
    let mut file = zip
        .by_name(&wanted)
        .map_err(|e| location.error(format!("array `{array}`: cannot open it: {e}")))?;
    // No more than the size the archive declares (memory grows with what
    // is read, not with what is declared; a member that decompresses past
    // its declared size is refused).
    let declared = file.size();
    let mut bytes = Vec::new();
    (&mut file)
        .take(declared.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| location.error(format!("array `{array}`: cannot decompress it: {e}")))?;
    if bytes.len() as u64 > declared {
        return Err(location.error(format!(
            "array `{array}`: decompresses to more than the {declared} bytes the archive declares"
        )));
    }
    Ok(bytes)
}

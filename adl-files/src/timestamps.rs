//! A sensor's timestamps from a file.

use std::path::Path;

use adl_core::{Error, Result, Timestamps};
use ndarray::ArrayView1;
use ndarray_npy::ViewNpyExt;

use crate::location::Location;
use crate::mapped::map;
use crate::npy_header::header_fits;

/// The names a sensor folder's timestamps file may have, in the order
/// [`Npy::in_folder`](crate::Npy::in_folder) and
/// [`Images::in_folder`](crate::Images::in_folder) look for them.
pub const TIMESTAMP_FILES: [&str; 4] = ["ts.npy", "timestamps.npy", "ts.txt", "timestamps.txt"];

/// The timestamps of sensor `sensor`, in seconds, from the file at
/// `location` (a path, or a URL in an object store, read whole): a `.npy`
/// file holding a one-dimensional float64 array, or any other file as
/// text, one number per line (blank lines and lines starting with `#` are
/// passed over).
///
/// A file that cannot be read, a `.npy` array of another type or shape, a
/// line that is not a number: an [`Error::Source`] naming the file (and
/// the line). Timestamps that are not finite, not sorted or never advance
/// are refused as by [`Timestamps::new`], the file named.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("ts.txt");
/// std::fs::write(&path, "# seconds\n0.0\n0.1\n0.2\n")?;
/// let times = adl::files::read_timestamps("imu", &path)?;
/// assert_eq!(times.as_slice(), &[0.0, 0.1, 0.2]);
///
/// std::fs::write(&path, "0.0\n0.1\nabc\n")?;
/// let err = adl::files::read_timestamps("imu", &path).unwrap_err();
/// assert!(err.to_string().ends_with("ts.txt (sensor `imu`): line 3: `abc` is not a number"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_timestamps(sensor: &str, location: impl Into<Location>) -> Result<Timestamps> {
    let location = location.into();
    let npy = match location.as_path() {
        Some(path) => path.extension().is_some_and(|e| e == "npy"),
        None => location
            .file_name()
            .is_some_and(|name| name.ends_with(".npy")),
    };
    let values = match location.as_path() {
        Some(path) if npy => from_npy(path),
        Some(path) => from_text(path),
        None => from_object(&location, npy),
    }
    .map_err(|e| e.in_sensor(sensor, None))?;
    checked(sensor, &location, values)
}

/// `values` as the timestamps of `sensor`, read from `location`: refused as
/// by [`Timestamps::new`], whose message names the sensor, with the file
/// named before it. (Not passed through [`Error::in_sensor`], which would
/// name the sensor twice.)
pub(crate) fn checked(sensor: &str, location: &Location, values: Vec<f64>) -> Result<Timestamps> {
    Timestamps::new(sensor, values).map_err(|e| location.error(e))
}

/// The name and timestamps of the sensor of the folder `dir` (a path, or
/// a folder in an object store), in the layout of a sensor per folder:
/// named as the folder, its timestamps in the first of [`TIMESTAMP_FILES`]
/// that is there (a folder in a store listed once to find it, a folder on
/// a plain HTTP server asked for each name in turn).
pub(crate) fn sensor_folder(dir: &Location) -> Result<(String, Timestamps)> {
    let name = dir
        .file_name()
        .map(str::to_string)
        .ok_or_else(|| dir.error("a sensor folder needs a name"))?;
    let times = match dir.as_path() {
        Some(path) => TIMESTAMP_FILES
            .into_iter()
            .find(|file| path.join(file).is_file()),
        None => dir
            .object()
            .and_then(|folder| folder.first_present(&TIMESTAMP_FILES))
            .map_err(|e| e.in_sensor(&name, None))?,
    };
    let times = times.ok_or_else(|| {
        dir.error(format!(
            "no timestamps file: a sensor folder has one of {}",
            TIMESTAMP_FILES.join(", ")
        ))
        .in_sensor(&name, None)
    })?;
    let timestamps = read_timestamps(&name, dir.join(times))?;
    Ok((name, timestamps))
}

/// A one-dimensional float64 `.npy` array.
fn from_npy(path: &Path) -> Result<Vec<f64>> {
    let mapped = map(path)?;
    npy_values(&mapped).map_err(|words| Error::file(path, words))
}

/// The values of a one-dimensional float64 `.npy` array in `bytes`, or
/// what is wrong with it.
fn npy_values(bytes: &[u8]) -> Result<Vec<f64>, String> {
    let view = header_fits(bytes, bytes.len() as u64)
        .and_then(|()| ArrayView1::<f64>::view_npy(bytes))
        .map_err(|e| {
            format!(
                "timestamps are a one-dimensional float64 array of seconds; {}",
                crate::npy_header::describe(&e)
            )
        })?;
    Ok(view.to_vec())
}

/// The timestamps in an object of a store, read whole.
fn from_object(location: &Location, npy: bool) -> Result<Vec<f64>> {
    let bytes = location.object()?.get()?;
    if npy && bytes.is_empty() {
        Err(location.error("the object is empty"))
    } else if npy {
        // The data is viewed in place, so it must be aligned for f64 (as
        // a mapped file's is): copied into memory that is.
        let mut aligned = vec![0u64; bytes.len().div_ceil(8)];
        let copy = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut aligned)[..bytes.len()];
        copy.copy_from_slice(&bytes);
        npy_values(copy).map_err(|words| location.error(words))
    } else {
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| location.error(format!("cannot read as text: {e}")))?;
        text_values(location, text)
    }
}

/// One number per line; blank lines and `#` comments passed over.
fn from_text(path: &Path) -> Result<Vec<f64>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::file_io(path, "cannot read as text", e))?;
    text_values(&Location::from(path), &text)
}

/// The numbers of `text`, read from `location`, one per line.
fn text_values(location: &Location, text: &str) -> Result<Vec<f64>> {
    text.lines()
        .enumerate()
        .map(|(number, line)| (number + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(number, line)| {
            line.parse::<f64>()
                .map_err(|_| location.error(format!("line {number}: `{line}` is not a number")))
        })
        .collect()
}

//! [`Files`]: what a sensor with a file per sample keeps (a camera's
//! frames, a lidar's scans): its files in order, and the bytes its read
//! stage read ahead.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use adl_core::{Error, Result, SensorOrigin};

use crate::natural::natural_cmp;
use crate::timestamps::TIMESTAMP_FILES;

/// The files of a sensor with a file per sample, and the bytes read ahead
/// of its `get`s ([`fetch`](Files::fetch)): shared between clones.
#[derive(Clone)]
pub(crate) struct Files {
    /// The sensor's name, for the messages.
    sensor: String,
    paths: Arc<[PathBuf]>,
    fetched: Arc<Mutex<HashMap<usize, Vec<u8>>>>,
}

impl Files {
    /// The files of the folder `dir` named `*.<ext>` for one of
    /// `extensions` (in any case), not hidden, not a timestamps file, in
    /// natural order (`frame_9` before `frame_10`); `what` names them
    /// (`frames`, `arrays`) when there is none.
    pub(crate) fn in_folder(
        sensor: &str,
        dir: &Path,
        extensions: &[&str],
        what: &str,
    ) -> Result<Vec<PathBuf>> {
        let listed = || -> Result<Vec<PathBuf>> {
            let cannot = |e: std::io::Error| Error::file(dir, format!("cannot list: {e}"));
            let mut files = Vec::new();
            for entry in std::fs::read_dir(dir).map_err(cannot)? {
                let entry = entry.map_err(cannot)?;
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                let wanted = Path::new(&name)
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)));
                if wanted
                    && !name.starts_with('.')
                    && !TIMESTAMP_FILES.contains(&name.as_str())
                    && path.is_file()
                {
                    files.push((name, path));
                }
            }
            files.sort_by(|(a, _), (b, _)| natural_cmp(a, b));
            Ok(files.into_iter().map(|(_, path)| path).collect())
        };
        let files = listed().map_err(|e| e.in_sensor(sensor, None))?;
        if files.is_empty() {
            return Err(Error::file(
                dir,
                format!(
                    "holds no {what}: no file named *.{}",
                    extensions.join(", *.")
                ),
            )
            .in_sensor(sensor, None));
        }
        Ok(files)
    }

    /// The folder of `files` (for the messages) and the files, at least
    /// one; `what` names them when there is none.
    pub(crate) fn given<P: Into<PathBuf>>(
        sensor: &str,
        files: impl IntoIterator<Item = P>,
        what: &str,
    ) -> Result<(PathBuf, Vec<PathBuf>)> {
        let files: Vec<PathBuf> = files.into_iter().map(Into::into).collect();
        let Some(first) = files.first() else {
            return Err(Error::invalid(
                format_args!("{what} of sensor `{sensor}`"),
                "no file given; the sensor has at least one sample",
            ));
        };
        let place = first.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok((place, files))
    }

    /// `paths`, a file per timestamp of `count` (`place`, where they are,
    /// named when they are not).
    pub(crate) fn new(
        sensor: &str,
        place: &Path,
        paths: Vec<PathBuf>,
        count: usize,
        what: &str,
    ) -> Result<Self> {
        if paths.len() != count {
            return Err(Error::file(
                place,
                format!("holds {} {what} for {count} timestamps", paths.len()),
            )
            .in_sensor(sensor, None));
        }
        Ok(Files {
            sensor: sensor.to_string(),
            paths: paths.into(),
            fetched: Arc::default(),
        })
    }

    /// The files, a sample's in its place.
    pub(crate) fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Sample `index`'s file, or the error of an index out of range.
    pub(crate) fn path(&self, index: usize) -> Result<&Path> {
        self.paths.get(index).map(PathBuf::as_path).ok_or_else(|| {
            Error::out_of_range(
                format_args!("sensor `{}`", self.sensor),
                index,
                self.paths.len(),
            )
        })
    }

    /// The bytes read ahead for `index`, taken (none if it was not).
    pub(crate) fn take(&self, index: usize) -> Option<Vec<u8>> {
        self.fetched().remove(&index)
    }

    /// The sample's file (a file per sample: no row).
    pub(crate) fn origin(&self, index: usize) -> SensorOrigin {
        let origin = SensorOrigin::new(self.sensor.as_str(), index);
        match self.paths.get(index) {
            Some(path) => origin.in_file(path.display(), None),
            None => origin,
        }
    }

    /// Read sample `index`'s file, kept for the `get` that follows.
    pub(crate) fn fetch(&self, index: usize) -> Result<u64> {
        let path = self.path(index)?;
        let bytes = std::fs::read(path).map_err(|e| {
            Error::file(path, format!("cannot read: {e}")).in_sensor(&self.sensor, Some(index))
        })?;
        let n = bytes.len() as u64;
        self.fetched().insert(index, bytes);
        Ok(n)
    }

    /// Drop what was read ahead for `index`.
    pub(crate) fn release(&self, index: usize) {
        self.fetched().remove(&index);
    }

    /// The bytes read ahead (a panic elsewhere while it was held leaves a
    /// map still good to use).
    fn fetched(&self) -> MutexGuard<'_, HashMap<usize, Vec<u8>>> {
        self.fetched.lock().unwrap_or_else(|p| p.into_inner())
    }
}

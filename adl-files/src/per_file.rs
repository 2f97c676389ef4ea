//! [`Files`]: what a sensor with a file per sample keeps (a camera's
//! frames, a lidar's scans): its files in order, local or objects in a
//! store; a file read ahead is a [`Fetched`] that its sample's
//! `get_fetched` takes.

use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use adl_core::storage::{Ahead, Fetched, Storage};
use adl_core::{Error, Result, SensorOrigin};

use crate::location::Location;
use crate::natural::natural_cmp;
use crate::object::Data;
use crate::timestamps::TIMESTAMP_FILES;

/// The files of a sensor with a file per sample, shared between clones:
/// a [`fetch`](Files::fetch) reads one whole, for the `get` it is handed
/// to ([`contents`](Files::contents)).
#[derive(Clone)]
pub(crate) struct Files {
    /// The sensor's name, for the messages.
    sensor: String,
    /// A sample's file in its place: a path, or an object of an opened
    /// store.
    locations: Arc<[Location]>,
}

/// A sample's file as read, whole: a local file's bytes or an object's.
pub(crate) enum Contents {
    /// Read from a local file.
    File(Vec<u8>),
    /// Read from an object store, in the buffer its answer came in.
    Object(Data),
}

impl Deref for Contents {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Contents::File(bytes) => bytes,
            Contents::Object(bytes) => bytes,
        }
    }
}

impl Files {
    /// The files of the folder `dir` (a path, or a folder in an object
    /// store: the objects under its prefix, not in its subfolders) named
    /// `*.<ext>` for one of `extensions` (in any case), not hidden, not a
    /// timestamps file, in natural order of their names (`frame_9` before
    /// `frame_10`); `what` names them (`frames`, `arrays`) when there is
    /// none.
    pub(crate) fn in_folder(
        sensor: &str,
        dir: &Location,
        extensions: &[&str],
        what: &str,
    ) -> Result<Vec<Location>> {
        let wanted = |name: &str| {
            let extension = Path::new(name).extension().and_then(|e| e.to_str());
            extension.is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
                && !name.starts_with('.')
                && !TIMESTAMP_FILES.contains(&name)
        };
        let mut files = match dir.as_path() {
            Some(path) => local_files(dir, path, wanted),
            None => dir.opened().and_then(|folder| {
                let names = folder.object()?.names()?;
                Ok(names
                    .into_iter()
                    .filter(|name| wanted(name))
                    .map(|name| {
                        let location = folder.join(&name);
                        (name, location)
                    })
                    .collect())
            }),
        }
        .map_err(|e| e.in_sensor(sensor, None))?;
        if files.is_empty() {
            return Err(dir
                .error(format!(
                    "holds no {what}: no file named *.{}",
                    extensions.join(", *.")
                ))
                .in_sensor(sensor, None));
        }
        files.sort_by(|(a, _), (b, _)| natural_cmp(a, b));
        Ok(files.into_iter().map(|(_, location)| location).collect())
    }

    /// The folder of `files` (for the messages) and the files, at least
    /// one; `what` names them when there is none.
    pub(crate) fn given<L: Into<Location>>(
        sensor: &str,
        files: impl IntoIterator<Item = L>,
        what: &str,
    ) -> Result<(Location, Vec<Location>)> {
        let files: Vec<Location> = files.into_iter().map(Into::into).collect();
        let Some(first) = files.first() else {
            return Err(Error::invalid(
                format_args!("{what} of sensor `{sensor}`"),
                "no file given; the sensor has at least one sample",
            ));
        };
        Ok((first.parent(), files))
    }

    /// `locations`, a file per timestamp of `count` (`place`, where they
    /// are, named when they are not), the stores of those given as URLs
    /// opened.
    pub(crate) fn new(
        sensor: &str,
        place: &Location,
        locations: Vec<Location>,
        count: usize,
        what: &str,
    ) -> Result<Self> {
        if locations.len() != count {
            return Err(place
                .error(format!(
                    "holds {} {what} for {count} timestamps",
                    locations.len()
                ))
                .in_sensor(sensor, None));
        }
        let locations = locations
            .iter()
            .enumerate()
            .map(|(index, location)| {
                location
                    .opened()
                    .map_err(|e| e.in_sensor(sensor, Some(index)))
            })
            .collect::<Result<_>>()?;
        Ok(Files {
            sensor: sensor.to_string(),
            locations,
        })
    }

    /// The files, a sample's in its place.
    pub(crate) fn locations(&self) -> &[Location] {
        &self.locations
    }

    /// Sample `index`'s file, or the error of an index out of range.
    pub(crate) fn location(&self, index: usize) -> Result<&Location> {
        self.locations.get(index).ok_or_else(|| {
            Error::out_of_range(
                format_args!("sensor `{}`", self.sensor),
                index,
                self.locations.len(),
            )
        })
    }

    /// Sample `index`'s file read whole: from the disk, or with one GET
    /// of the object (retried as its store's policy says). A failure
    /// names the file, the sensor and the sample.
    pub(crate) fn read(&self, index: usize) -> Result<Contents> {
        let location = self.location(index)?;
        let contents = match location.as_path() {
            Some(path) => std::fs::read(path)
                .map(Contents::File)
                .map_err(|e| location.error_io("cannot read", e)),
            None => location
                .object()
                .and_then(|object| object.get())
                .map(Contents::Object),
        };
        contents.map_err(|e| e.in_sensor(&self.sensor, Some(index)))
    }

    /// Sample `index`'s file: the bytes read ahead for it (`fetched`),
    /// or else read now ([`read`](Files::read)).
    pub(crate) fn contents(&self, index: usize, fetched: Fetched) -> Result<Contents> {
        match fetched.take::<Contents>() {
            Some(bytes) => Ok(bytes),
            None => self.read(index),
        }
    }
}

/// A file per sample, read whole ahead of the `get` that parses it.
impl Storage for Files {
    type Origin = SensorOrigin;

    /// The sample's file, its path or URL (a file per sample: no row).
    fn origin(&self, index: usize) -> Option<SensorOrigin> {
        let origin = SensorOrigin::new(self.sensor.as_str(), index);
        Some(match self.locations.get(index) {
            Some(location) => origin.in_file(location, None),
            None => origin,
        })
    }

    fn ahead(&self) -> Ahead {
        Ahead::Reads
    }

    /// Read sample `index`'s file, for the `get` it is handed to.
    fn fetch(&self, index: usize) -> Result<Fetched> {
        let contents = self.read(index)?;
        let n = contents.len() as u64;
        Ok(Fetched::read(contents, n))
    }
}

/// The files of the local folder `path` (`dir`) whose names are
/// `wanted`, with their names.
fn local_files(
    dir: &Location,
    path: &Path,
    wanted: impl Fn(&str) -> bool,
) -> Result<Vec<(String, Location)>> {
    let cannot = |e: std::io::Error| dir.error_io("cannot list", e);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let file = entry.path();
        if wanted(&name) && file.is_file() {
            files.push((name, Location::from(file)));
        }
    }
    Ok(files)
}

//! [`Location`]: where a sensor's file or folder is, on a local disk or in
//! an object store.

use std::fmt;
use std::path::{Path, PathBuf};

use adl_core::{Error, Result};

use crate::object::Object;
#[cfg(feature = "_object-store")]
use crate::store::Store;

/// Where a sensor's file (or folder of files) is: a local path, or the URL
/// of an object in an object store (`s3://bucket/radar/data.npy`; see
/// `Store`, feature `store`).
///
/// Every file-backed sensor opens one, and converts into one what it is
/// given: a path (`&Path`, `PathBuf`), or a string, read as a URL where it
/// starts with a scheme and `://` (`file://` URLs are local paths) and as
/// a local path otherwise. A URL's store is opened when a sensor first
/// reads from it (see `Store::shared`); a location in a store opened with
/// options comes from `Store::at`.
///
/// ```
/// use adl::files::Location;
/// use std::path::Path;
///
/// let local = Location::from("recordings/drive-07");
/// assert_eq!(local.as_path(), Some(Path::new("recordings/drive-07")));
/// assert_eq!(local.join("radar").to_string(), "recordings/drive-07/radar");
///
/// let remote = Location::from("s3://bucket/drive-07/");
/// assert_eq!(remote.as_path(), None);
/// assert_eq!(remote.join("radar").join("data.npy").to_string(), "s3://bucket/drive-07/radar/data.npy");
/// assert_eq!(remote.join("radar").file_name(), Some("radar"));
///
/// assert_eq!(Location::from("file:///data/x.npy").as_path(), Some(Path::new("/data/x.npy")));
/// ```
#[derive(Debug, Clone)]
pub struct Location {
    place: Place,
}

#[derive(Debug, Clone)]
enum Place {
    /// A local file or folder.
    Path(PathBuf),
    /// An object's URL, its store opened on first read.
    Url(String),
    /// An object `key` of a store already opened.
    #[cfg(feature = "_object-store")]
    Object { store: Store, key: String },
}

impl Location {
    /// An object (or folder) `key` of `store`.
    #[cfg(feature = "_object-store")]
    pub(crate) fn in_store(store: Store, key: &str) -> Location {
        Location {
            place: Place::Object {
                store,
                key: key.trim_matches('/').to_string(),
            },
        }
    }

    /// The local path, where this location is one.
    pub fn as_path(&self) -> Option<&Path> {
        match &self.place {
            Place::Path(path) => Some(path),
            _ => None,
        }
    }

    /// The file or folder `name` inside this folder. A name with `/` goes
    /// down as many folders.
    pub fn join(&self, name: &str) -> Location {
        let place = match &self.place {
            Place::Path(path) => Place::Path(path.join(name)),
            Place::Url(url) => Place::Url(format!("{}/{}", url.trim_end_matches('/'), name)),
            #[cfg(feature = "_object-store")]
            Place::Object { store, key } => Place::Object {
                store: store.clone(),
                key: join_key(key, name),
            },
        };
        Location { place }
    }

    /// The last part of the location (a file's or folder's name), if it
    /// has one.
    pub fn file_name(&self) -> Option<&str> {
        match &self.place {
            Place::Path(path) => path.file_name().and_then(|name| name.to_str()),
            Place::Url(url) => last_segment(url.trim_end_matches('/').split_once("://")?.1),
            #[cfg(feature = "_object-store")]
            Place::Object { key, .. } => last_segment(key),
        }
    }

    /// The folder this file or folder is in: a path's parent (the empty
    /// path for a bare name), a URL or key without its last part (a
    /// store's root staying itself).
    pub(crate) fn parent(&self) -> Location {
        let place = match &self.place {
            Place::Path(path) => {
                Place::Path(path.parent().map(Path::to_path_buf).unwrap_or_default())
            }
            Place::Url(url) => {
                let url = url.trim_end_matches('/');
                let parent = match url.split_once("://") {
                    Some((scheme, rest)) => match rest.rsplit_once('/') {
                        Some((head, _)) => format!("{scheme}://{head}"),
                        None => url.to_string(),
                    },
                    None => url.to_string(),
                };
                Place::Url(parent)
            }
            #[cfg(feature = "_object-store")]
            Place::Object { store, key } => Place::Object {
                store: store.clone(),
                key: key
                    .rsplit_once('/')
                    .map(|(head, _)| head)
                    .unwrap_or_default()
                    .to_string(),
            },
        };
        Location { place }
    }

    /// This location with its store opened: a URL becomes the object of
    /// the store its URLs share (`Store::shared`, opened now if it is
    /// not yet), so that its reads keep that store; a path or an object
    /// of an opened store stays as it is. A URL that is not one of a
    /// store this build reads is refused, naming it.
    pub(crate) fn opened(&self) -> Result<Location> {
        match &self.place {
            Place::Url(_) => Ok(Location::of_object(self.object()?)),
            _ => Ok(self.clone()),
        }
    }

    /// An [`Error::Source`] naming this location, for `reason`.
    pub(crate) fn error(&self, reason: impl fmt::Display) -> Error {
        match &self.place {
            Place::Path(path) => Error::file(path, reason),
            _ => Error::file(self.to_string(), reason),
        }
    }

    /// An [`Error::Source`] naming this location, for a read the system
    /// refused: `what` was being done, and `io` is its `source()`.
    pub(crate) fn error_io(&self, what: impl fmt::Display, io: std::io::Error) -> Error {
        match &self.place {
            Place::Path(path) => Error::file_io(path, what, io),
            _ => Error::file_io(self.to_string(), what, io),
        }
    }

    /// The location of `object`, in its store.
    #[cfg(feature = "_object-store")]
    fn of_object(object: Object) -> Location {
        let (store, key) = object.into_parts();
        Location::in_store(store, &key)
    }

    /// No object is read in this build.
    #[cfg(not(feature = "_object-store"))]
    fn of_object(object: Object) -> Location {
        match object {}
    }

    /// The object this (non-local) location names, its store opened.
    pub(crate) fn object(&self) -> Result<Object> {
        match &self.place {
            Place::Path(path) => Err(Error::internal(
                "Location::object",
                format!("{} is a local path, read as a file", path.display()),
            )),
            Place::Url(url) => Object::at_url(url),
            #[cfg(feature = "_object-store")]
            Place::Object { store, key } => Ok(Object::new(store.clone(), key.clone())),
        }
    }
}

/// `key/name`, or `name` in the store's root.
#[cfg(feature = "_object-store")]
fn join_key(key: &str, name: &str) -> String {
    if key.is_empty() {
        name.trim_matches('/').to_string()
    } else {
        format!("{key}/{}", name.trim_matches('/'))
    }
}

/// The part of a `/`-separated key after its last `/`, if not empty.
fn last_segment(key: &str) -> Option<&str> {
    key.rsplit('/').next().filter(|name| !name.is_empty())
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            Place::Path(path) => write!(f, "{}", path.display()),
            Place::Url(url) => f.write_str(url),
            #[cfg(feature = "_object-store")]
            Place::Object { store, key } => f.write_str(&store.url(key)),
        }
    }
}

/// A string as a location: a URL where it starts with a scheme and `://`
/// (a `file://` URL being a local path), a local path otherwise.
impl From<&str> for Location {
    fn from(text: &str) -> Self {
        let place = match text.split_once("://") {
            Some(("file", path)) => Place::Path(PathBuf::from(path)),
            Some((scheme, _)) if is_scheme(scheme) => Place::Url(text.to_string()),
            _ => Place::Path(PathBuf::from(text)),
        };
        Location { place }
    }
}

/// Whether `text` is a URL scheme: a letter, then letters, digits, `+`,
/// `-` or `.` (and more than one character, so that a Windows drive
/// letter is not taken for one).
fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    text.len() > 1
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// As for `&str`.
impl From<String> for Location {
    fn from(text: String) -> Self {
        Location::from(text.as_str())
    }
}

/// As for `&str`.
impl From<&String> for Location {
    fn from(text: &String) -> Self {
        Location::from(text.as_str())
    }
}

/// A local path.
impl From<&Path> for Location {
    fn from(path: &Path) -> Self {
        Location {
            place: Place::Path(path.to_path_buf()),
        }
    }
}

/// A local path.
impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Self {
        Location {
            place: Place::Path(path),
        }
    }
}

/// A local path.
impl From<&PathBuf> for Location {
    fn from(path: &PathBuf) -> Self {
        Location::from(path.as_path())
    }
}

/// The same location.
impl From<&Location> for Location {
    fn from(location: &Location) -> Self {
        location.clone()
    }
}

/// A store's objects and folders, as locations: here, beside the
/// [`Location`] they make, so that the store itself (`store.rs`) knows
/// nothing of locations.
#[cfg(feature = "_object-store")]
impl Store {
    /// The location of the object (or folder) `key` in this store, for a
    /// sensor to open.
    pub fn at(&self, key: &str) -> Location {
        Location::in_store(self.clone(), key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_with_a_scheme_are_urls_and_others_paths() {
        for text in [
            "radar/data.npy",
            "/abs/ts.txt",
            "C://odd",
            "no scheme://x",
            "1a://x",
        ] {
            assert_eq!(
                Location::from(text).as_path(),
                Some(Path::new(text)),
                "{text}"
            );
        }
        for text in [
            "s3://b/k",
            "gs://b/k",
            "https://h/k",
            "s3a://b",
            "abfss://c/k",
        ] {
            let location = Location::from(text);
            assert_eq!(location.as_path(), None, "{text}");
            assert_eq!(location.to_string(), text);
        }
    }

    #[test]
    fn the_parent_of_a_path_or_url_is_its_folder() {
        for (text, parent) in [
            ("radar/data.npy", "radar"),
            ("data.npy", ""),
            (
                "s3://bucket/drive/camera/f1.jpg",
                "s3://bucket/drive/camera",
            ),
            ("s3://bucket/drive/camera/", "s3://bucket/drive"),
            ("s3://bucket/f1.jpg", "s3://bucket"),
            ("s3://bucket", "s3://bucket"),
        ] {
            assert_eq!(Location::from(text).parent().to_string(), parent, "{text}");
        }
    }

    #[test]
    fn a_url_folder_joins_and_names_like_a_path() {
        let folder = Location::from("s3://bucket/drive/radar/");
        assert_eq!(folder.file_name(), Some("radar"));
        assert_eq!(
            folder.join("ts.npy").to_string(),
            "s3://bucket/drive/radar/ts.npy"
        );
        assert_eq!(Location::from("s3://bucket").file_name(), Some("bucket"));
        assert_eq!(Location::from("s3://").file_name(), None);
    }
}

//! [`Object`]: a sensor's file in an object store, as the sensors read it.
//!
//! In a build without object storage (no feature `s3`, `gcs`, `azure` or
//! `http`) there is no such object: a URL is refused when it is opened,
//! naming the feature to enable, and the sensors' code is the same.

use std::ops::Range;

use adl_core::{Error, Result};

#[cfg(feature = "_object-store")]
use crate::store::{ObjectUrl, Store};

/// The bytes of an object as read.
#[cfg(feature = "_object-store")]
pub(crate) type Data = bytes::Bytes;
/// The bytes of an object as read.
#[cfg(not(feature = "_object-store"))]
pub(crate) type Data = Vec<u8>;

/// An object `key` of a store: a sensor's file, or folder of files.
#[cfg(feature = "_object-store")]
pub(crate) struct Object {
    store: Store,
    key: String,
}

/// No object can be read in this build.
#[cfg(not(feature = "_object-store"))]
pub(crate) enum Object {}

#[cfg(feature = "_object-store")]
impl Object {
    /// The object `key` of `store`.
    pub(crate) fn new(store: Store, key: String) -> Object {
        Object { store, key }
    }

    /// The object at `url`, read through the store shared by the URLs of
    /// its root ([`Store::shared`]).
    pub(crate) fn at_url(url: &str) -> Result<Object> {
        let key = ObjectUrl::parse(url)?.key;
        Ok(Object {
            store: Store::shared(url)?,
            key,
        })
    }

    /// Its store and key.
    pub(crate) fn into_parts(self) -> (Store, String) {
        (self.store, self.key)
    }

    /// The whole object.
    pub(crate) fn get(&self) -> Result<Data> {
        self.store.get(&self.key)
    }

    /// The names of the objects in this folder (not in its subfolders),
    /// with one listing (a request per thousand objects). A plain HTTP
    /// server cannot list: refused, saying so.
    pub(crate) fn names(&self) -> Result<Vec<String>> {
        if self.store.root().starts_with("http") {
            return Err(Error::file(
                self.store.url(&self.key),
                "a folder on a plain HTTP server cannot be listed: give the sensor its files \
                 (`from_files`)",
            ));
        }
        let keys = self.store.list(&self.key)?;
        let prefix = match self.key.as_str() {
            "" => String::new(),
            key => format!("{key}/"),
        };
        Ok(keys
            .into_iter()
            .filter_map(|key| key.strip_prefix(&prefix).map(str::to_string))
            .collect())
    }

    /// Bytes `range` of the object.
    pub(crate) fn get_range(&self, range: Range<u64>) -> Result<Data> {
        self.store.get_range(&self.key, range)
    }

    /// The object's first `len` bytes (all of it, if shorter) and its size.
    pub(crate) fn get_start(&self, len: u64) -> Result<(Data, u64)> {
        self.store.get_start(&self.key, len)
    }

    /// The first of `names` that is an object in this folder: found with
    /// one listing of the folder, or, on a plain HTTP server (which cannot
    /// list), by asking for each in turn.
    pub(crate) fn first_present<'n>(&self, names: &[&'n str]) -> Result<Option<&'n str>> {
        let child = |name: &str| match self.key.as_str() {
            "" => name.to_string(),
            key => format!("{key}/{name}"),
        };
        if self.store.root().starts_with("http") {
            for name in names {
                if self.store.exists(&child(name))? {
                    return Ok(Some(name));
                }
            }
            return Ok(None);
        }
        let keys = self.store.list(&self.key)?;
        Ok(names
            .iter()
            .find(|name| keys.contains(&child(name)))
            .copied())
    }
}

#[cfg(not(feature = "_object-store"))]
impl Object {
    /// Refused: this build reads no URLs.
    pub(crate) fn at_url(url: &str) -> Result<Object> {
        Err(Error::file(
            url,
            "this build reads no URLs: enable the feature `store` (object storage) of adl or \
             adl-files, or one kind only: `s3`, `gcs`, `azure` or `http` of adl-files \
             (`store-s3`... of adl)",
        ))
    }

    pub(crate) fn get(&self) -> Result<Data> {
        match *self {}
    }

    pub(crate) fn names(&self) -> Result<Vec<String>> {
        match *self {}
    }

    pub(crate) fn get_range(&self, _: Range<u64>) -> Result<Data> {
        match *self {}
    }

    pub(crate) fn get_start(&self, _: u64) -> Result<(Data, u64)> {
        match *self {}
    }

    pub(crate) fn first_present<'n>(&self, _: &[&'n str]) -> Result<Option<&'n str>> {
        match *self {}
    }
}

#[cfg(all(test, not(feature = "_object-store")))]
mod tests {
    use crate::{Images, Location, Npy, NpyFiles};

    #[test]
    fn without_object_storage_a_url_is_refused_naming_the_feature() {
        let times = adl_core::Timestamps::new("radar", vec![0.0, 1.0]).unwrap();
        let err = Npy::<f32>::open("radar", Location::from("s3://bucket/radar/data.npy"), times)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "s3://bucket/radar/data.npy (sensor `radar`): this build reads no URLs"
            ) && err.contains("the feature `store`"),
            "{err}"
        );
    }

    #[test]
    fn without_object_storage_a_folder_or_file_per_sample_url_is_refused() {
        let err = Images::in_folder("s3://bucket/drive/camera/")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "s3://bucket/drive/camera/ (sensor `camera`): this build reads no URLs"
            ),
            "{err}"
        );
        let times = adl_core::Timestamps::new("lidar", vec![0.0]).unwrap();
        let err = NpyFiles::<f32>::from_files("lidar", ["s3://bucket/lidar/0.npy"], times)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "s3://bucket/lidar/0.npy (sensor `lidar`, sample 0): this build reads no URLs"
            ),
            "{err}"
        );
    }
}

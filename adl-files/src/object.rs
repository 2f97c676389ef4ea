//! [`Object`]: a sensor's file in an object store, as the sensors read it.
//!
//! In a build without object storage (no feature `s3`, `gcs`, `azure` or
//! `http`) there is no such object: a URL is refused when it is opened,
//! naming the feature to enable, and the sensors' code is the same.

use std::ops::Range;

#[cfg(not(feature = "_object-store"))]
use adl_core::Error;
use adl_core::Result;

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

    /// The whole object.
    pub(crate) fn get(&self) -> Result<Data> {
        self.store.get(&self.key)
    }

    /// Bytes `range` of the object.
    pub(crate) fn get_range(&self, range: Range<u64>) -> Result<Data> {
        self.store.get_range(&self.key, range)
    }

    /// The object's first `len` bytes (all of it, if shorter) and its size.
    pub(crate) fn get_start(&self, len: u64) -> Result<(Data, u64)> {
        self.store.get_start(&self.key, len)
    }

    /// The names of the objects in this folder (not in its subfolders).
    pub(crate) fn list_names(&self) -> Result<Vec<String>> {
        let keys = self.store.list(&self.key)?;
        Ok(keys
            .into_iter()
            .map(|key| match key.rsplit_once('/') {
                Some((_, name)) => name.to_string(),
                None => key,
            })
            .collect())
    }
}

#[cfg(not(feature = "_object-store"))]
impl Object {
    /// Refused: this build reads no URLs.
    pub(crate) fn at_url(url: &str) -> Result<Object> {
        Err(Error::file(
            url,
            "this build of adl-files reads no URLs: enable its feature `store` (object storage; \
             or one of `s3`, `gcs`, `azure`, `http`)",
        ))
    }

    pub(crate) fn get(&self) -> Result<Data> {
        match *self {}
    }

    pub(crate) fn get_range(&self, _: Range<u64>) -> Result<Data> {
        match *self {}
    }

    pub(crate) fn get_start(&self, _: u64) -> Result<(Data, u64)> {
        match *self {}
    }

    pub(crate) fn list_names(&self) -> Result<Vec<String>> {
        match *self {}
    }
}

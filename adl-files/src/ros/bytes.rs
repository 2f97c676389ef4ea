//! [`Bytes`]: a bag file's bytes, mapped (a file on disk) or in memory (a
//! file decompressed whole, or read from an object store), shared by the
//! bag's sensors.

use std::sync::Arc;

use memmap2::Mmap;

/// A file's bytes, cheap to clone.
#[derive(Clone)]
pub(crate) struct Bytes(Arc<Held>);

enum Held {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    /// A mapped file.
    pub(crate) fn mapped(map: Mmap) -> Self {
        Bytes(Arc::new(Held::Mapped(map)))
    }

    /// Bytes in memory.
    pub(crate) fn owned(bytes: Vec<u8>) -> Self {
        Bytes(Arc::new(Held::Owned(bytes)))
    }

    /// The test bag `name` of `tests/data/ros`, in memory.
    #[cfg(test)]
    pub(crate) fn test_bag(name: &str) -> Self {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/ros")
            .join(name);
        Bytes::owned(std::fs::read(path).unwrap())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &*self.0 {
            Held::Mapped(map) => map,
            Held::Owned(bytes) => bytes,
        }
    }
}

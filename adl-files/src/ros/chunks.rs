//! [`ChunkCache`]: a bag file's chunks, decompressed, the few most
//! recently read kept, so that the messages of one chunk read one after
//! another decompress it once.

use std::sync::{Arc, Mutex};

use adl_core::Result;

/// Decompressed chunks kept at once (the most recently used).
const CACHED_CHUNKS: usize = 4;

/// The most recently read chunks of one file, decompressed.
#[derive(Default)]
pub(crate) struct ChunkCache(Mutex<Vec<(u32, Arc<Vec<u8>>)>>);

impl ChunkCache {
    /// Chunk `k`'s records: from the cache, or `decompress`ed and kept.
    pub(crate) fn get(
        &self,
        k: u32,
        decompress: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<Arc<Vec<u8>>> {
        {
            let mut cache = self.0.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(at) = cache.iter().position(|(id, _)| *id == k) {
                let hit = cache.remove(at);
                let records = Arc::clone(&hit.1);
                cache.push(hit);
                return Ok(records);
            }
        }
        let records = Arc::new(decompress()?);
        let mut cache = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= CACHED_CHUNKS {
            cache.remove(0);
        }
        cache.push((k, Arc::clone(&records)));
        Ok(records)
    }
}

//! [`ChunkedFile`]: a bag file whose messages are in chunks (MCAP, ROS 1),
//! indexed: its bytes, its chunks, its channels and where it is damaged;
//! each chunk read in place where it is stored uncompressed, else
//! decompressed (zstd, lz4, bz2) once while it is among the few most
//! recently read ([`ChunkCache`]).

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use adl_core::{Error, Result};

use super::bytes::Bytes;
use super::index::{Channel, Place};
use crate::object::Object;

/// Bytes `start..end` of a file being indexed (`None` where they cannot
/// be read): bytes borrowed for `'a` (of a mapped file) or owned, from a
/// reader that lives for `'f`.
pub(crate) type Ranges<'a, 'f> = dyn Fn(u64, u64) -> Option<Cow<'a, [u8]>> + 'f;

/// How a chunk's records are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Zstd,
    Lz4,
    Bz2,
}

/// A chunk: its stored records' place in the file, and how to read them.
#[derive(Debug, Clone)]
pub(crate) struct Chunk {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) compression: Compression,
    pub(crate) uncompressed: usize,
}

/// A bag file of chunks, and what indexing it found.
pub(crate) struct ChunkedFile {
    pub(crate) path: PathBuf,
    pub(crate) bytes: Bytes,
    pub(crate) chunks: Vec<Chunk>,
    pub(crate) channels: Vec<Channel>,
    /// Where the file is damaged, in words, if it is.
    pub(crate) damage: Option<String>,
    /// The object in a store the file is, where it is one: its chunks are
    /// read by range (`bytes` is then empty).
    pub(crate) remote: Option<Object>,
    cache: ChunkCache,
    /// While it is indexed: its progress through the file's bytes.
    progress: Option<adl_core::progress::Progress>,
}

impl ChunkedFile {
    /// `bytes`, read from `path`, indexed by `from_index` (the file's own
    /// indexes), or where that finds them unusable (false), by `scan`
    /// from the start; each channel's messages then by log time.
    pub(crate) fn index(
        path: &Path,
        bytes: Bytes,
        from_index: impl FnOnce(&mut ChunkedFile) -> bool,
        scan: impl FnOnce(&mut ChunkedFile),
    ) -> ChunkedFile {
        let mut file = ChunkedFile::empty(path);
        let name = path
            .file_name()
            .unwrap_or(path.as_os_str())
            .to_string_lossy();
        file.progress = Some(adl_core::progress::Progress::bytes(
            format!("indexing {name}"),
            bytes.len() as u64,
        ));
        file.bytes = bytes;
        if !from_index(&mut file) {
            file.chunks.clear();
            file.channels.clear();
            scan(&mut file);
        }
        if let Some(progress) = file.progress.take() {
            progress.finish();
        }
        file.sorted()
    }

    /// While it is indexed: the bytes before `offset` are.
    pub(crate) fn indexed_to(&mut self, offset: u64) {
        if let Some(progress) = &mut self.progress {
            progress.set(offset);
        }
    }

    /// Nothing indexed yet, of the file at `path`.
    pub(crate) fn empty(path: &Path) -> ChunkedFile {
        ChunkedFile {
            path: path.to_owned(),
            bytes: Bytes::owned(Vec::new()),
            chunks: Vec::new(),
            channels: Vec::new(),
            damage: None,
            remote: None,
            cache: ChunkCache::default(),
            progress: None,
        }
    }

    /// Whether `index` finds a usable index in this file's bytes (mapped
    /// or in memory), given ranges of them.
    pub(crate) fn index_bytes(
        &mut self,
        index: impl for<'a, 'f> FnOnce(&mut ChunkedFile, u64, &'f Ranges<'a, 'f>) -> Option<()>,
    ) -> bool {
        let bytes = self.bytes.clone();
        let read = |start: u64, end: u64| -> Option<Cow<'_, [u8]>> {
            bytes
                .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
                .map(Cow::Borrowed)
        };
        index(self, bytes.len() as u64, &read).is_some()
    }

    /// The file `object` of `size` bytes in a store, indexed by `index`
    /// through ranged reads of it; `None` where `index` finds no usable
    /// index in it (a read that fails is the error, whatever `index` then
    /// says).
    #[cfg_attr(not(feature = "_object-store"), allow(dead_code))]
    pub(crate) fn index_object(
        path: &Path,
        object: Object,
        size: u64,
        index: impl for<'f> FnOnce(&mut ChunkedFile, u64, &'f Ranges<'static, 'f>) -> Option<()>,
    ) -> Result<Option<ChunkedFile>> {
        let failed = std::cell::RefCell::new(None);
        // Each ranged read is a round trip to the store (a chunk's message
        // indexes, one at a time): on a terminal, the bytes read so far
        // where that takes long.
        let name = path
            .file_name()
            .unwrap_or(path.as_os_str())
            .to_string_lossy();
        let progress = std::cell::RefCell::new(adl_core::progress::Progress::bytes_read(format!(
            "indexing {name} by ranged reads"
        )));
        let read = |start: u64, end: u64| -> Option<Cow<'static, [u8]>> {
            match object.get_range(start..end) {
                Ok(data) => {
                    progress.borrow_mut().add(data.len() as u64);
                    Some(Cow::Owned(data.to_vec()))
                }
                Err(e) => {
                    failed.borrow_mut().get_or_insert(e);
                    None
                }
            }
        };
        let mut file = ChunkedFile::empty(path);
        let indexed = index(&mut file, size, &read).is_some();
        progress.into_inner().finish();
        if let Some(e) = failed.into_inner() {
            return Err(e);
        }
        if !indexed {
            return Ok(None);
        }
        file.remote = Some(object);
        Ok(Some(file.sorted()))
    }

    /// Each channel's messages by log time.
    pub(crate) fn sorted(mut self) -> ChunkedFile {
        for channel in &mut self.channels {
            channel.entries.sort_by_key(|e| e.log_time);
        }
        self
    }

    /// Note that the file is damaged at byte `at`, and why; the messages
    /// indexed so far are kept.
    pub(crate) fn damaged(&mut self, at: usize, why: String) {
        let kept: usize = self.channels.iter().map(|c| c.entries.len()).sum();
        self.damage = Some(format!(
            "damaged at byte {at} of {}: {why}; the {kept} messages before it are kept",
            self.bytes.len()
        ));
    }

    /// The bytes of the message at `place`: `locate` finds its data in the
    /// records there (an offset into the file or into a chunk's records)
    /// as a range of them, or says why it cannot.
    pub(crate) fn message(
        &self,
        place: Place,
        locate: impl Fn(&[u8], usize) -> std::result::Result<Range<usize>, String>,
    ) -> Result<MessageBytes> {
        // An uncompressed chunk's records are read where they lie in the
        // file, without a copy; a compressed one's from the cache.
        let (records, offset) = match place {
            Place::File(offset) => (None, offset as usize),
            Place::Chunk { chunk, offset } => match self.chunks.get(chunk as usize) {
                Some(c) if c.compression == Compression::None && self.remote.is_none() => {
                    if offset as usize >= c.end - c.start {
                        return Err(self.error(format!(
                            "a message at byte {offset} of chunk {chunk}, past its end"
                        )));
                    }
                    (None, c.start + offset as usize)
                }
                _ => (
                    Some(self.cache.get(chunk, || self.decompress(chunk))?),
                    offset as usize,
                ),
            },
        };
        let all: &[u8] = records.as_deref().map_or(&self.bytes, Vec::as_slice);
        let range = locate(all, offset).map_err(|why| self.error(why))?;
        Ok(match records {
            Some(records) => MessageBytes::Chunk(records, range),
            None => MessageBytes::File(self.bytes.clone(), range),
        })
    }

    /// Chunk `k`'s records, decompressed (or copied, where they are
    /// stored as they are). A size no compression could give (damage, or
    /// a bomb) is refused before it is allocated, and no codec is let
    /// write past the size the chunk's header says.
    pub(crate) fn decompress(&self, k: u32) -> Result<Vec<u8>> {
        let chunk = (self.chunks.get(k as usize))
            .ok_or_else(|| self.error(format!("no chunk {k}, as an index says")))?;
        let fetched;
        let data: &[u8] = match &self.remote {
            Some(object) => {
                fetched = object.get_range(chunk.start as u64..chunk.end as u64)?;
                &fetched
            }
            None => &self.bytes[chunk.start..chunk.end],
        };
        let fail = |e: &dyn std::fmt::Display| {
            self.error(format!(
                "chunk {k} does not decompress ({:?}): {e}",
                chunk.compression
            ))
        };
        let plausible = data
            .len()
            .saturating_mul(MAX_RATIO)
            .saturating_add(RATIO_SLACK);
        if chunk.uncompressed > plausible {
            return Err(self.error(format!(
                "chunk {k} says it holds {} bytes in {} compressed: more than {MAX_RATIO} to 1, \
                 which no real chunk is (the file is damaged)",
                chunk.uncompressed,
                data.len()
            )));
        }
        let mut out = Vec::with_capacity(chunk.uncompressed);
        let limit = chunk.uncompressed as u64 + 1;
        match chunk.compression {
            Compression::None => out.extend_from_slice(data),
            Compression::Zstd => {
                let decoder = zstd::stream::Decoder::with_buffer(data).map_err(|e| fail(&e))?;
                decoder
                    .take(limit)
                    .read_to_end(&mut out)
                    .map_err(|e| fail(&e))?;
            }
            Compression::Lz4 => {
                (lz4_flex::frame::FrameDecoder::new(data).take(limit))
                    .read_to_end(&mut out)
                    .map_err(|e| fail(&e))?;
            }
            Compression::Bz2 => {
                (bzip2::read::BzDecoder::new(data).take(limit))
                    .read_to_end(&mut out)
                    .map_err(|e| fail(&e))?;
            }
        }
        if out.len() != chunk.uncompressed {
            let what = if out.len() > chunk.uncompressed {
                "more than"
            } else {
                "not"
            };
            return Err(self.error(format!(
                "chunk {k} decompresses to {what} the {} bytes its header says ({} read)",
                chunk.uncompressed,
                out.len()
            )));
        }
        Ok(out)
    }

    /// An error naming the file.
    pub(crate) fn error(&self, why: impl std::fmt::Display) -> Error {
        Error::file(&self.path, why)
    }
}

/// The most a chunk's records may be said to grow by compression, and
/// the size allowed beyond it: zstd and bz2 reach a few hundred to one on
/// real data, lz4 at most 255.
const MAX_RATIO: usize = 1024;
const RATIO_SLACK: usize = 16 << 20;

/// Decompressed chunks kept at once (the most recently used), and the
/// bytes they may hold together (the newest is kept whatever its size).
const CACHED_CHUNKS: usize = 4;
const CACHED_BYTES: usize = 256 << 20;

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
        cache.push((k, Arc::clone(&records)));
        let held = |c: &[(u32, Arc<Vec<u8>>)]| c.iter().map(|(_, r)| r.len()).sum::<usize>();
        while cache.len() > CACHED_CHUNKS || (cache.len() > 1 && held(&cache) > CACHED_BYTES) {
            cache.remove(0);
        }
        Ok(records)
    }
}

/// A message's bytes: in the file, or in a decompressed chunk, kept alive
/// as long as the message is being decoded.
pub(crate) enum MessageBytes {
    File(Bytes, std::ops::Range<usize>),
    Chunk(Arc<Vec<u8>>, std::ops::Range<usize>),
    /// Bytes of the message's own (a row read, a message decompressed).
    Owned(Vec<u8>),
}

impl std::ops::Deref for MessageBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            MessageBytes::File(bytes, range) => &bytes[range.clone()],
            MessageBytes::Chunk(records, range) => &records[range.clone()],
            MessageBytes::Owned(bytes) => bytes,
        }
    }
}

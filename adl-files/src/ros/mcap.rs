//! MCAP files (a standalone `.mcap`, or a rosbag2 file in MCAP storage),
//! indexed once: each channel's messages, by log time, as places in the
//! file (a byte offset, or a chunk and an offset in it), so that a message
//! is read by index without reading the others.
//!
//! Foxglove's `mcap` crate parses the records and the summary (chunk and
//! message indexes); chunks are decompressed here (zstd, lz4), each once
//! while it is in a small cache. A file without a summary (a recording cut
//! off) is scanned instead, and one damaged part way keeps the messages
//! before the damage, saying where it is.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use adl_core::{Error, Result};
use mcap::records::{Record, op};

use super::bytes::Bytes;
use super::chunks::ChunkCache;
use super::index::{Channel, Entry, Place};

/// A chunk's place in the file and how its records are compressed.
#[derive(Debug, Clone)]
struct Chunk {
    /// Its compressed records, a range of the file.
    start: usize,
    end: usize,
    compression: Compression,
    uncompressed: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    None,
    Zstd,
    Lz4,
}

/// One MCAP file, indexed.
pub(crate) struct McapFile {
    path: PathBuf,
    bytes: Bytes,
    chunks: Vec<Chunk>,
    pub(crate) channels: Vec<Channel>,
    /// Where the file is damaged, in words, if it is.
    pub(crate) damage: Option<String>,
    cache: ChunkCache,
}

const MAGIC: &[u8] = b"\x89MCAP0\r\n";

impl McapFile {
    /// Index the MCAP file `bytes`, read from `path`.
    pub(crate) fn open(path: &Path, bytes: Bytes) -> Result<McapFile> {
        if !bytes.starts_with(MAGIC) {
            return Err(Error::file(
                path,
                "not an MCAP file: it does not start with MCAP's magic",
            ));
        }
        let mut file = McapFile {
            path: path.to_owned(),
            bytes,
            chunks: Vec::new(),
            channels: Vec::new(),
            damage: None,
            cache: ChunkCache::default(),
        };
        if !file.index_from_summary() {
            file.chunks.clear();
            file.channels.clear();
            file.scan();
        }
        for channel in &mut file.channels {
            channel.entries.sort_by_key(|e| e.log_time);
        }
        Ok(file)
    }

    /// Index from the summary's chunk and message indexes, without
    /// decompressing a chunk. False where the file has no usable summary.
    fn index_from_summary(&mut self) -> bool {
        let Ok(Some(summary)) = mcap::read::Summary::read(&self.bytes) else {
            return false;
        };
        if summary.chunk_indexes.is_empty()
            || summary
                .chunk_indexes
                .iter()
                .any(|c| c.message_index_offsets.is_empty())
        {
            return false;
        }
        let mut ids: HashMap<u16, usize> = HashMap::new();
        for (k, index) in summary.chunk_indexes.iter().enumerate() {
            let Some(chunk) = chunk_at(&self.bytes, index.chunk_start_offset as usize) else {
                return false;
            };
            self.chunks.push(chunk);
            let Ok(messages) = summary.read_message_indexes(&self.bytes, index) else {
                return false;
            };
            for (channel, entries) in messages {
                let at = *ids.entry(channel.id).or_insert_with(|| {
                    self.channels.push(Channel {
                        topic: channel.topic.clone(),
                        message_encoding: channel.message_encoding.clone(),
                        schema_name: (channel.schema.as_ref())
                            .map(|s| s.name.clone())
                            .unwrap_or_default(),
                        schema_encoding: (channel.schema.as_ref())
                            .map(|s| s.encoding.clone())
                            .unwrap_or_default(),
                        schema: (channel.schema.as_ref())
                            .map(|s| s.data.to_vec())
                            .unwrap_or_default(),
                        entries: Vec::new(),
                    });
                    self.channels.len() - 1
                });
                self.channels[at]
                    .entries
                    .extend(entries.iter().map(|e| Entry {
                        log_time: e.log_time,
                        place: Place::Chunk {
                            chunk: k as u32,
                            offset: e.offset,
                        },
                    }));
            }
        }
        true
    }

    /// Index by reading the file's records from the start (and each
    /// chunk's), up to its end or to damage, which is noted.
    fn scan(&mut self) {
        let bytes = self.bytes.clone();
        let mut schemas: HashMap<u16, (String, String, Vec<u8>)> = HashMap::new();
        let mut ids: HashMap<u16, usize> = HashMap::new();
        let mut pos = MAGIC.len();
        while pos < bytes.len() {
            let (opcode, body, next) = match record_at(&bytes, pos) {
                Ok(r) => r,
                Err(why) => {
                    self.damaged(pos, why);
                    return;
                }
            };
            match opcode {
                op::FOOTER | op::DATA_END => return,
                op::CHUNK => {
                    let Some(chunk) = chunk_at(&bytes, pos) else {
                        self.damaged(pos, "a chunk record that does not parse".into());
                        return;
                    };
                    let k = self.chunks.len() as u32;
                    self.chunks.push(chunk);
                    let records = match self.chunk_records(k) {
                        Ok(records) => records,
                        Err(e) => {
                            self.chunks.pop();
                            self.damaged(pos, format!("{e:#}"));
                            return;
                        }
                    };
                    let mut inner = 0;
                    while inner < records.len() {
                        let Ok((opcode, body, next)) = record_at(&records, inner) else {
                            self.damaged(
                                pos,
                                format!("chunk {k}'s records are cut at byte {inner}"),
                            );
                            return;
                        };
                        let place = Place::Chunk {
                            chunk: k,
                            offset: inner as u64,
                        };
                        if let Err(why) = self.note(opcode, body, place, &mut schemas, &mut ids) {
                            self.damaged(pos, why);
                            return;
                        }
                        inner = next;
                    }
                }
                _ => {
                    if let Err(why) = self.note(
                        opcode,
                        body,
                        Place::File(pos as u64),
                        &mut schemas,
                        &mut ids,
                    ) {
                        self.damaged(pos, why);
                        return;
                    }
                }
            }
            pos = next;
        }
        self.damaged(
            pos,
            "the file ends without MCAP's footer: it was cut off".into(),
        );
    }

    /// Take note of one record: a schema, a channel or a message.
    fn note(
        &mut self,
        opcode: u8,
        body: &[u8],
        place: Place,
        schemas: &mut HashMap<u16, (String, String, Vec<u8>)>,
        ids: &mut HashMap<u16, usize>,
    ) -> std::result::Result<(), String> {
        match opcode {
            op::SCHEMA => {
                if let Ok(Record::Schema { header, data }) = mcap::read::parse_record(opcode, body)
                {
                    schemas.insert(header.id, (header.name, header.encoding, data.into_owned()));
                }
            }
            op::CHANNEL => {
                if let Ok(Record::Channel(c)) = mcap::read::parse_record(opcode, body) {
                    let (name, encoding, data) =
                        schemas.get(&c.schema_id).cloned().unwrap_or_default();
                    ids.entry(c.id).or_insert_with(|| {
                        self.channels.push(Channel {
                            topic: c.topic,
                            message_encoding: c.message_encoding,
                            schema_name: name,
                            schema_encoding: encoding,
                            schema: data,
                            entries: Vec::new(),
                        });
                        self.channels.len() - 1
                    });
                }
            }
            op::MESSAGE => {
                let (channel, log_time) = message_header(body)
                    .ok_or_else(|| "a message record shorter than its header".to_owned())?;
                let at = *ids.get(&channel).ok_or_else(|| {
                    format!("a message on channel {channel}, which no channel record defines")
                })?;
                self.channels[at].entries.push(Entry { log_time, place });
            }
            _ => {}
        }
        Ok(())
    }

    fn damaged(&mut self, at: usize, why: String) {
        let kept: usize = self.channels.iter().map(|c| c.entries.len()).sum();
        self.damage = Some(format!(
            "damaged at byte {at} of {}: {why}; the {kept} messages before it are kept",
            self.bytes.len()
        ));
    }

    /// The bytes of the message at `place`: its data, after the record's
    /// header.
    pub(crate) fn message(&self, place: Place) -> Result<MessageBytes> {
        // An uncompressed chunk's records are read where they lie in the
        // file, without a copy; a compressed one's from the cache.
        let (records, offset) = match place {
            Place::File(offset) => (None, offset as usize),
            Place::Chunk { chunk, offset } => match self.chunks.get(chunk as usize) {
                Some(c) if c.compression == Compression::None => {
                    if offset as usize >= c.end - c.start {
                        return Err(self.error(format!(
                            "a message at byte {offset} of chunk {chunk}, past its end"
                        )));
                    }
                    (None, c.start + offset as usize)
                }
                _ => (Some(self.chunk(chunk)?), offset as usize),
            },
        };
        let all: &[u8] = records.as_deref().map_or(&self.bytes, Vec::as_slice);
        let (opcode, body, _) = record_at(all, offset).map_err(|why| self.error(why))?;
        if opcode != op::MESSAGE || body.len() < 22 {
            return Err(self.error(format!(
                "no message record at byte {offset} as its index says"
            )));
        }
        let start = body.as_ptr() as usize - all.as_ptr() as usize + 22;
        let end = start + body.len() - 22;
        Ok(match records {
            Some(records) => MessageBytes::Chunk(records, start..end),
            None => MessageBytes::File(self.bytes.clone(), start..end),
        })
    }

    /// Chunk `k`'s records, decompressed (from the cache where they are).
    fn chunk(&self, k: u32) -> Result<Arc<Vec<u8>>> {
        self.cache.get(k, || self.chunk_records(k))
    }

    /// Decompress chunk `k`'s records.
    fn chunk_records(&self, k: u32) -> Result<Vec<u8>> {
        let chunk = (self.chunks.get(k as usize))
            .ok_or_else(|| self.error(format!("no chunk {k}, as an index says")))?;
        let data = &self.bytes[chunk.start..chunk.end];
        let records = match chunk.compression {
            Compression::None => data.to_vec(),
            Compression::Zstd => {
                let fail = |e: &dyn std::fmt::Display| {
                    self.error(format!("chunk {k} does not decompress (zstd): {e}"))
                };
                // The frame says its size: a damaged header's claim is not
                // allocated before it is checked.
                match zstd::zstd_safe::get_frame_content_size(data) {
                    Ok(Some(n)) if n == chunk.uncompressed as u64 => {
                        zstd::bulk::decompress(data, chunk.uncompressed).map_err(|e| fail(&e))?
                    }
                    Ok(Some(n)) => {
                        return Err(self.error(format!(
                            "chunk {k}'s zstd frame holds {n} bytes, not the {} its header says",
                            chunk.uncompressed
                        )));
                    }
                    Ok(None) => zstd::stream::decode_all(data).map_err(|e| fail(&e))?,
                    Err(e) => return Err(fail(&e)),
                }
            }
            Compression::Lz4 => {
                let mut out =
                    Vec::with_capacity(chunk.uncompressed.min(data.len().saturating_mul(16)));
                lz4_flex::frame::FrameDecoder::new(data)
                    .read_to_end(&mut out)
                    .map_err(|e| self.error(format!("chunk {k} does not decompress (lz4): {e}")))?;
                out
            }
        };
        if records.len() != chunk.uncompressed {
            return Err(self.error(format!(
                "chunk {k} decompresses to {} bytes, not the {} its header says",
                records.len(),
                chunk.uncompressed
            )));
        }
        Ok(records)
    }

    pub(crate) fn error(&self, why: impl std::fmt::Display) -> Error {
        Error::file(&self.path, why)
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

/// The record at `pos`: its opcode, its body and where the next begins.
fn record_at(bytes: &[u8], pos: usize) -> std::result::Result<(u8, &[u8], usize), String> {
    let head = bytes
        .get(pos..pos + 9)
        .ok_or_else(|| "a record's header is cut off".to_owned())?;
    let len = u64::from_le_bytes(head[1..9].try_into().expect("8 bytes"));
    let end = (pos as u64 + 9)
        .checked_add(len)
        .filter(|&e| e <= bytes.len() as u64);
    match end {
        Some(end) => Ok((head[0], &bytes[pos + 9..end as usize], end as usize)),
        None => Err(format!(
            "a record of {len} bytes (opcode {:#04x}) runs past the end of the data",
            head[0]
        )),
    }
}

/// A message record's channel and log time.
fn message_header(body: &[u8]) -> Option<(u16, u64)> {
    let channel = u16::from_le_bytes(body.get(0..2)?.try_into().ok()?);
    let log_time = u64::from_le_bytes(body.get(6..14)?.try_into().ok()?);
    Some((channel, log_time))
}

/// The chunk record at `pos`: where its records are and how compressed.
fn chunk_at(bytes: &[u8], pos: usize) -> Option<Chunk> {
    let (opcode, body, _) = record_at(bytes, pos).ok()?;
    if opcode != op::CHUNK {
        return None;
    }
    let uncompressed = u64::from_le_bytes(body.get(16..24)?.try_into().ok()?);
    let name_len = u32::from_le_bytes(body.get(28..32)?.try_into().ok()?) as usize;
    let name = body.get(32..32 + name_len)?;
    let compression = match name {
        b"" => Compression::None,
        b"zstd" => Compression::Zstd,
        b"lz4" => Compression::Lz4,
        _ => return None,
    };
    let at = 32 + name_len;
    let len = u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?) as usize;
    let records = body.get(at + 8..(at + 8).checked_add(len)?)?;
    let start = records.as_ptr() as usize - bytes.as_ptr() as usize;
    Some(Chunk {
        start,
        end: start + records.len(),
        compression,
        uncompressed: usize::try_from(uncompressed).ok()?,
    })
}

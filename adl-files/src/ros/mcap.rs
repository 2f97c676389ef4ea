//! MCAP files (a standalone `.mcap`, or a rosbag2 file in MCAP storage),
//! indexed once: each channel's messages, by log time, as places in the
//! file (a byte offset, or a chunk and an offset in it), so that a message
//! is read by index without reading the others.
//!
//! The records are read here, each length checked against the record
//! before anything is taken from it (Foxglove's `mcap` crate, tried first,
//! allocates a string's length as the file says before reading it: a
//! damaged file asked it for gigabytes, which the fuzzer found); chunks are
//! decompressed each once while in a small cache. The summary (its
//! schemas, channels and chunk indexes, then each chunk's message indexes)
//! indexes a file without decompressing a chunk; a file without one (a
//! recording cut off) is scanned instead, and one damaged part way keeps
//! the messages before the damage, saying where it is.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use adl_core::{Error, Result};

use super::bytes::Bytes;
use super::chunks::{Chunk, ChunkedFile, Compression, Ranges};
use super::index::{Channel, Entry, Place};
use crate::object::Object;

const MAGIC: &[u8] = b"\x89MCAP0\r\n";

/// The record opcodes read here.
mod op {
    pub(super) const FOOTER: u8 = 0x02;
    pub(super) const SCHEMA: u8 = 0x03;
    pub(super) const CHANNEL: u8 = 0x04;
    pub(super) const MESSAGE: u8 = 0x05;
    pub(super) const CHUNK: u8 = 0x06;
    pub(super) const MESSAGE_INDEX: u8 = 0x07;
    pub(super) const CHUNK_INDEX: u8 = 0x08;
    pub(super) const DATA_END: u8 = 0x0F;
}

/// A record's body read field by field, each length checked against what
/// is left of the body.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.len() >= n).then(|| self.0.split_at(n))?;
        self.0 = rest;
        Some(head)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A `u32`-prefixed byte array (a string, a schema's data, a map).
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn string(&mut self) -> Option<String> {
        Some(String::from_utf8_lossy(self.bytes()?).into_owned())
    }
}

/// A schema: its name, encoding and definition.
type Schema = (String, String, Vec<u8>);

/// A schema record's id and schema.
fn schema(body: &[u8]) -> Option<(u16, Schema)> {
    let mut f = Fields(body);
    let id = f.u16()?;
    let (name, encoding) = (f.string()?, f.string()?);
    Some((id, (name, encoding, f.bytes()?.to_vec())))
}

/// A channel record's id, schema id, topic and message encoding.
fn channel(body: &[u8]) -> Option<(u16, u16, String, String)> {
    let mut f = Fields(body);
    let (id, schema) = (f.u16()?, f.u16()?);
    Some((id, schema, f.string()?, f.string()?))
}

/// The channel of `schemas`' schema `schema_id` (none: no definition).
fn new_channel(topic: String, message_encoding: String, schema: Option<&Schema>) -> Channel {
    let (name, encoding, data) = schema.cloned().unwrap_or_default();
    Channel {
        topic,
        message_encoding,
        schema_name: name,
        schema_encoding: encoding,
        schema: data,
        entries: Vec::new(),
    }
}

/// Index the MCAP file `bytes`, read from `path`.
pub(crate) fn open(path: &Path, bytes: Bytes) -> Result<ChunkedFile> {
    if !bytes.starts_with(MAGIC) {
        return Err(Error::file(
            path,
            "not an MCAP file: it does not start with MCAP's magic",
        ));
    }
    Ok(ChunkedFile::index(path, bytes, index_from_summary, scan))
}

/// Index from the summary's chunk and message indexes, without
/// decompressing a chunk. False where the file has no usable summary.
fn index_from_summary(file: &mut ChunkedFile) -> bool {
    file.index_bytes(index_summary)
}

/// Index the MCAP object `object` from its summary, reading only its
/// first bytes, its footer, its summary and each chunk's message indexes,
/// by ranges; `None` where it has no usable summary.
#[cfg_attr(not(feature = "_object-store"), allow(dead_code))]
pub(crate) fn open_object(path: &Path, object: Object) -> Result<Option<ChunkedFile>> {
    let (head, size) = object.get_start(MAGIC.len() as u64)?;
    if !head.starts_with(MAGIC) {
        return Err(Error::file(
            path,
            "not an MCAP file: it does not start with MCAP's magic",
        ));
    }
    ChunkedFile::index_object(path, object, size, index_summary)
}

/// A chunk index, as the summary gives it.
struct ChunkIndex {
    /// The chunk record's byte in the file.
    start: u64,
    /// Each channel's message index record, by channel.
    offsets: Vec<(u16, u64)>,
    /// The bytes of the chunk's message index records, together.
    index_length: u64,
    compression: Vec<u8>,
    compressed: u64,
    uncompressed: u64,
}

/// Index `file` (of `size` bytes, its ranges given by `read`) from its
/// footer, its summary and its message indexes.
fn index_summary<'a>(file: &mut ChunkedFile, size: u64, read: &Ranges<'a, '_>) -> Option<()> {
    // The footer: the last record, before the closing magic.
    let footer_at = size.checked_sub((MAGIC.len() + 9 + 20) as u64)?;
    let tail = read(footer_at, size)?;
    if !tail.ends_with(MAGIC) {
        return None;
    }
    let (opcode, body, _) = record_at(&tail, 0).ok()?;
    let summary_start = Fields(body).u64()?;
    if opcode != op::FOOTER || summary_start == 0 || summary_start > footer_at {
        return None;
    }
    let summary = read(summary_start, footer_at)?;
    let mut schemas: HashMap<u16, Schema> = HashMap::new();
    let mut channels: HashMap<u16, (String, String, u16)> = HashMap::new();
    let mut chunk_indexes: Vec<ChunkIndex> = Vec::new();
    let mut pos = 0;
    while pos < summary.len() {
        let (opcode, body, next) = record_at(&summary, pos).ok()?;
        match opcode {
            op::SCHEMA => {
                let (id, s) = schema(body)?;
                schemas.insert(id, s);
            }
            op::CHANNEL => {
                let (id, schema_id, topic, encoding) = channel(body)?;
                channels.insert(id, (topic, encoding, schema_id));
            }
            op::CHUNK_INDEX => {
                let mut f = Fields(body);
                let _times = (f.u64()?, f.u64()?);
                let start = f.u64()?;
                let _length = f.u64()?;
                let mut map = Fields(f.bytes()?);
                let mut offsets = Vec::new();
                while !map.0.is_empty() {
                    offsets.push((map.u16()?, map.u64()?));
                }
                chunk_indexes.push(ChunkIndex {
                    start,
                    offsets,
                    index_length: f.u64()?,
                    compression: f.bytes()?.to_vec(),
                    compressed: f.u64()?,
                    uncompressed: f.u64()?,
                });
            }
            _ => {}
        }
        pos = next;
    }
    if chunk_indexes.is_empty() || chunk_indexes.iter().any(|c| c.offsets.is_empty()) {
        return None;
    }
    let mut ids: HashMap<u16, usize> = HashMap::new();
    for (k, index) in chunk_indexes.into_iter().enumerate() {
        // The chunk's records follow its header: opcode and length (9),
        // two times, its size and CRC (28), its compression (4 + n) and
        // the records' length (8).
        let records = index
            .start
            .checked_add(49 + index.compression.len() as u64)?;
        let end = records
            .checked_add(index.compressed)
            .filter(|&end| end <= size)?;
        file.chunks.push(Chunk {
            start: usize::try_from(records).ok()?,
            end: usize::try_from(end).ok()?,
            compression: match index.compression.as_slice() {
                b"" => Compression::None,
                b"zstd" => Compression::Zstd,
                b"lz4" => Compression::Lz4,
                _ => return None,
            },
            uncompressed: usize::try_from(index.uncompressed).ok()?,
        });
        file.indexed_to(index.start);
        // The chunk's message indexes, read at once.
        let base = index.offsets.iter().map(|&(_, o)| o).min()?;
        let block = read(base, base.checked_add(index.index_length)?.min(size))?;
        for (channel_id, offset) in index.offsets {
            let (opcode, body, _) = record_at(&block, usize::try_from(offset - base).ok()?).ok()?;
            let mut f = Fields(body);
            if opcode != op::MESSAGE_INDEX || f.u16()? != channel_id {
                return None;
            }
            let at = match ids.get(&channel_id) {
                Some(&at) => at,
                None => {
                    let (topic, encoding, schema_id) = channels.get(&channel_id)?.clone();
                    file.channels
                        .push(new_channel(topic, encoding, schemas.get(&schema_id)));
                    ids.insert(channel_id, file.channels.len() - 1);
                    file.channels.len() - 1
                }
            };
            let mut entries = Fields(f.bytes()?);
            while !entries.0.is_empty() {
                let (log_time, offset) = (entries.u64()?, entries.u64()?);
                file.channels[at].entries.push(Entry {
                    log_time,
                    place: Place::Chunk {
                        chunk: k as u32,
                        offset,
                    },
                });
            }
        }
    }
    // The channels no chunk indexes (declared, nothing recorded: ROS 2's
    // `/parameter_events` of a node that changed none), in the order of
    // their ids, with no messages, as rosbags and mcap list them.
    let mut silent: Vec<(&u16, &(String, String, u16))> = channels
        .iter()
        .filter(|(id, _)| !ids.contains_key(id))
        .collect();
    silent.sort_by_key(|(id, _)| **id);
    for (_, (topic, encoding, schema_id)) in silent {
        file.channels.push(new_channel(
            topic.clone(),
            encoding.clone(),
            schemas.get(schema_id),
        ));
    }
    Some(())
}

/// Index by reading the file's records from the start (and each chunk's),
/// up to its end or to damage, which is noted.
fn scan(file: &mut ChunkedFile) {
    let bytes = file.bytes.clone();
    let mut schemas: HashMap<u16, Schema> = HashMap::new();
    let mut ids: HashMap<u16, usize> = HashMap::new();
    let mut pos = MAGIC.len();
    while pos < bytes.len() {
        let (opcode, body, next) = match record_at(&bytes, pos) {
            Ok(r) => r,
            Err(why) => {
                file.damaged(pos, why);
                return;
            }
        };
        match opcode {
            op::FOOTER | op::DATA_END => return,
            op::CHUNK => {
                file.indexed_to(pos as u64);
                let Some(chunk) = chunk_at(&bytes, pos) else {
                    file.damaged(pos, "a chunk record that does not parse".into());
                    return;
                };
                let k = file.chunks.len() as u32;
                file.chunks.push(chunk);
                let records = match file.decompress(k) {
                    Ok(records) => records,
                    Err(e) => {
                        file.chunks.pop();
                        file.damaged(pos, format!("{e:#}"));
                        return;
                    }
                };
                let mut inner = 0;
                while inner < records.len() {
                    let Ok((opcode, body, next)) = record_at(&records, inner) else {
                        file.damaged(pos, format!("chunk {k}'s records are cut at byte {inner}"));
                        return;
                    };
                    let place = Place::Chunk {
                        chunk: k,
                        offset: inner as u64,
                    };
                    if let Err(why) = note(file, opcode, body, place, &mut schemas, &mut ids) {
                        file.damaged(pos, why);
                        return;
                    }
                    inner = next;
                }
            }
            _ => {
                if let Err(why) = note(
                    file,
                    opcode,
                    body,
                    Place::File(pos as u64),
                    &mut schemas,
                    &mut ids,
                ) {
                    file.damaged(pos, why);
                    return;
                }
            }
        }
        pos = next;
    }
    file.damaged(
        pos,
        "the file ends without MCAP's footer: it was cut off".into(),
    );
}

/// Take note of one record: a schema, a channel or a message.
fn note(
    file: &mut ChunkedFile,
    opcode: u8,
    body: &[u8],
    place: Place,
    schemas: &mut HashMap<u16, Schema>,
    ids: &mut HashMap<u16, usize>,
) -> std::result::Result<(), String> {
    match opcode {
        op::SCHEMA => {
            if let Some((id, s)) = schema(body) {
                schemas.insert(id, s);
            }
        }
        op::CHANNEL => {
            if let Some((id, schema_id, topic, encoding)) = channel(body) {
                ids.entry(id).or_insert_with(|| {
                    file.channels
                        .push(new_channel(topic, encoding, schemas.get(&schema_id)));
                    file.channels.len() - 1
                });
            }
        }
        op::MESSAGE => {
            let (channel, log_time) = message_header(body)
                .ok_or_else(|| "a message record shorter than its header".to_owned())?;
            let at = *ids.get(&channel).ok_or_else(|| {
                format!("a message on channel {channel}, which no channel record defines")
            })?;
            file.channels[at].entries.push(Entry { log_time, place });
        }
        _ => {}
    }
    Ok(())
}

/// Where the data of the message record at `offset` of `records` is.
pub(crate) fn locate(records: &[u8], offset: usize) -> std::result::Result<Range<usize>, String> {
    let (opcode, body, _) = record_at(records, offset)?;
    if opcode != op::MESSAGE || body.len() < 22 {
        return Err(format!(
            "no message record at byte {offset} as its index says"
        ));
    }
    let start = body.as_ptr() as usize - records.as_ptr() as usize + 22;
    Ok(start..start + body.len() - 22)
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
    let mut f = Fields(body);
    let _times = (f.u64()?, f.u64()?);
    let uncompressed = f.u64()?;
    let _crc = f.u32()?;
    let compression = match f.bytes()? {
        b"" => Compression::None,
        b"zstd" => Compression::Zstd,
        b"lz4" => Compression::Lz4,
        _ => return None,
    };
    let len = usize::try_from(f.u64()?).ok()?;
    let records = f.take(len)?;
    let start = records.as_ptr() as usize - bytes.as_ptr() as usize;
    Some(Chunk {
        start,
        end: start + records.len(),
        compression,
        uncompressed: usize::try_from(uncompressed).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An intact file is indexed from its summary, no chunk decompressed.
    #[test]
    fn an_intact_file_is_indexed_from_its_summary() {
        for name in ["flight.mcap", "flight_mcap/flight_mcap.mcap"] {
            let file = ChunkedFile::index(
                Path::new(name),
                Bytes::test_bag(name),
                index_from_summary,
                |_| panic!("{name} was scanned, not indexed from its summary"),
            );
            let messages: usize = file.channels.iter().map(|c| c.entries.len()).sum();
            assert_eq!(messages, 308, "{name}");
        }
    }

    /// A string length past its record is refused, not allocated.
    #[test]
    fn a_length_past_its_record_is_refused() {
        let mut body = vec![1, 0];
        body.extend(u32::MAX.to_le_bytes());
        assert!(schema(&body).is_none());
        assert!(channel(&body).is_none());
    }
}

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
use std::ops::Range;
use std::path::Path;

use adl_core::{Error, Result};
use mcap::records::{Record, op};

use super::bytes::Bytes;
use super::chunks::{Chunk, ChunkedFile, Compression};
use super::index::{Channel, Entry, Place};

const MAGIC: &[u8] = b"\x89MCAP0\r\n";

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
    let Ok(Some(summary)) = mcap::read::Summary::read(&file.bytes) else {
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
        let Some(chunk) = chunk_at(&file.bytes, index.chunk_start_offset as usize) else {
            return false;
        };
        file.chunks.push(chunk);
        let Ok(messages) = summary.read_message_indexes(&file.bytes, index) else {
            return false;
        };
        for (channel, entries) in messages {
            let at = *ids.entry(channel.id).or_insert_with(|| {
                file.channels.push(Channel {
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
                file.channels.len() - 1
            });
            file.channels[at]
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

/// Index by reading the file's records from the start (and each chunk's),
/// up to its end or to damage, which is noted.
fn scan(file: &mut ChunkedFile) {
    let bytes = file.bytes.clone();
    let mut schemas: HashMap<u16, (String, String, Vec<u8>)> = HashMap::new();
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
    schemas: &mut HashMap<u16, (String, String, Vec<u8>)>,
    ids: &mut HashMap<u16, usize>,
) -> std::result::Result<(), String> {
    match opcode {
        op::SCHEMA => {
            if let Ok(Record::Schema { header, data }) = mcap::read::parse_record(opcode, body) {
                schemas.insert(header.id, (header.name, header.encoding, data.into_owned()));
            }
        }
        op::CHANNEL => {
            if let Ok(Record::Channel(c)) = mcap::read::parse_record(opcode, body) {
                let (name, encoding, data) = schemas.get(&c.schema_id).cloned().unwrap_or_default();
                ids.entry(c.id).or_insert_with(|| {
                    file.channels.push(Channel {
                        topic: c.topic,
                        message_encoding: c.message_encoding,
                        schema_name: name,
                        schema_encoding: encoding,
                        schema: data,
                        entries: Vec::new(),
                    });
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

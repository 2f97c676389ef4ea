//! ROS 1 bags (format 2.0): records of header fields and data; messages
//! in chunks (uncompressed, bz2 or lz4), each chunk followed by index
//! records giving its messages' offsets, and at the end of the file the
//! connections and a record per chunk. Indexed from those end records
//! without decompressing a chunk (in an object store, by ranged reads of
//! them and of each chunk's header and index records); a bag without them (a recording cut off,
//! `rosbag reindex` never run) is scanned, and one damaged part way keeps
//! the messages before the damage, saying where.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use adl_core::{Error, Result};

use super::bytes::Bytes;
use super::chunks::{Chunk, ChunkedFile, Compression, Ranges};
use super::index::{Channel, Entry, Place};
use crate::object::Object;

const MAGIC: &[u8] = b"#ROSBAG V2.0\n";

mod op {
    pub(super) const MESSAGE: u8 = 0x02;
    pub(super) const BAG_HEADER: u8 = 0x03;
    pub(super) const INDEX: u8 = 0x04;
    pub(super) const CHUNK: u8 = 0x05;
    pub(super) const CHUNK_INFO: u8 = 0x06;
    pub(super) const CONNECTION: u8 = 0x07;
}

/// One record: its header fields and its data.
struct Record<'a> {
    header: &'a [u8],
    data: &'a [u8],
    next: usize,
}

impl<'a> Record<'a> {
    /// Header field `name`'s value.
    fn field(&self, name: &[u8]) -> Option<&'a [u8]> {
        fields(self.header)
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }

    fn op(&self) -> Option<u8> {
        self.field(b"op").and_then(|v| v.first().copied())
    }

    fn u32(&self, name: &[u8]) -> Option<u32> {
        Some(u32::from_le_bytes(
            self.field(name)?.get(..4)?.try_into().ok()?,
        ))
    }

    fn u64(&self, name: &[u8]) -> Option<u64> {
        Some(u64::from_le_bytes(
            self.field(name)?.get(..8)?.try_into().ok()?,
        ))
    }

    /// A `time` field (seconds, then nanoseconds) in nanoseconds.
    fn time(&self, name: &[u8]) -> Option<u64> {
        let t = self.field(name)?;
        let secs = u32::from_le_bytes(t.get(..4)?.try_into().ok()?);
        let nsecs = u32::from_le_bytes(t.get(4..8)?.try_into().ok()?);
        Some(u64::from(secs) * 1_000_000_000 + u64::from(nsecs))
    }
}

/// The `name=value` fields of a record header (or a connection's data).
fn fields(mut bytes: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    std::iter::from_fn(move || {
        let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let field = bytes.get(4..4 + len)?;
        bytes = &bytes[4 + len..];
        let eq = field.iter().position(|&b| b == b'=')?;
        Some((&field[..eq], &field[eq + 1..]))
    })
}

/// The header of the record at `pos` of `bytes`, and the range of its
/// data (relative to `bytes`, which need not hold it).
fn header_at(bytes: &[u8], pos: usize) -> std::result::Result<(&[u8], Range<usize>), String> {
    let cut = || format!("a record at byte {pos} runs past the end of the data");
    let len = |at: usize| -> std::result::Result<usize, String> {
        Ok(u32::from_le_bytes(
            bytes
                .get(at..at + 4)
                .ok_or_else(cut)?
                .try_into()
                .expect("4"),
        ) as usize)
    };
    let header_len = len(pos)?;
    let header_end = (pos + 4).checked_add(header_len).ok_or_else(cut)?;
    let header = bytes.get(pos + 4..header_end).ok_or_else(cut)?;
    let data_len = len(header_end)?;
    let data_end = (header_end + 4).checked_add(data_len).ok_or_else(cut)?;
    Ok((header, header_end + 4..data_end))
}

/// The record at `pos` of `bytes`.
fn record_at(bytes: &[u8], pos: usize) -> std::result::Result<Record<'_>, String> {
    let (header, data) = header_at(bytes, pos)?;
    let next = data.end;
    let data = bytes
        .get(data)
        .ok_or_else(|| format!("a record at byte {pos} runs past the end of the data"))?;
    Ok(Record { header, data, next })
}

/// Index the ROS 1 bag `bytes`, read from `path`.
pub(crate) fn open(path: &Path, bytes: Bytes) -> Result<ChunkedFile> {
    check_magic(path, &bytes)?;
    Ok(ChunkedFile::index(path, bytes, index_from_end, scan))
}

/// Refuse a file that does not start as a ROS 1 bag of version 2.0.
fn check_magic(path: &Path, head: &[u8]) -> Result<()> {
    if head.starts_with(MAGIC) {
        return Ok(());
    }
    let why = if head.starts_with(b"#ROSBAG V") {
        "a ROS bag of another format version: adl reads version 2.0"
    } else {
        "not a ROS 1 bag: it does not start with `#ROSBAG V2.0`"
    };
    Err(Error::file(path, why))
}

/// Index from the connection and chunk-info records at the end, and the
/// index records after each chunk. False where the bag has none usable.
fn index_from_end(file: &mut ChunkedFile) -> bool {
    file.index_bytes(index_records)
}

/// Index the ROS 1 bag `object` from its index records, reading only its
/// bag header, its connection and chunk-info records at the end, and each
/// chunk's header and index records, by ranges; `None` where it has no
/// usable index records (it is then read whole and scanned).
#[cfg_attr(not(feature = "_object-store"), allow(dead_code))]
pub(crate) fn open_object(path: &Path, object: Object) -> Result<Option<ChunkedFile>> {
    let (head, size) = object.get_start(MAGIC.len() as u64)?;
    check_magic(path, &head)?;
    ChunkedFile::index_object(path, object, size, index_records)
}

/// The bytes read for a record's header where its length is not known
/// yet (a chunk's header is some 60 bytes; a longer one is read again).
const HEAD_READ: u64 = 128;

/// Index `file` (of `size` bytes, its ranges given by `read`) from its bag
/// header's index position, the connection and chunk-info records there,
/// and each chunk's header and the index records after it.
fn index_records<'a>(file: &mut ChunkedFile, size: u64, read: &Ranges<'a, '_>) -> Option<()> {
    // A record's header and data range (absolute), read from its start.
    let head_at = |pos: u64| -> Option<(Vec<u8>, Range<u64>)> {
        let first = read(pos, size.min(pos.checked_add(HEAD_READ)?))?;
        let header_end = 4 + u64::from(u32::from_le_bytes(first.get(..4)?.try_into().ok()?));
        let head = match first.len() as u64 >= header_end + 4 {
            true => first,
            false => read(pos, size.min(pos.checked_add(header_end + 4)?))?,
        };
        let (header, data) = header_at(&head, 0).ok()?;
        let data = pos.checked_add(data.start as u64)?..pos.checked_add(data.end as u64)?;
        Some((header.to_vec(), data))
    };
    let (header, _) = head_at(MAGIC.len() as u64)?;
    let header = Record {
        header: &header,
        data: &[],
        next: 0,
    };
    let index_pos = header.u64(b"index_pos")?;
    if header.op() != Some(op::BAG_HEADER) || index_pos == 0 || index_pos >= size {
        return None;
    }
    let tail = read(index_pos, size)?;
    let mut ids: HashMap<u32, usize> = HashMap::new();
    let mut chunk_positions = Vec::new();
    let mut pos = 0;
    while pos < tail.len() {
        let record = record_at(&tail, pos).ok()?;
        match record.op() {
            Some(op::CONNECTION) => {
                if !connection(file, &record, &mut ids) {
                    return None;
                }
            }
            Some(op::CHUNK_INFO) => chunk_positions.push(record.u64(b"chunk_pos")?),
            _ => return None,
        }
        pos = record.next;
    }
    // A chunk's index records lie between its data and the next chunk
    // (or, after the last, the connection and chunk-info records).
    let mut boundaries = chunk_positions.clone();
    boundaries.push(index_pos);
    boundaries.sort_unstable();
    for chunk_pos in chunk_positions {
        let (header, data) = head_at(chunk_pos)?;
        let record = Record {
            header: &header,
            data: &[],
            next: 0,
        };
        let chunk = chunk_of(&record, data.clone())?;
        let next = *boundaries.iter().find(|&&b| b > chunk_pos)?;
        if data.end > next {
            return None;
        }
        let k = file.chunks.len() as u32;
        file.chunks.push(chunk);
        let indexes = read(data.end, next)?;
        let mut at = 0;
        while let Ok(index) = record_at(&indexes, at) {
            if index.op() != Some(op::INDEX) {
                break;
            }
            let (conn, count) = (index.u32(b"conn")?, index.u32(b"count")?);
            let channel = *ids.get(&conn)?;
            for entry in index.data.chunks_exact(12).take(count as usize) {
                let secs = u32::from_le_bytes(entry[0..4].try_into().expect("4"));
                let nsecs = u32::from_le_bytes(entry[4..8].try_into().expect("4"));
                let offset = u32::from_le_bytes(entry[8..12].try_into().expect("4"));
                file.channels[channel].entries.push(Entry {
                    log_time: u64::from(secs) * 1_000_000_000 + u64::from(nsecs),
                    place: Place::Chunk {
                        chunk: k,
                        offset: u64::from(offset),
                    },
                });
            }
            at = index.next;
        }
    }
    Some(())
}

/// Note a connection record (a topic, its type and definition); false
/// where it does not parse.
fn connection(file: &mut ChunkedFile, record: &Record<'_>, ids: &mut HashMap<u32, usize>) -> bool {
    let (Some(conn), Some(topic)) = (record.u32(b"conn"), record.field(b"topic")) else {
        return false;
    };
    let info: HashMap<&[u8], &[u8]> = fields(record.data).collect();
    let text =
        |name: &[u8]| String::from_utf8_lossy(info.get(name).copied().unwrap_or(b"")).into_owned();
    ids.entry(conn).or_insert_with(|| {
        file.channels.push(Channel {
            topic: String::from_utf8_lossy(topic).into_owned(),
            message_encoding: "ros1".to_owned(),
            schema_name: text(b"type"),
            schema_encoding: "ros1msg".to_owned(),
            schema: text(b"message_definition").into_bytes(),
            entries: Vec::new(),
        });
        file.channels.len() - 1
    });
    true
}

/// A chunk record's compressed data (at `data` of the file) and how to
/// decompress it.
fn chunk_of(record: &Record<'_>, data: Range<u64>) -> Option<Chunk> {
    if record.op() != Some(op::CHUNK) {
        return None;
    }
    let compression = match record.field(b"compression")? {
        b"none" => Compression::None,
        b"bz2" => Compression::Bz2,
        b"lz4" => Compression::Lz4,
        _ => return None,
    };
    Some(Chunk {
        start: usize::try_from(data.start).ok()?,
        end: usize::try_from(data.end).ok()?,
        compression,
        uncompressed: record.u32(b"size")? as usize,
    })
}

/// Index by reading the bag's records from the start (and each chunk's),
/// up to its end or to damage, which is noted.
fn scan(file: &mut ChunkedFile) {
    let bytes = file.bytes.clone();
    let mut ids: HashMap<u32, usize> = HashMap::new();
    let mut pos = MAGIC.len();
    while pos < bytes.len() {
        let record = match record_at(&bytes, pos) {
            Ok(r) => r,
            Err(why) => return file.damaged(pos, why),
        };
        match record.op() {
            Some(op::CONNECTION) if !connection(file, &record, &mut ids) => {
                return file.damaged(pos, "a connection record without its fields".into());
            }
            Some(op::CHUNK) => {
                file.indexed_to(pos as u64);
                let start = (record.data.as_ptr() as usize - bytes.as_ptr() as usize) as u64;
                let data = start..start + record.data.len() as u64;
                let Some(chunk) = chunk_of(&record, data) else {
                    return file.damaged(pos, "a chunk record that does not parse".into());
                };
                let k = file.chunks.len() as u32;
                file.chunks.push(chunk);
                let records = match file.decompress(k) {
                    Ok(r) => r,
                    Err(e) => {
                        file.chunks.pop();
                        return file.damaged(pos, format!("{e:#}"));
                    }
                };
                let mut inner = 0;
                while inner < records.len() {
                    let Ok(r) = record_at(&records, inner) else {
                        return file
                            .damaged(pos, format!("chunk {k}'s records are cut at byte {inner}"));
                    };
                    match r.op() {
                        Some(op::CONNECTION) if !connection(file, &r, &mut ids) => {
                            return file
                                .damaged(pos, "a connection record without its fields".into());
                        }
                        Some(op::MESSAGE) => {
                            let (Some(conn), Some(time)) = (r.u32(b"conn"), r.time(b"time")) else {
                                return file.damaged(
                                    pos,
                                    "a message record without its connection or time".into(),
                                );
                            };
                            let Some(&channel) = ids.get(&conn) else {
                                return file.damaged(pos, format!("a message on connection {conn}, which no connection record defines"));
                            };
                            file.channels[channel].entries.push(Entry {
                                log_time: time,
                                place: Place::Chunk {
                                    chunk: k,
                                    offset: inner as u64,
                                },
                            });
                        }
                        _ => {}
                    }
                    inner = r.next;
                }
            }
            _ => {}
        }
        pos = record.next;
    }
}

/// Where the data of the message record at `offset` of `records` is.
pub(crate) fn locate(records: &[u8], offset: usize) -> std::result::Result<Range<usize>, String> {
    let record = record_at(records, offset)?;
    if record.op() != Some(op::MESSAGE) {
        return Err(format!(
            "no message record at byte {offset}, as its index says"
        ));
    }
    let start = record.data.as_ptr() as usize - records.as_ptr() as usize;
    Ok(start..start + record.data.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An intact bag is indexed from its index records, no chunk
    /// decompressed, whichever writer made it and however compressed.
    #[test]
    fn an_intact_bag_is_indexed_from_its_index_records() {
        for (name, messages) in [
            ("flight.bag", 308),
            ("flight_bz2.bag", 308),
            ("flight_plain.bag", 308),
            ("flight_debian.bag", 0),
        ] {
            let file = ChunkedFile::index(
                Path::new(name),
                Bytes::test_bag(name),
                index_from_end,
                |_| panic!("{name} was scanned, not indexed from its index records"),
            );
            let indexed: usize = file.channels.iter().map(|c| c.entries.len()).sum();
            assert!(indexed > 0, "{name}");
            if messages > 0 {
                assert_eq!(indexed, messages, "{name}");
            }
            assert_eq!(
                file.chunks.len(),
                9 + usize::from(name == "flight_debian.bag")
            );
        }
    }

    /// Index records that point past the file are not trusted: the bag is
    /// scanned instead, and keeps its messages.
    #[test]
    fn an_index_past_the_file_is_scanned_instead() {
        let mut damaged = Bytes::test_bag("flight.bag").to_vec();
        // The bag header's index_pos, its first field after `op`.
        let at = (damaged.windows(10).position(|w| w == b"index_pos=")).unwrap() + 10;
        damaged[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut scanned = false;
        let file = ChunkedFile::index(
            Path::new("flight.bag"),
            Bytes::owned(damaged),
            index_from_end,
            |file| {
                scanned = true;
                scan(file);
            },
        );
        assert!(scanned);
        let indexed: usize = file.channels.iter().map(|c| c.entries.len()).sum();
        assert_eq!(indexed, 308);
    }
}

//! Driving `px4-ulog`'s stream parser over a file, collecting every data
//! message into per-topic columns.
//!
//! The file is read into memory once and fed to [`LogParser`]: the header and
//! flag bits first (they say where appended data sections start), then the
//! primary section, then each appended section. A broken record inside the
//! data section ends the parse but keeps what came before it (the log is then
//! [`Completeness::Malformed`] or [`Completeness::Truncated`]); a file that
//! never reaches its data section is an [`Error::Source`]. `px4-ulog` 0.6
//! panics on a few malformed records; that panic is caught and handled as
//! the parse error it stands for (this needs `panic = "unwind"`, the default).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::panic::AssertUnwindSafe;
use std::path::Path;

use px4_ulog::stream_parser::LogParser;
use px4_ulog::stream_parser::model::{DataMessage, FlattenedFieldType, FlattenedFormat};

use super::Completeness;
use crate::{Error, Result};

/// The 7 bytes every ULog file starts with: `ULog`, then `01 12 35`.
const MAGIC: [u8; 7] = [0x55, 0x4c, 0x6f, 0x67, 0x01, 0x12, 0x35];
/// Header length: magic, version byte, start timestamp.
const HEADER_LEN: usize = 16;

/// One `(topic, multi_id)` of a log, as read: row-major values.
#[derive(Debug)]
pub(crate) struct RawTopic {
    /// The uORB topic name.
    pub(crate) topic: String,
    /// The instance (`multi_id`).
    pub(crate) instance: u8,
    /// Flattened column names (`gyro_rad[0]`), without `timestamp`.
    pub(crate) columns: Vec<String>,
    /// Whether the format has the uint64 `timestamp` field.
    pub(crate) has_timestamp: bool,
    /// One time per row, in seconds.
    pub(crate) times: Vec<f64>,
    /// Row-major values, `times.len() * columns.len()`.
    pub(crate) values: Vec<f64>,
}

/// What [`parse`] gives: every topic instance the log registered, including
/// those without data, and how the data section ended.
#[derive(Debug)]
pub(crate) struct ParsedLog {
    pub(crate) topics: Vec<RawTopic>,
    /// Rows that could not join their sensor: `(sensor name, why)`.
    pub(crate) dropped: Vec<(String, String)>,
    pub(crate) completeness: Completeness,
}

/// Builds a [`RawTopic`] from the data messages of one message id.
struct Collector {
    topic: RawTopic,
    /// Byte offset of the `timestamp` field in a message.
    timestamp_offset: Option<usize>,
    /// Byte offset and type of every column, in column order.
    plan: Vec<(usize, FlattenedFieldType)>,
}

impl Collector {
    fn new(format: &FlattenedFormat, instance: u8) -> Self {
        let timestamp_offset = format.timestamp_field.as_ref().map(|t| t.offset as usize);
        let (columns, plan) = format
            .fields
            .iter()
            .filter(|f| !(timestamp_offset.is_some() && f.flattened_field_name == "timestamp"))
            .map(|f| {
                (
                    f.flattened_field_name.clone(),
                    (f.offset as usize, f.field_type.clone()),
                )
            })
            .unzip();
        Collector {
            topic: RawTopic {
                topic: format.message_name.clone(),
                instance,
                columns,
                has_timestamp: timestamp_offset.is_some(),
                times: Vec::new(),
                values: Vec::new(),
            },
            timestamp_offset,
            plan,
        }
    }

    fn push(&mut self, data: &[u8]) {
        let time = self
            .timestamp_offset
            .and_then(|at| bytes::<8>(data, at))
            .map_or(f64::NAN, |b| u64::from_le_bytes(b) as f64 / 1e6);
        self.topic.times.push(time);
        self.topic
            .values
            .extend(self.plan.iter().map(|(at, ty)| decode(data, *at, ty)));
    }
}

/// `N` bytes of `data` at `at`, if there are that many.
fn bytes<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    data.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// One field's value as `f64` (NaN if the message is too short, which the
/// parser's size check rules out).
fn decode(data: &[u8], at: usize, ty: &FlattenedFieldType) -> f64 {
    use FlattenedFieldType as T;
    let value = match ty {
        T::Int8 => bytes::<1>(data, at).map(|b| i8::from_le_bytes(b) as f64),
        T::UInt8 | T::Char => bytes::<1>(data, at).map(|b| b[0] as f64),
        T::Bool => bytes::<1>(data, at).map(|b| if b[0] != 0 { 1.0 } else { 0.0 }),
        T::Int16 => bytes::<2>(data, at).map(|b| i16::from_le_bytes(b) as f64),
        T::UInt16 => bytes::<2>(data, at).map(|b| u16::from_le_bytes(b) as f64),
        T::Int32 => bytes::<4>(data, at).map(|b| i32::from_le_bytes(b) as f64),
        T::UInt32 => bytes::<4>(data, at).map(|b| u32::from_le_bytes(b) as f64),
        T::Int64 => bytes::<8>(data, at).map(|b| i64::from_le_bytes(b) as f64),
        T::UInt64 => bytes::<8>(data, at).map(|b| u64::from_le_bytes(b) as f64),
        T::Float => bytes::<4>(data, at).map(|b| f32::from_le_bytes(b) as f64),
        T::Double => bytes::<8>(data, at).map(f64::from_le_bytes),
    };
    value.unwrap_or(f64::NAN)
}

/// Read and parse the ULog file at `path`.
pub(crate) fn parse(path: &Path) -> Result<ParsedLog> {
    let file =
        std::fs::read(path).map_err(|e| Error::file(path, format!("cannot read the file: {e}")))?;
    if file.len() < HEADER_LEN || file[..MAGIC.len()] != MAGIC {
        return Err(Error::file(
            path,
            format!(
                "not a ULog file: it does not start with the ULog header (magic bytes `ULog\\x01\\x12\\x35`, {HEADER_LEN} bytes); it has {} bytes",
                file.len()
            ),
        ));
    }

    // Collectors by msg_id, filled by the parser's data callback.
    let mut collectors: Vec<Option<Collector>> = Vec::new();
    let mut on_data = |message: &DataMessage| {
        let id = message.msg_id as usize;
        if id >= collectors.len() {
            collectors.resize_with(id + 1, || None);
        }
        collectors[id]
            .get_or_insert_with(|| {
                Collector::new(message.flattened_format, message.multi_id.value())
            })
            .push(message.data);
    };
    let mut parser = LogParser::default();
    parser.set_data_message_callback(&mut on_data);
    // px4-ulog 0.6 can panic on some malformed records (it slices past the
    // end of a short message): catch that and treat it as the parse error it
    // is. Everything collected before it is consistent (the panic is in the
    // parser, not in the callback), so a break inside the data section still
    // keeps the samples before it.
    let fed = std::panic::catch_unwind(AssertUnwindSafe(|| feed_file(&mut parser, &file)))
        .unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            let reason = format!("the ULog parser failed on a malformed record: {message}");
            if parser.in_data() {
                Ok(Completeness::Malformed(reason))
            } else {
                Err(reason)
            }
        });
    let completeness =
        fed.map_err(|reason| Error::file(path, format!("not a readable ULog file: {reason}")))?;
    if !parser.in_data() {
        return Err(Error::file(
            path,
            "the ULog file ends before its data section (only a header and definitions; truncated?)",
        ));
    }
    let mut format = parser.get_final_data_format();

    // Registered instances, with or without data, by (topic, instance).
    let mut topics: Vec<RawTopic> = Vec::new();
    let mut at: HashMap<(String, u8), usize> = HashMap::new();
    let mut dropped = Vec::new();
    for collector in collectors.into_iter().flatten() {
        let mut raw = collector.topic;
        // Whole rows only (a row cut short cannot happen without a panic in
        // the callback itself, but the columns must never be ragged).
        let rows = match raw.columns.len() {
            0 => raw.times.len(),
            width => raw.times.len().min(raw.values.len() / width),
        };
        raw.times.truncate(rows);
        raw.values.truncate(rows * raw.columns.len());
        let key = (raw.topic.clone(), raw.instance);
        match at.get(&key) {
            // The same instance logged under two message ids (removed and
            // added again): one sensor, rows in log order.
            Some(&i) if topics[i].columns == raw.columns => {
                topics[i].times.extend(raw.times);
                topics[i].values.extend(raw.values);
            }
            // Logged again with other fields: the rows cannot join the
            // sensor's columns; say so rather than drop them silently.
            Some(&i) => dropped.push((
                crate::px4::TopicSensor::sensor_name(&raw.topic, raw.instance),
                format!(
                    "{} rows logged again with {} columns instead of {}; those rows are left out",
                    raw.times.len(),
                    raw.columns.len(),
                    topics[i].columns.len()
                ),
            )),
            None => {
                at.insert(key, topics.len());
                topics.push(raw);
            }
        }
    }
    for id in 0..=u16::MAX {
        if let Some((fmt, multi_id, _)) = format.get_message_description(id) {
            let key = (fmt.message_name.clone(), multi_id.value());
            if let Entry::Vacant(slot) = at.entry(key) {
                slot.insert(topics.len());
                topics.push(Collector::new(fmt, multi_id.value()).topic);
            }
        }
    }
    topics.sort_by(|a, b| (&a.topic, a.instance).cmp(&(&b.topic, b.instance)));
    Ok(ParsedLog {
        topics,
        dropped,
        completeness,
    })
}

/// Feed the whole file to `parser`. `Err` (the parser's message) only for a
/// failure before the data section; a failure inside it ends the feed with
/// [`Completeness::Malformed`].
fn feed_file(parser: &mut LogParser<'_>, file: &[u8]) -> std::result::Result<Completeness, String> {
    let feed = |parser: &mut LogParser<'_>, bytes: &[u8]| match parser.consume_bytes(bytes) {
        Ok(()) => Ok(None),
        Err(e) if parser.in_data() => Ok(Some(Completeness::Malformed(e.to_string()))),
        Err(e) => Err(e.to_string()),
    };

    // Header and flag bits byte by byte (a few dozen bytes), so that the
    // appended-section offsets are known before any data is fed.
    let mut position = 0;
    while position < file.len() && !parser.header_complete() {
        if let Some(end) = feed(parser, &file[position..position + 1])? {
            return Ok(end);
        }
        position += 1;
    }

    let mut appended: Vec<usize> = parser
        .appended_offsets()
        .iter()
        .filter(|&&o| o != 0)
        .map(|&o| usize::try_from(o).unwrap_or(usize::MAX))
        .collect();
    appended.sort_unstable();
    let primary_end = appended.first().map_or(file.len(), |&o| o.min(file.len()));
    if position < primary_end
        && let Some(end) = feed(parser, &file[position..primary_end])?
    {
        return Ok(end);
    }
    let mut completeness = Completeness::Complete;
    for (i, &start) in appended.iter().enumerate() {
        if parser.has_leftover() {
            // The section before this one ended partway through a record.
            completeness = Completeness::Truncated;
        }
        if start >= file.len() {
            // The flag bits promise a section the file does not hold.
            return Ok(Completeness::Truncated);
        }
        let end = appended
            .get(i + 1)
            .map_or(file.len(), |&o| o.min(file.len()));
        parser.clear_leftover();
        if let Some(end) = feed(parser, &file[start..end])? {
            return Ok(end);
        }
    }
    if parser.has_leftover() {
        completeness = Completeness::Truncated;
    }
    Ok(completeness)
}

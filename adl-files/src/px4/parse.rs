//! Reading a ULog file's records and collecting every data record into
//! per-topic columns: adl's own reader of the format
//! (<https://docs.px4.io/main/en/dev_log/ulog_file_format.html>).
//!
//! The file is read into memory once. After its 16-byte header come records
//! of `u16` length, `u8` type and payload: the definitions (flag bits, the
//! formats of `F` records, information and parameters), then the data
//! section, from the first record that belongs to it (`A` subscribes a
//! message id to a format, `D` logs a row, `R` unsubscribes; logged strings,
//! syncs and dropouts are passed over). Flag bits may name appended data
//! sections, read after the primary one.
//!
//! Every length is checked against the bytes that are there before it is
//! used, and the formats' flattening is bounded ([`super::format`]), so no
//! file makes the reader panic, loop or allocate past the file's own size
//! (tests/suite/px4.rs and the `px4` fuzz target hold it to that). A file that
//! breaks before its data section is an [`Error::Source`] that says where
//! (the byte offset of the record) and what; a break inside the data section
//! keeps the rows before it, and the log says how it ended
//! ([`Completeness::Truncated`] for a file that ends inside a record,
//! [`Completeness::Malformed`] with the offset and the reason otherwise).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::Completeness;
use super::format::{COLUMN_COST, Flattened, Formats, Scalar, WORK};
use adl_core::{Error, Result};

/// The 7 bytes every ULog file starts with: `ULog`, then `01 12 35`.
const MAGIC: [u8; 7] = [0x55, 0x4c, 0x6f, 0x67, 0x01, 0x12, 0x35];
/// Header length: magic, version byte, start timestamp.
const HEADER_LEN: usize = 16;
/// A record's own header: `u16` payload length, `u8` type.
const RECORD_HEADER: usize = 3;
/// The incompatible flag bits adl reads: bit 0 of byte 0, data appended.
const DATA_APPENDED: u8 = 1;

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
    /// Rows or topics that could not join a sensor: `(sensor name, why)`.
    pub(crate) dropped: Vec<(String, String)>,
    pub(crate) completeness: Completeness,
}

/// The rows of one topic instance, as they are logged.
struct Collector {
    topic: RawTopic,
    /// The size of its data records.
    size: usize,
    /// The offset of the timestamp, if the format has one.
    timestamp: Option<usize>,
    /// Where each column's value is, in column order.
    values: Vec<(usize, Scalar)>,
}

impl Collector {
    fn new(topic: &str, instance: u8, format: &Flattened) -> Self {
        // The timestamp is the rows' time, not a column.
        let (columns, values) = format
            .columns
            .iter()
            .filter(|c| !(format.timestamp.is_some() && c.name == "timestamp"))
            .map(|c| (c.name.clone(), (c.offset, c.ty)))
            .unzip();
        Collector {
            topic: RawTopic {
                topic: topic.to_owned(),
                instance,
                columns,
                has_timestamp: format.timestamp.is_some(),
                times: Vec::new(),
                values: Vec::new(),
            },
            size: format.size,
            timestamp: format.timestamp,
            values,
        }
    }

    /// What its columns cost of the log's budget.
    fn cost(format: &Flattened) -> usize {
        format
            .columns
            .iter()
            .map(|c| COLUMN_COST + c.name.len())
            .sum()
    }

    /// Add the row of a `D` record's payload (its size already checked).
    fn push(&mut self, record: &[u8]) {
        let time = self
            .timestamp
            .map_or(f64::NAN, |at| Scalar::U64.decode(record, at) / 1e6);
        self.topic.times.push(time);
        self.topic
            .values
            .extend(self.values.iter().map(|&(at, ty)| ty.decode(record, at)));
    }
}

/// What a message id stands for in the data section.
enum Subscription {
    /// Rows go to this collector.
    Rows(usize),
    /// Its format cannot be read: its rows are passed over (the topic is
    /// listed as dropped, with the reason).
    Unreadable,
}

/// A record: its type, its payload and where it starts in the file.
struct Record<'a> {
    kind: u8,
    payload: &'a [u8],
    at: usize,
}

/// How a run of records ended.
enum End {
    /// On a record boundary, at the end of the section.
    Clean,
    /// Inside the record that starts at this offset (its length runs past
    /// the section).
    Cut(usize),
}

/// The records of `file[start..end]`, in order; then how they ended.
fn records(file: &[u8], start: usize, end: usize) -> impl Iterator<Item = Result<Record<'_>, End>> {
    let mut at = start;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        if at >= end {
            done = true;
            return Some(Err(End::Clean));
        }
        let header = file
            .get(at..at + RECORD_HEADER)
            .filter(|_| at + RECORD_HEADER <= end);
        let Some(&[lo, hi, kind]) = header else {
            done = true;
            return Some(Err(End::Cut(at)));
        };
        let payload_end = at + RECORD_HEADER + usize::from(u16::from_le_bytes([lo, hi]));
        if payload_end > end {
            done = true;
            return Some(Err(End::Cut(at)));
        }
        let record = Record {
            kind,
            payload: &file[at + RECORD_HEADER..payload_end],
            at,
        };
        at = payload_end;
        Some(Ok(record))
    })
}

/// The state of one file's reading.
struct Reader {
    formats: Formats,
    /// Formats flattened so far, by name (or why one cannot be).
    flattened: HashMap<String, std::result::Result<Flattened, String>>,
    /// What flattening and columns may still take ([`WORK`]).
    budget: usize,
    in_data: bool,
    /// Appended data sections, from the flag bits.
    appended: Vec<usize>,
    subscriptions: HashMap<u16, Subscription>,
    /// One per (topic, instance), whatever message ids its rows came under.
    collectors: Vec<Collector>,
    by_topic: HashMap<(String, u8), usize>,
    dropped: Vec<(String, String)>,
    /// The topic instances dropped for their format, by sensor name.
    unreadable: HashSet<String>,
    /// Its progress through the file's bytes, where it is told one.
    progress: Option<adl_core::progress::Progress>,
}

impl Default for Reader {
    fn default() -> Self {
        Reader {
            formats: Formats::default(),
            flattened: HashMap::new(),
            budget: WORK,
            in_data: false,
            appended: Vec::new(),
            subscriptions: HashMap::new(),
            collectors: Vec::new(),
            by_topic: HashMap::new(),
            dropped: Vec::new(),
            unreadable: HashSet::new(),
            progress: None,
        }
    }
}

/// Why reading stopped at a record: where and what.
struct Broken {
    at: usize,
    reason: String,
}

impl Reader {
    /// Read one record; `Err` for a record that breaks the file.
    fn read(&mut self, record: &Record<'_>, first: bool) -> std::result::Result<(), String> {
        let payload = record.payload;
        match record.kind {
            // Read before the sections, whose bounds it gives (`parse_bytes`).
            b'B' if first && !self.in_data => Ok(()),
            b'B' => Err("a flag bits (`B`) record that is not the first record".into()),
            b'F' => self.formats.define(payload),
            b'A' => {
                self.in_data = true;
                self.subscribe(payload)
            }
            b'R' => {
                self.in_data = true;
                let id = id(payload).ok_or("an unsubscribe (`R`) record of under 2 bytes")?;
                self.subscriptions.remove(&id);
                Ok(())
            }
            b'D' => {
                if !self.in_data {
                    return Err("a data (`D`) record before any subscription (`A`)".into());
                }
                self.data(payload)
            }
            // Logged strings, syncs and dropouts start the data section;
            // their content is not read.
            b'L' | b'C' | b'S' | b'O' => {
                self.in_data = true;
                Ok(())
            }
            // Information, parameters and unknown record types are passed
            // over.
            _ => Ok(()),
        }
    }

    fn flag_bits(&mut self, payload: &[u8]) -> std::result::Result<(), String> {
        if payload.len() < 40 {
            return Err(format!(
                "a flag bits (`B`) record of {} bytes, not 40",
                payload.len()
            ));
        }
        let incompatible = &payload[8..16];
        if incompatible[0] & !DATA_APPENDED != 0 || incompatible[1..].iter().any(|&b| b != 0) {
            return Err(format!(
                "incompatible flag bits {incompatible:02x?}: the log uses a feature this reader does not know"
            ));
        }
        if incompatible[0] & DATA_APPENDED != 0 {
            self.appended = payload[16..40]
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
                .filter(|&offset| offset != 0)
                .map(|offset| usize::try_from(offset).unwrap_or(usize::MAX))
                .collect();
            self.appended.sort_unstable();
        }
        Ok(())
    }

    /// An `A` record: `u8` multi_id, `u16` msg_id, the format's name.
    fn subscribe(&mut self, payload: &[u8]) -> std::result::Result<(), String> {
        let (&instance, rest) = payload
            .split_first()
            .filter(|(_, rest)| rest.len() >= 2)
            .ok_or("a subscription (`A`) record of under 3 bytes")?;
        let msg_id = id(rest).unwrap_or_default();
        let name = std::str::from_utf8(&rest[2..]).map_err(|_| {
            format!("the subscription of message id {msg_id} names no UTF-8 format")
        })?;
        if self.subscriptions.contains_key(&msg_id) {
            return Err(format!(
                "message id {msg_id} is subscribed to `{name}` while still subscribed"
            ));
        }
        let subscription = match self.collector(name, instance) {
            Ok(c) => Subscription::Rows(c),
            Err(reason) => {
                // Said once per topic instance, however often it is
                // subscribed.
                let sensor = super::TopicSensor::sensor_name(name, instance);
                if self.unreadable.insert(sensor.clone()) {
                    self.dropped.push((
                        sensor,
                        format!("its format cannot be read: {reason}; its rows are left out"),
                    ));
                }
                Subscription::Unreadable
            }
        };
        self.subscriptions.insert(msg_id, subscription);
        Ok(())
    }

    /// The collector of `(topic, instance)`, made on its first
    /// subscription (another message id for the same instance, or the same
    /// after an unsubscription, shares it: one sensor, rows in log order).
    fn collector(&mut self, topic: &str, instance: u8) -> std::result::Result<usize, String> {
        let key = (topic.to_owned(), instance);
        if let Some(&c) = self.by_topic.get(&key) {
            return Ok(c);
        }
        if !self.flattened.contains_key(topic) {
            let flattened = self.formats.flatten(topic, &mut self.budget);
            self.flattened.insert(topic.to_owned(), flattened);
        }
        let format = match &self.flattened[topic] {
            Ok(format) => format,
            Err(reason) => return Err(reason.clone()),
        };
        self.budget = self
            .budget
            .checked_sub(Collector::cost(format))
            .ok_or_else(|| {
                format!("the log's topics hold more than {WORK} bytes of column names")
            })?;
        self.collectors
            .push(Collector::new(topic, instance, format));
        self.by_topic.insert(key, self.collectors.len() - 1);
        Ok(self.collectors.len() - 1)
    }

    /// A `D` record: `u16` msg_id, then the row.
    fn data(&mut self, payload: &[u8]) -> std::result::Result<(), String> {
        let msg_id = id(payload).ok_or("a data (`D`) record of under 2 bytes")?;
        match self.subscriptions.get(&msg_id) {
            None => Err(format!(
                "a data (`D`) record for message id {msg_id}, which no subscription (`A`) names"
            )),
            Some(Subscription::Unreadable) => Ok(()),
            Some(&Subscription::Rows(c)) => {
                let collector = &mut self.collectors[c];
                if payload.len() != collector.size {
                    return Err(format!(
                        "a data (`D`) record of {} bytes for `{}`, whose format has {}",
                        payload.len(),
                        collector.topic.topic,
                        collector.size
                    ));
                }
                collector.push(payload);
                Ok(())
            }
        }
    }

    /// Read the records of `file[start..end]`. `Err` where one breaks.
    fn section(
        &mut self,
        file: &[u8],
        start: usize,
        end: usize,
    ) -> std::result::Result<End, Broken> {
        for (i, record) in records(file, start, end).enumerate() {
            let record = match record {
                Ok(record) => record,
                Err(end) => return Ok(end),
            };
            if i % 4096 == 0
                && let Some(progress) = &mut self.progress
            {
                progress.set(record.at as u64);
            }
            self.read(&record, start == HEADER_LEN && i == 0)
                .map_err(|reason| Broken {
                    at: record.at,
                    reason,
                })?;
        }
        Ok(End::Clean)
    }
}

/// The message id at the start of `payload`.
fn id(payload: &[u8]) -> Option<u16> {
    Some(u16::from_le_bytes([*payload.first()?, *payload.get(1)?]))
}

/// Read and parse the ULog file at `path`.
pub(crate) fn parse(path: &Path) -> Result<ParsedLog> {
    let file = std::fs::read(path).map_err(|e| Error::file_io(path, "cannot read the file", e))?;
    let name = path
        .file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy();
    parse_named(&file, &name).map_err(|reason| Error::file(path, reason))
}

/// Parse the bytes of a ULog file; `Err` is the reason it cannot be read.
#[cfg(test)]
pub(crate) fn parse_bytes(file: &[u8]) -> std::result::Result<ParsedLog, String> {
    parse_named(file, "log")
}

/// Parse the bytes of the ULog file `name`, showing the progress on a
/// terminal where it takes long ([`adl_core::progress`]); `Err` is the
/// reason it cannot be read.
pub(crate) fn parse_named(file: &[u8], name: &str) -> std::result::Result<ParsedLog, String> {
    if file.len() < HEADER_LEN || file[..MAGIC.len()] != MAGIC {
        return Err(format!(
            "not a ULog file: it does not start with the ULog header (magic bytes `ULog\\x01\\x12\\x35`, {HEADER_LEN} bytes); it has {} bytes",
            file.len()
        ));
    }
    let mut reader = Reader {
        progress: Some(adl_core::progress::Progress::bytes(
            format!("reading {name}"),
            file.len() as u64,
        )),
        ..Reader::default()
    };
    // The primary section ends where the first appended one starts. The
    // flag bits that say so are its first record: read it on its own.
    let mut end = file.len();
    let mut completeness = Completeness::Complete;
    // Where a record ran past the end of its section, the last time one did.
    let mut cut = None;
    if let Some(Ok(first)) = records(file, HEADER_LEN, end).next()
        && first.kind == b'B'
    {
        reader
            .flag_bits(first.payload)
            .map_err(|reason| format!("at byte {}: {reason}", first.at))?;
        end = reader
            .appended
            .first()
            .map_or(end, |&o| o.clamp(HEADER_LEN, end));
    }
    let mut sections = vec![(HEADER_LEN, end)];
    let appended = reader.appended.clone();
    for (i, &start) in appended.iter().enumerate() {
        let next = appended
            .get(i + 1)
            .map_or(file.len(), |&o| o.min(file.len()));
        sections.push((start, next));
    }
    for (start, end) in sections {
        if start >= file.len() {
            // The flag bits promise a section the file does not hold.
            completeness = Completeness::Truncated;
            break;
        }
        match reader.section(file, start, end) {
            Ok(End::Clean) => {}
            Ok(End::Cut(at)) => {
                completeness = Completeness::Truncated;
                cut = Some(at);
            }
            Err(broken) if reader.in_data => {
                completeness =
                    Completeness::Malformed(format!("at byte {}: {}", broken.at, broken.reason));
                break;
            }
            Err(broken) => {
                return Err(format!(
                    "not a readable ULog file: at byte {}: {}",
                    broken.at, broken.reason
                ));
            }
        }
    }
    if !reader.in_data {
        if let Some(at) = cut {
            return Err(format!(
                "the ULog file ends inside its definitions, before its data section: the record at byte {at} runs past the end (truncated?)"
            ));
        }
        return Err(
            "the ULog file ends before its data section (only a header and definitions; truncated?)"
                .into(),
        );
    }
    Ok(gather(reader, completeness))
}

/// The topics read, one per (topic, instance), sorted.
fn gather(reader: Reader, completeness: Completeness) -> ParsedLog {
    let mut topics: Vec<RawTopic> = reader.collectors.into_iter().map(|c| c.topic).collect();
    topics.sort_by(|a, b| (&a.topic, a.instance).cmp(&(&b.topic, b.instance)));
    ParsedLog {
        topics,
        dropped: reader.dropped,
        completeness,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ULog file: the header, then `records` of (type, payload).
    fn ulog(records: &[(u8, Vec<u8>)]) -> Vec<u8> {
        let mut file = MAGIC.to_vec();
        file.push(1);
        file.extend_from_slice(&0u64.to_le_bytes());
        for (kind, payload) in records {
            file.extend_from_slice(&(payload.len() as u16).to_le_bytes());
            file.push(*kind);
            file.extend_from_slice(payload);
        }
        file
    }

    fn subscribe(id: u16, instance: u8, name: &str) -> (u8, Vec<u8>) {
        let mut payload = vec![instance];
        payload.extend_from_slice(&id.to_le_bytes());
        payload.extend_from_slice(name.as_bytes());
        (b'A', payload)
    }

    /// A row of the format `imu:uint64_t timestamp;float x;`.
    fn row(id: u16, micros: u64, x: f32) -> (u8, Vec<u8>) {
        let mut payload = id.to_le_bytes().to_vec();
        payload.extend_from_slice(&micros.to_le_bytes());
        payload.extend_from_slice(&x.to_le_bytes());
        (b'D', payload)
    }

    fn imu_format() -> (u8, Vec<u8>) {
        (b'F', b"imu:uint64_t timestamp;float x;".to_vec())
    }

    #[test]
    fn rows_of_a_topic_under_several_subscriptions_join_one_sensor() {
        let file = ulog(&[
            imu_format(),
            subscribe(3, 0, "imu"),
            row(3, 1_000_000, 1.5),
            (b'R', 3u16.to_le_bytes().to_vec()),
            // The same instance again, under another id and the old one.
            subscribe(7, 0, "imu"),
            row(7, 2_000_000, 2.5),
            subscribe(3, 1, "imu"),
            row(3, 2_500_000, 9.0),
        ]);
        let log = parse_bytes(&file).unwrap();
        assert_eq!(log.completeness, Completeness::Complete);
        assert_eq!(log.topics.len(), 2);
        let imu = &log.topics[0];
        assert_eq!((imu.topic.as_str(), imu.instance), ("imu", 0));
        assert_eq!(imu.columns, ["x"]);
        assert_eq!(imu.times, [1.0, 2.0]);
        assert_eq!(imu.values, [1.5, 2.5]);
        assert_eq!(log.topics[1].values, [9.0]);
    }

    #[test]
    fn a_break_in_the_data_keeps_the_rows_before_it_and_says_where() {
        let mut short = row(3, 3_000_000, 0.0);
        short.1.pop();
        let file = ulog(&[
            imu_format(),
            subscribe(3, 0, "imu"),
            row(3, 1_000_000, 1.0),
            short,
            row(3, 4_000_000, 4.0),
        ]);
        let log = parse_bytes(&file).unwrap();
        assert_eq!(log.topics[0].values, [1.0]);
        // 16 (header) + 34 (F) + 9 (A) + 17 (D): the short record starts at 76.
        assert_eq!(
            log.completeness,
            Completeness::Malformed(
                "at byte 76: a data (`D`) record of 13 bytes for `imu`, whose format has 14".into()
            )
        );
        // Cut inside the last record: truncated, the rows before kept.
        let whole = ulog(&[
            imu_format(),
            subscribe(3, 0, "imu"),
            row(3, 1, 1.0),
            row(3, 2, 2.0),
        ]);
        let log = parse_bytes(&whole[..whole.len() - 5]).unwrap();
        assert_eq!(log.completeness, Completeness::Truncated);
        assert_eq!(log.topics[0].values, [1.0]);
    }

    #[test]
    fn broken_definitions_are_errors_that_say_where() {
        let unknown_id = ulog(&[imu_format(), row(3, 1, 1.0)]);
        assert_eq!(
            parse_bytes(&unknown_id).unwrap_err(),
            "not a readable ULog file: at byte 50: a data (`D`) record before any subscription (`A`)"
        );
        let late_flags = ulog(&[imu_format(), (b'B', vec![0; 40])]);
        assert!(
            parse_bytes(&late_flags)
                .unwrap_err()
                .contains("at byte 50: a flag bits")
        );
        let only_definitions = ulog(&[imu_format()]);
        assert!(
            parse_bytes(&only_definitions)
                .unwrap_err()
                .contains("ends before its data")
        );
        assert!(
            parse_bytes(b"ULog")
                .unwrap_err()
                .contains("not a ULog file")
        );
    }

    #[test]
    fn a_topic_of_an_unreadable_format_is_dropped_and_the_rest_read() {
        let file = ulog(&[
            imu_format(),
            (b'F', b"broken:missing_t y;".to_vec()),
            subscribe(1, 0, "broken"),
            subscribe(2, 0, "imu"),
            (b'D', vec![1, 0, 9, 9, 9]),
            row(2, 1_000_000, 1.0),
        ]);
        let log = parse_bytes(&file).unwrap();
        assert_eq!(log.completeness, Completeness::Complete);
        assert_eq!(log.topics.len(), 1);
        assert_eq!(log.dropped.len(), 1);
        assert_eq!(log.dropped[0].0, "broken");
        // Subscribed again: still said once.
        let again = ulog(&[
            (b'F', b"broken:missing_t y;".to_vec()),
            subscribe(1, 0, "broken"),
            subscribe(2, 0, "broken"),
        ]);
        assert_eq!(parse_bytes(&again).unwrap().dropped.len(), 1);
        assert!(
            log.dropped[0]
                .1
                .contains("no format `missing_t` is defined")
        );
    }

    #[test]
    fn appended_sections_are_read_after_the_primary_one() {
        let head = ulog(&[(b'B', vec![0; 40]), imu_format(), subscribe(3, 0, "imu")]);
        let mut flags = vec![0u8; 40];
        flags[8] = DATA_APPENDED;
        // The primary section holds a row and the first five bytes of
        // another, cut off where the appended section, a third row, starts.
        let appended_at = head.len() + 17 + 5;
        flags[16..24].copy_from_slice(&(appended_at as u64).to_le_bytes());
        let mut file = ulog(&[(b'B', flags), imu_format(), subscribe(3, 0, "imu")]);
        let record = |r: (u8, Vec<u8>)| {
            let mut bytes = (r.1.len() as u16).to_le_bytes().to_vec();
            bytes.push(r.0);
            bytes.extend(r.1);
            bytes
        };
        file.extend(record(row(3, 1_000_000, 1.0)));
        file.extend(&record(row(3, 1_500_000, 5.0))[..5]);
        file.extend(record(row(3, 2_000_000, 2.0)));
        let log = parse_bytes(&file).unwrap();
        assert_eq!(log.completeness, Completeness::Truncated);
        assert_eq!(log.topics[0].values, [1.0, 2.0]);
        // An appended section past the end: truncated.
        let mut flags = vec![0u8; 40];
        flags[8] = DATA_APPENDED;
        flags[16..24].copy_from_slice(&10_000u64.to_le_bytes());
        let file = ulog(&[
            (b'B', flags),
            imu_format(),
            subscribe(3, 0, "imu"),
            row(3, 1, 1.0),
        ]);
        assert_eq!(
            parse_bytes(&file).unwrap().completeness,
            Completeness::Truncated
        );
    }
}

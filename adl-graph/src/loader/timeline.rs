//! The loader's run as a timeline (issue 44): what each of its threads did
//! and when, written as Chrome's trace-event JSON, the format Perfetto
//! (<https://ui.perfetto.dev>) and `chrome://tracing` open.
//!
//! One track per thread of the process (named as the threads are:
//! `adl-worker-N`, `adl-reader-N`, the consumer's own name), a span
//! (`"ph": "X"`) per:
//! - `read`: a read of the read stage (one part of a sample: a sensor's
//!   file or object), with the sample's index, the sensor and the bytes;
//! - `decode`: the dataset's `get` of a sample that a read stage read
//!   (`get` where the worker reads for itself), with its index;
//! - `sample stage`, and each node of a described pipeline under its path
//!   (`camera/decode`), with the sample's index (sample nodes) or the
//!   batch's;
//! - `collate` and `batch stage`, with the batch's number and samples;
//! - `job`: a worker's whole batch, with its number;
//! - `wait`: the consumer waiting for a batch, with its number.
//!
//! Bounded: the spans are kept in a ring of the last `capacity`; a longer
//! run keeps its end, and the file's `otherData.dropped` says how many
//! spans were let go. Off (no [`Timeline`]), the loader reads no clock for
//! it. The file is written (whole, through a temporary file and a rename)
//! when an epoch ends and when the loader is dropped.

use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Spans a timeline keeps unless told otherwise: about 20 MB of JSON.
pub const DEFAULT_TRACE_EVENTS: usize = 200_000;

/// What a span is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// A node of the pipeline, by its statistics row.
    Node(usize),
    /// The dataset's `get`.
    Get,
    /// The sample stage of one sample.
    Sample,
    /// The collate of a batch.
    Collate,
    /// The batch stage of a batch.
    Batch,
    /// A worker's job: one batch.
    Job,
    /// The consumer waiting for a batch.
    Wait,
    /// A read of the read stage, of one part (sensor) of a sample.
    Read(usize),
}

/// What a span is about: its arguments in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum About {
    /// A sample, by its dataset index.
    Sample(usize),
    /// A batch, by its number in the epoch, and its samples.
    Batch { batch: usize, samples: usize },
    /// Work on a batch (a collate or batch node), by its number.
    InBatch(usize),
    /// A read: the sample's dataset index, and the bytes read.
    Read { index: usize, bytes: u64 },
}

/// One span: on thread `thread`, from `start` to `start + duration`
/// (nanoseconds since the timeline began).
#[derive(Debug, Clone, Copy)]
struct Span {
    what: What,
    about: About,
    thread: u32,
    start: u64,
    duration: u64,
}

/// The spans kept, the last `capacity` of them.
#[derive(Debug)]
struct Ring {
    spans: VecDeque<Span>,
    capacity: usize,
    dropped: u64,
    /// Spans pushed over the run, and how many there were when the file
    /// was last written: a file holds what it did while none came since.
    pushed: u64,
    written: Option<u64>,
}

/// What a write of the file takes from the ring.
struct Snapshot {
    spans: Vec<Span>,
    dropped: u64,
    capacity: usize,
    pushed: u64,
}

/// A loader's timeline: see the [module docs](self).
#[derive(Debug)]
pub(crate) struct Timeline {
    path: PathBuf,
    began: Instant,
    ring: Mutex<Ring>,
    /// The names of the statistics rows ([`What::Node`]).
    nodes: Vec<String>,
    /// The names of a sample's parts ([`What::Read`]).
    parts: Vec<String>,
    /// What the dataset's `get` is called here (`decode` or `get`).
    get: &'static str,
}

/// This thread's number on the timelines (from 1), and the names of the
/// numbered threads, process-wide.
fn thread_number() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    thread_local! {
        static NUMBER: Cell<u32> = const { Cell::new(0) };
    }
    NUMBER.with(|number| {
        if number.get() == 0 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            number.set(n);
            let name = std::thread::current()
                .name()
                .map(str::to_owned)
                .or_else(os_thread_name)
                .unwrap_or_else(|| format!("thread {n}"));
            thread_names()
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(n, name);
        }
        number.get()
    })
}

/// The name the system gives this thread where Rust has none (a thread a
/// program started: Python's main thread is its process's name), with
/// its id.
fn os_thread_name() -> Option<String> {
    let name = std::fs::read_to_string("/proc/thread-self/comm").ok()?;
    let id = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let name = name.trim();
    Some(match id {
        Some(id) => format!("{name} (thread {id})"),
        None => name.to_owned(),
    })
}

fn thread_names() -> &'static Mutex<BTreeMap<u32, String>> {
    static NAMES: OnceLock<Mutex<BTreeMap<u32, String>>> = OnceLock::new();
    NAMES.get_or_init(Mutex::default)
}

impl Timeline {
    /// A timeline written to `path`, keeping the last `capacity` spans (at
    /// least 1); `nodes` names the statistics rows, `parts` a sample's
    /// parts, `get` the dataset's `get`.
    pub(crate) fn new(
        path: PathBuf,
        capacity: usize,
        nodes: Vec<String>,
        parts: Vec<String>,
        get: &'static str,
    ) -> Self {
        let capacity = capacity.max(1);
        Timeline {
            path,
            began: Instant::now(),
            ring: Mutex::new(Ring {
                spans: VecDeque::with_capacity(capacity.min(1 << 16)),
                capacity,
                dropped: 0,
                pushed: 0,
                written: None,
            }),
            nodes,
            parts,
            get,
        }
    }

    /// Where it is written.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// A span of `what`, about `about`, from `began` to now, on this
    /// thread.
    pub(crate) fn span(&self, what: What, about: About, began: Instant) {
        let end = Instant::now();
        let span = Span {
            what,
            about,
            thread: thread_number(),
            start: began.saturating_duration_since(self.began).as_nanos() as u64,
            duration: end.saturating_duration_since(began).as_nanos() as u64,
        };
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        if ring.spans.len() >= ring.capacity {
            ring.spans.pop_front();
            ring.dropped += 1;
        }
        ring.spans.push_back(span);
        ring.pushed += 1;
    }

    fn name(&self, what: What) -> (&str, &'static str) {
        match what {
            What::Node(row) => (self.nodes.get(row).map_or("node", String::as_str), "node"),
            What::Get => (self.get, "dataset"),
            What::Sample => ("sample stage", "stage"),
            What::Collate => ("collate", "stage"),
            What::Batch => ("batch stage", "stage"),
            What::Job => ("job", "worker"),
            What::Wait => ("wait", "consumer"),
            What::Read(_) => ("read", "read stage"),
        }
    }

    /// The timeline as trace-event JSON, into `out`.
    fn write_json(&self, snapshot: &Snapshot, out: &mut impl Write) -> std::io::Result<()> {
        let Snapshot {
            spans,
            dropped,
            capacity,
            ..
        } = snapshot;
        let pid = std::process::id();
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into());
        writeln!(
            out,
            "{{\"displayTimeUnit\":\"ms\",\"otherData\":{{\"writer\":\"adl\",\"capacity\":{capacity},\"dropped\":{dropped}}},\"traceEvents\":["
        )?;
        write!(
            out,
            "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{pid},\"tid\":0,\"args\":{{\"name\":\"adl loader (process {pid})\"}}}}"
        )?;
        let used: std::collections::BTreeSet<u32> = spans.iter().map(|s| s.thread).collect();
        {
            let names = thread_names().lock().unwrap_or_else(|p| p.into_inner());
            for thread in &used {
                let name = names
                    .get(thread)
                    .cloned()
                    .unwrap_or_else(|| format!("thread {thread}"));
                write!(
                    out,
                    ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{pid},\"tid\":{thread},\"args\":{{\"name\":{}}}}}",
                    quote(&name)
                )?;
            }
        }
        for span in spans {
            let (name, category) = self.name(span.what);
            write!(
                out,
                ",\n{{\"ph\":\"X\",\"name\":{},\"cat\":\"{category}\",\"pid\":{pid},\"tid\":{},\"ts\":{:.3},\"dur\":{:.3},\"args\":{{",
                quote(name),
                span.thread,
                span.start as f64 / 1e3,
                span.duration as f64 / 1e3,
            )?;
            match span.about {
                About::Sample(index) => write!(out, "\"index\":{index}")?,
                About::InBatch(batch) => write!(out, "\"batch\":{batch}")?,
                About::Batch { batch, samples } => {
                    write!(out, "\"batch\":{batch},\"samples\":{samples}")?;
                }
                About::Read { index, bytes } => {
                    let sensor = match span.what {
                        What::Read(part) => self
                            .parts
                            .get(part)
                            .cloned()
                            .unwrap_or_else(|| format!("part {part}")),
                        _ => String::new(),
                    };
                    write!(
                        out,
                        "\"index\":{index},\"sensor\":{},\"bytes\":{bytes}",
                        quote(&sensor)
                    )?;
                }
            }
            write!(out, "}}}}")?;
        }
        writeln!(out, "\n]}}")
    }

    /// Write the timeline to its file (through a temporary file beside it,
    /// renamed over it, so that a reader never sees half of one).
    /// Nothing is written where no span came since the last write (an
    /// epoch's end, then the loader dropped).
    pub(crate) fn write(&self) -> std::io::Result<()> {
        let snapshot = {
            let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
            if ring.written == Some(ring.pushed) {
                return Ok(());
            }
            Snapshot {
                spans: ring.spans.iter().copied().collect(),
                dropped: ring.dropped,
                capacity: ring.capacity,
                pushed: ring.pushed,
            }
        };
        let mut temporary = self.path.clone().into_os_string();
        temporary.push(format!(".{}.tmp", std::process::id()));
        let temporary = PathBuf::from(temporary);
        let file = std::fs::File::create(&temporary)?;
        let mut out = std::io::BufWriter::new(file);
        self.write_json(&snapshot, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temporary, &self.path)?;
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        ring.written = Some(snapshot.pushed);
        Ok(())
    }

    /// [`write`](Self::write), saying on standard error where it could
    /// not (the run goes on: a timeline is never worth a failed epoch).
    pub(crate) fn write_or_say(&self) {
        if let Err(e) = self.write() {
            eprintln!(
                "adl: the loader's timeline could not be written to {}: {e}",
                self.path().display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeline(capacity: usize) -> (tempfile::TempDir, Timeline) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let t = Timeline::new(
            path,
            capacity,
            vec!["camera/decode".into()],
            vec!["camera".into()],
            "decode",
        );
        (dir, t)
    }

    #[test]
    fn spans_are_written_as_trace_events_with_their_threads() {
        let (_dir, t) = timeline(16);
        let began = Instant::now();
        t.span(What::Node(0), About::Sample(7), began);
        t.span(
            What::Read(0),
            About::Read {
                index: 7,
                bytes: 100,
            },
            began,
        );
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("adl-worker-9".into())
                .spawn_scoped(scope, || {
                    let batch = About::Batch {
                        batch: 3,
                        samples: 4,
                    };
                    t.span(What::Collate, batch, Instant::now());
                })
                .unwrap();
        });
        t.write().unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(t.path()).unwrap()).unwrap();
        let events = json["traceEvents"].as_array().unwrap();
        let spans: Vec<_> = events.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(spans.len(), 3);
        assert_eq!(spans[0]["name"], "camera/decode");
        assert_eq!(spans[0]["args"]["index"], 7);
        assert_eq!(spans[1]["args"]["sensor"], "camera");
        assert_eq!(spans[1]["args"]["bytes"], 100);
        assert_eq!(spans[2]["name"], "collate");
        assert_eq!(spans[2]["args"]["batch"], 3);
        let worker = spans[2]["tid"].clone();
        assert_ne!(worker, spans[0]["tid"]);
        assert!(events.iter().any(|e| e["ph"] == "M"
            && e["name"] == "thread_name"
            && e["tid"] == worker
            && e["args"]["name"] == "adl-worker-9"));
        assert_eq!(json["otherData"]["dropped"], 0);
    }

    #[test]
    fn the_ring_keeps_the_last_spans_and_counts_the_rest() {
        let (_dir, t) = timeline(3);
        for i in 0..10 {
            t.span(What::Sample, About::Sample(i), Instant::now());
        }
        t.write().unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(t.path()).unwrap()).unwrap();
        let kept: Vec<_> = json["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| e["args"]["index"].as_u64().unwrap())
            .collect();
        assert_eq!(kept, [7, 8, 9]);
        assert_eq!(json["otherData"]["dropped"], 7);
    }

    #[test]
    fn the_file_is_written_again_only_after_new_spans() {
        let (_dir, t) = timeline(4);
        t.span(What::Sample, About::Sample(0), Instant::now());
        t.write().unwrap();
        // No span since: the file stands as it was (here: removed, and
        // not made again).
        std::fs::remove_file(t.path()).unwrap();
        t.write().unwrap();
        assert!(!t.path().exists());
        t.span(What::Sample, About::Sample(1), Instant::now());
        t.write().unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(t.path()).unwrap()).unwrap();
        let spans = json["traceEvents"].as_array().unwrap();
        assert_eq!(spans.iter().filter(|e| e["ph"] == "X").count(), 2);
    }

    #[test]
    fn a_file_that_cannot_be_written_is_an_error() {
        let t = Timeline::new(
            PathBuf::from("/nonexistent-adl-folder/run.json"),
            4,
            Vec::new(),
            Vec::new(),
            "get",
        );
        t.span(What::Wait, About::InBatch(0), Instant::now());
        assert!(t.write().is_err());
    }
}

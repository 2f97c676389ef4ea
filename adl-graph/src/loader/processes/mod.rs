//! Worker processes: the loader's batches made in other processes, beside
//! its worker threads, for code that may not run on threads at once (a
//! Python dataset or pipeline: see [`Execution`](super::Execution), which
//! chooses between them).
//!
//! The loader decides every batch's indices as it does with threads (the
//! order, the shard, where an epoch resumes), and its thread that makes a
//! batch hands the indices to the process with the fewest batches queued
//! ([`WorkerProcesses::ask`]): it writes them on the process's socket and
//! reads the reply, both without any lock but the socket's. The batch's
//! arrays come back through shared memory ([`Blocks`]): each request lends
//! the process a block (a file in `/dev/shm` that the loader made and
//! maps, named the first time the process gets it), the process writes
//! the arrays' bytes into it and sends where each lies; the bindings view
//! them there, without a copy, and give the block back to its pool when
//! the last view is freed. A batch whose buffers do not fit comes whole,
//! with the bytes they needed (the next block lent is that large). A
//! process that dies is an error naming it (its number, pid and how it
//! ended) for the batch it owed and each later one it is given, never a
//! wait.
//!
//! What a process runs and how its batch is encoded are the bindings'
//! (Python's: `adl._processes` starts the processes with
//! `multiprocessing`'s `spawn`, runs the dataset and pipeline, pickles
//! the batch with protocol 5); the loader's side is here, with its
//! tests.
//!
//! # The protocol
//!
//! Request, little-endian: a flag byte (1: leave failed samples out), the
//! number of indices (4 bytes), the block's number (4 bytes; 2^32 - 1:
//! none lent), its size (8 bytes), the length of its name (2 bytes; 0
//! where the process has it already), the number of blocks the loader
//! unmapped (2 bytes), the name, those blocks' numbers (4 bytes each: the
//! process unmaps them too, so that their memory is freed), the indices (8
//! bytes each).
//!
//! Reply: a status byte ([`Status`]), the payload's length (8 bytes), the
//! bytes the buffers needed (8 bytes; 0 where they fit or there are
//! none), the payload. A [`Status::InBlock`] payload is the number of
//! buffers (4 bytes), each one's offset and length in the block (8 bytes
//! each), then the batch's own encoding ([`Reply::buffers`]).

mod shared_memory;
mod worker;

use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use adl_core::{BoxError, Error, Result};

pub use shared_memory::{Block, Blocks, Lease, NO_BLOCK};
use worker::Worker;

/// A worker process as the loader knows it: what names it in an error.
pub trait WorkerProcess: Send + Sync {
    /// Its process id.
    fn pid(&self) -> u32;

    /// How it ended, in words ("it was killed by signal 9"), asked once its
    /// socket has closed; it may wait a moment for the process to be
    /// reaped.
    fn end(&self) -> String;
}

/// What a reply holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A batch, encoded whole (with the samples it left out).
    Whole,
    /// The error a sample or the collate raised (with the sample, if one).
    Raised,
    /// A batch whose buffers are in the block lent: see
    /// [`Reply::buffers`].
    InBlock,
}

impl Status {
    /// The status of byte `byte`, if it is one.
    fn of(byte: u8) -> Option<Status> {
        match byte {
            0 => Some(Status::Whole),
            1 => Some(Status::Raised),
            2 => Some(Status::InBlock),
            _ => None,
        }
    }
}

/// A process's reply to one request.
#[derive(Debug)]
pub struct Reply {
    /// What it holds.
    pub status: Status,
    /// Its bytes.
    pub payload: Vec<u8>,
    /// The block lent, where the batch's buffers are in it
    /// ([`Status::InBlock`]): the bindings' to give back
    /// ([`Blocks::give_back`]) once nothing views it.
    pub block: Option<Block>,
}

impl Reply {
    /// An [`InBlock`](Status::InBlock) reply's buffers (each one's offset
    /// and length in the block, checked to lie inside it) and the rest of
    /// the payload (the batch's own encoding); an error saying what is
    /// wrong with a reply that does not hold them.
    pub fn buffers(&self) -> std::result::Result<InBlock<'_>, String> {
        let block = (self.block.as_ref())
            .ok_or("a reply names buffers in shared memory, but no block was lent")?;
        let short = || "a reply's table of buffers is cut short".to_string();
        let count = self.payload.get(..4).ok_or_else(short)?;
        let count = u32::from_le_bytes([count[0], count[1], count[2], count[3]]) as usize;
        let end = (count.checked_mul(16))
            .and_then(|n| n.checked_add(4))
            .ok_or_else(short)?;
        let table = self.payload.get(4..end).ok_or_else(short)?;
        let mut buffers = Vec::with_capacity(count);
        for entry in table.chunks_exact(16) {
            let word = |at: usize| {
                let mut bytes = [0u8; 8];
                bytes.copy_from_slice(&entry[at..at + 8]);
                u64::from_le_bytes(bytes)
            };
            let (offset, len) = (word(0), word(8));
            let inside = (offset.checked_add(len)).is_some_and(|end| end <= block.len() as u64);
            if !inside {
                return Err(format!(
                    "a reply names a buffer outside its block ({len} bytes at {offset}, in a block of {})",
                    block.len()
                ));
            }
            buffers.push((offset as usize, len as usize));
        }
        Ok(InBlock {
            buffers,
            encoded: &self.payload[end..],
        })
    }
}

/// An [`InBlock`](Status::InBlock) reply read: where each buffer lies in
/// the block, and the batch's own encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InBlock<'a> {
    /// Each buffer's offset and length in the block, inside it.
    pub buffers: Vec<(usize, usize)>,
    /// The rest of the payload: the batch, its buffers named by position.
    pub encoded: &'a [u8],
}

/// A reply and the pool its block came from.
#[derive(Debug)]
pub struct Answer {
    /// The reply.
    pub reply: Reply,
    /// The pool of the process that made it, where its block goes back.
    pub blocks: Arc<Blocks>,
}

/// A worker process as it was started: the process, the loader's end of
/// its socket, and its pool of shared memory (whose
/// [`names`](Blocks::names) the process was told).
pub struct Started<P> {
    /// The process.
    pub process: P,
    /// The loader's end of its socket.
    pub socket: UnixStream,
    /// Its shared memory.
    pub blocks: Arc<Blocks>,
}

/// The worker processes of one loader: see the [module docs](self).
pub struct WorkerProcesses<P> {
    workers: Vec<Worker<P>>,
    /// The samples the processes left out, with why, in the order their
    /// batches came back.
    skipped: Mutex<Vec<(usize, String)>>,
    /// Batches made, and nanoseconds the loader's threads waited for them.
    made: AtomicU64,
    waited: AtomicU64,
    /// Of the batches made, those whose arrays came in shared memory.
    shared: AtomicU64,
}

/// `mutex` locked, even where a thread panicked holding it (what it
/// guards is counts and lists, whole after every step).
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl<P: WorkerProcess> WorkerProcesses<P> {
    /// The loader's side of `started` (one or more), numbered in order; an
    /// error where a socket cannot be read from.
    pub fn new(started: Vec<Started<P>>) -> Result<Self> {
        if started.is_empty() {
            return Err(Error::invalid(
                "worker processes",
                "none were started: give one or more",
            ));
        }
        let workers = (started.into_iter().enumerate())
            .map(|(number, s)| {
                Worker::new(number, s.process, s.socket, s.blocks).map_err(|e| {
                    Error::read(
                        format_args!("the loader's worker process {number}"),
                        None,
                        format!("its socket cannot be read from: {e}"),
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(WorkerProcesses {
            workers,
            skipped: Mutex::new(Vec::new()),
            made: AtomicU64::new(0),
            waited: AtomicU64::new(0),
            shared: AtomicU64::new(0),
        })
    }

    /// How many processes there are.
    pub fn len(&self) -> usize {
        self.workers.len()
    }

    /// Whether there are none (never: [`new`](Self::new) refuses none).
    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }

    /// The batch of `indices`, made by the process with the fewest batches
    /// queued (its failed samples left out where `skip`): its reply, or an
    /// error naming the process (number, pid, how it ended) where it sent
    /// none, as the collate's error.
    pub fn ask(&self, indices: &[usize], skip: bool) -> Result<Answer> {
        let asked = Instant::now();
        let Some(worker) = (self.workers.iter()).min_by_key(|w| w.queued.load(Ordering::Relaxed))
        else {
            return Err(Error::internal("worker processes", "none to ask"));
        };
        let reply = worker.ask(indices, skip);
        let waited = u64::try_from(asked.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.waited.fetch_add(waited, Ordering::Relaxed);
        self.made.fetch_add(1, Ordering::Relaxed);
        let reply = reply.map_err(|why| {
            collate_failed(Error::read(
                format_args!(
                    "the loader's worker process {} (pid {})",
                    worker.number,
                    worker.process.pid()
                ),
                None,
                format!("{why}: {}", worker.process.end()),
            ))
        })?;
        if reply.status == Status::InBlock {
            self.shared.fetch_add(1, Ordering::Relaxed);
        }
        Ok(Answer {
            reply,
            blocks: Arc::clone(&worker.blocks),
        })
    }

    /// The processes left out these samples (`on_error="skip"`), with why:
    /// kept, said as the loader says a sample its threads left out.
    pub fn left_out(&self, samples: impl IntoIterator<Item = (usize, String)>) {
        let said = (samples.into_iter())
            .map(|(index, text)| (index, format!("{:#}", sample_failed(index, text))));
        lock(&self.skipped).extend(said);
    }

    /// The samples left out so far, from the `from`th, in the order their
    /// batches were made.
    pub fn skipped_from(&self, from: usize) -> Vec<(usize, String)> {
        lock(&self.skipped).get(from..).unwrap_or_default().to_vec()
    }

    /// How many samples were left out so far.
    pub fn skipped_count(&self) -> usize {
        lock(&self.skipped).len()
    }

    /// A line for the loader's statistics: batches made, in shared memory,
    /// and the threads' wait for them.
    pub fn report(&self) -> String {
        let made = self.made.load(Ordering::Relaxed);
        let waited = self.waited.load(Ordering::Relaxed) as f64 / 1e9;
        let (blocks, bytes) = (self.workers.iter())
            .map(|w| w.blocks.made())
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        let failed = (self.workers.iter())
            .find_map(|w| w.blocks.failed())
            .map(|why| format!(" ({why})"))
            .unwrap_or_default();
        format!(
            "Processes: {} worker processes made {made} batches, {} with their arrays in shared memory ({blocks} blocks made, {:.1} MB){failed}; the loader's threads waited {:.1} ms for them ({:.2} ms a batch)",
            self.workers.len(),
            self.shared.load(Ordering::Relaxed),
            bytes as f64 / 1e6,
            waited * 1e3,
            if made == 0 {
                0.0
            } else {
                waited * 1e3 / made as f64
            }
        )
    }
}

/// Sample `index` failed in a worker process: the error the loader's
/// threads give for a dataset's read that fails.
pub fn sample_failed(index: usize, cause: impl Into<BoxError>) -> Error {
    Error::Sample {
        index,
        node: "dataset".into(),
        cause: Box::new(Error::read("the dataset", index, cause)),
    }
}

/// A batch's collate failed: in its worker process, or its reply could
/// not be read.
pub fn collate_failed(cause: impl Into<BoxError>) -> Error {
    Error::Transform {
        node: "collate".into(),
        cause: cause.into(),
    }
}

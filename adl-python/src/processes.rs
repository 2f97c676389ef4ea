//! [`Processes`]: the worker processes of `adl.Loader(..., processes=True)`,
//! which run the Python code that holds the GIL (the dataset's
//! `__getitem__`, the pipeline's `sample` and `collate`) in their own
//! interpreters, so that it runs in parallel.
//!
//! The loader decides each batch's indices as it does with threads (the
//! order, the shard, where an epoch resumes), and its thread that makes
//! batch `k` hands the indices to an idle process (`adl._processes` says
//! the protocol): it writes them on the process's socket and reads the
//! pickled batch back without the GIL, taking the GIL only to unpickle it.
//! The batch's arrays come through shared memory ([`Blocks`]): NumPy
//! arrays over a block the process wrote them into, not copies.
//! A process that dies is an error naming it (its number, pid and exit
//! code) for the batch it owed and each later one it is given, never a
//! wait.

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use adl_core::{BoxError, Error, Result};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::errors::PythonError;
use crate::gil::GilTime;
use crate::shared_blocks::{self, Blocks, NO_BLOCK};

/// One worker process, the loader's end of its socket, and the turns of
/// the batches asked of it: a process makes its batches in the order they
/// were asked, so each asker reads its reply in its turn.
struct Worker {
    number: usize,
    pid: u32,
    process: Py<PyAny>,
    /// The writing side, and the number of batches asked so far.
    writing: Mutex<(UnixStream, u64)>,
    /// The reading side, and the number of replies read so far.
    reading: Mutex<(UnixStream, u64)>,
    /// Woken when a reply has been read.
    turn: Condvar,
    /// Batches asked and not yet read.
    queued: std::sync::atomic::AtomicUsize,
    /// The shared memory its batches' arrays come in.
    blocks: Arc<Blocks>,
}

/// A reply's status (0: a batch pickled whole): the exception a sample or
/// the collate raised.
const RAISED: u8 = 1;
/// A reply's status: a batch whose arrays are in the block lent.
const IN_BLOCK: u8 = 2;

/// A reply: its status, payload, and the block lent where the batch's
/// arrays are in it.
struct Reply {
    status: u8,
    payload: Vec<u8>,
    block: Option<shared_blocks::Block>,
}

/// The worker processes of one loader.
pub(crate) struct Processes {
    workers: Vec<Worker>,
    /// The samples the processes left out (`on_error="skip"`), with why,
    /// in the order their batches came back.
    skipped: Mutex<Vec<(usize, String)>>,
    /// Batches made, and nanoseconds the loader's threads waited for them.
    made: AtomicU64,
    waited: AtomicU64,
    /// Of the batches made, those whose arrays came in shared memory.
    shared: AtomicU64,
}

impl Processes {
    /// Start `count` processes of `dataset` and `pipeline` (refused where
    /// the two weigh over `limit` bytes pickled, where there is a limit),
    /// each keeping at most `kept` free blocks of shared memory.
    pub(crate) fn start(
        py: Python<'_>,
        dataset: &Bound<'_, PyAny>,
        pipeline: Option<&Bound<'_, PyAny>>,
        count: usize,
        limit: Option<usize>,
        kept: usize,
    ) -> PyResult<Processes> {
        // Each process's pool of shared memory first: the process is told
        // its blocks' names, to unlink any left once its loader is gone.
        let pools: Vec<Arc<Blocks>> = (0..count).map(|w| Blocks::new(w, kept)).collect();
        let names: Vec<String> = pools.iter().map(|b| b.names()).collect();
        let started = py
            .import("adl._processes")?
            .getattr("start")?
            .call1((dataset, pipeline, count, "spawn", limit, names))?;
        let mut workers = Vec::with_capacity(count);
        for (number, item) in started.try_iter()?.enumerate() {
            let (process, fd): (Bound<'_, PyAny>, RawFd) = item?.extract()?;
            // SAFETY: `fd` is a duplicate made for the loader by
            // `adl._processes.start` (`os.dup` of a socket pair's end),
            // open, and owned by nothing else: the `OwnedFd` becomes its
            // only owner and closes it.
            let socket = UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) });
            let reading = socket.try_clone().map_err(|e| {
                pyo3::exceptions::PyOSError::new_err(format!(
                    "cannot read from the loader's worker process {number}: {e}"
                ))
            })?;
            workers.push(Worker {
                number,
                pid: process.getattr("pid")?.extract()?,
                process: process.unbind(),
                writing: Mutex::new((socket, 0)),
                reading: Mutex::new((reading, 0)),
                turn: Condvar::new(),
                queued: std::sync::atomic::AtomicUsize::new(0),
                blocks: Arc::clone(&pools[number]),
            });
        }
        Ok(Processes {
            workers,
            skipped: Mutex::new(Vec::new()),
            made: AtomicU64::new(0),
            waited: AtomicU64::new(0),
            shared: AtomicU64::new(0),
        })
    }

    /// The batch of `indices`, made by the process with the fewest batches
    /// queued (its samples that fail left out and noted where `skip`): the
    /// batch, or the error of the exception a sample raised (its cause,
    /// naming the sample) or of the death of the process.
    pub(crate) fn batch(&self, indices: &[usize], skip: bool, gil: &GilTime) -> Result<Py<PyAny>> {
        let asked = Instant::now();
        let worker = (self.workers.iter())
            .min_by_key(|w| w.queued.load(Ordering::Relaxed))
            .expect("at least one worker process");
        let reply = worker.ask(indices, skip);
        let waited = u64::try_from(asked.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.waited.fetch_add(waited, Ordering::Relaxed);
        self.made.fetch_add(1, Ordering::Relaxed);
        let Reply {
            status,
            payload,
            block,
        } = reply.map_err(|why| {
            let end = gil
                .attach(|py| Ok(worker.end(py)))
                .unwrap_or_else(|_| "the interpreter is exiting".into());
            collate_failed(Error::read(
                format_args!(
                    "the loader's worker process {} (pid {})",
                    worker.number, worker.pid
                ),
                None,
                format!("{why}: {end}"),
            ))
        })?;
        if status == IN_BLOCK {
            self.shared.fetch_add(1, Ordering::Relaxed);
        }
        gil.attach(|py| {
            let unpickled = unpickle(py, status, &payload, block, &worker.blocks)
                .and_then(|v| Ok(v.cast_into::<PyTuple>()?))
                .map_err(|e| collate_error(py, e))?;
            let (value, about) = (unpickled.get_item(0), unpickled.get_item(1));
            let (value, about) = value
                .and_then(|v| Ok((v, about?)))
                .map_err(|e| collate_error(py, e))?;
            if status != RAISED {
                let skipped: Vec<(usize, String)> =
                    about.extract().map_err(|e| collate_error(py, e))?;
                // Said as the loader says a sample its threads left out.
                let said = (skipped.into_iter())
                    .map(|(index, text)| (index, format!("{:#}", sample_failed(index, text))));
                lock(&self.skipped).extend(said);
                return Ok(value.unbind());
            }
            let error = PythonError::new(py, PyErr::from_value(value));
            Err(match about.extract::<Option<usize>>().ok().flatten() {
                Some(index) => sample_failed(index, error),
                None => collate_failed(error),
            })
        })
    }

    /// The samples left out so far (`on_error="skip"`), from the `from`th,
    /// in the order their batches were made.
    pub(crate) fn skipped_from(&self, from: usize) -> Vec<(usize, String)> {
        lock(&self.skipped).get(from..).unwrap_or_default().to_vec()
    }

    /// How many samples were left out so far.
    pub(crate) fn skipped_count(&self) -> usize {
        lock(&self.skipped).len()
    }

    /// A line for the loader's statistics.
    pub(crate) fn report(&self) -> String {
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

/// A reply's batch (or exception) unpickled: an [`IN_BLOCK`] payload's
/// buffers are NumPy arrays over `block` (see [`shared_blocks::buffers`]).
fn unpickle<'py>(
    py: Python<'py>,
    status: u8,
    payload: &[u8],
    block: Option<shared_blocks::Block>,
    home: &Arc<Blocks>,
) -> PyResult<Bound<'py, PyAny>> {
    let loads = py.import("pickle")?.getattr("loads")?;
    if status != IN_BLOCK {
        return loads.call1((PyBytes::new(py, payload),));
    }
    let bad = || pyo3::exceptions::PyValueError::new_err("a reply's table of buffers is cut short");
    let count = payload
        .get(..4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
        .ok_or_else(bad)?;
    let end = count
        .checked_mul(16)
        .and_then(|n| n.checked_add(4))
        .ok_or_else(bad)?;
    let table: Vec<(u64, u64)> = payload
        .get(4..end)
        .ok_or_else(bad)?
        .chunks_exact(16)
        .map(|c| {
            let word = |i: usize| u64::from_le_bytes(c[i..i + 8].try_into().expect("8 bytes"));
            (word(0), word(8))
        })
        .collect();
    let block = block.ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(
            "a reply names buffers in shared memory, but no block was lent",
        )
    })?;
    let buffers =
        shared_blocks::buffers(py, block, Arc::clone(home), &table)?.ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("a reply names a buffer outside its block")
        })?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("buffers", buffers)?;
    loads.call((PyBytes::new(py, &payload[end..]),), Some(&kwargs))
}

/// One reply from `socket`: its status, payload and the bytes its buffers
/// needed.
fn read_reply(socket: &mut UnixStream) -> std::result::Result<(u8, Vec<u8>, u64), String> {
    let mut head = [0u8; 17];
    socket.read_exact(&mut head).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset => {
            "it ended before it sent its batch".to_string()
        }
        _ => format!("its reply cannot be read ({e})"),
    })?;
    let len = u64::from_le_bytes(head[1..9].try_into().expect("8 bytes"));
    let needed = u64::from_le_bytes(head[9..17].try_into().expect("8 bytes"));
    let len = usize::try_from(len).map_err(|_| format!("a reply of {len} bytes"))?;
    let mut payload = vec![0; len];
    socket
        .read_exact(&mut payload)
        .map_err(|e| format!("its reply is cut short ({e})"))?;
    Ok((head[0], payload, needed))
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sample `index` failed in a worker process: the error the loader's
/// threads give for a dataset's read that fails.
fn sample_failed(index: usize, cause: impl Into<BoxError>) -> Error {
    Error::Sample {
        index,
        node: "dataset".into(),
        cause: Box::new(Error::read("the dataset", index, cause)),
    }
}

/// A batch's collate failed: in its worker process, or its reply could
/// not be read.
fn collate_failed(cause: impl Into<BoxError>) -> Error {
    Error::Transform {
        node: "collate".into(),
        cause: cause.into(),
    }
}

/// A reply that cannot be read as one, as the collate's error.
fn collate_error(py: Python<'_>, error: PyErr) -> Error {
    collate_failed(PythonError::new(py, error))
}

impl Worker {
    /// Ask for the batch of `indices`, lending a block of shared memory
    /// for its arrays, then read its reply in its turn: the reply, or why
    /// there is none.
    fn ask(&self, indices: &[usize], skip: bool) -> std::result::Result<Reply, String> {
        let mut lease = self.blocks.lend();
        let name = lease
            .as_ref()
            .and_then(|l| l.name.as_ref())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name_len = u16::try_from(name.len()).map_err(|_| "a block's name over 64 KiB")?;
        let forgotten = self.blocks.take_forgotten(usize::from(u16::MAX));
        let mut request =
            Vec::with_capacity(21 + name.len() + 4 * forgotten.len() + 8 * indices.len());
        request.push(u8::from(skip));
        let count = u32::try_from(indices.len()).map_err(|_| "a batch of over 2^32 samples")?;
        request.extend(count.to_le_bytes());
        let (number, size) = lease
            .as_ref()
            .map_or((NO_BLOCK, 0), |l| (l.block.number(), l.block.len() as u64));
        request.extend(number.to_le_bytes());
        request.extend(size.to_le_bytes());
        request.extend(name_len.to_le_bytes());
        // At most u16::MAX, as taken.
        request.extend((forgotten.len() as u16).to_le_bytes());
        request.extend(name.as_bytes());
        for number in forgotten {
            request.extend(number.to_le_bytes());
        }
        for &index in indices {
            request.extend((index as u64).to_le_bytes());
        }
        self.queued.fetch_add(1, Ordering::Relaxed);
        let (turn, unsent) = {
            let mut writing = lock(&self.writing);
            let turn = writing.1;
            writing.1 += 1;
            let unsent = writing.0.write_all(&request).err();
            if unsent.is_some() {
                // Its process is gone: the socket is shut, so that this
                // turn's read and every later one end at once.
                let _ = writing.0.shutdown(std::net::Shutdown::Both);
            }
            (turn, unsent)
        };
        // Read in turn even where the request was not sent, so that the
        // turns after it come.
        let mut reading = lock(&self.reading);
        while reading.1 != turn {
            reading = self.turn.wait(reading).unwrap_or_else(|p| p.into_inner());
        }
        let reply = match unsent {
            Some(e) => Err(format!("it cannot be given a batch ({e})")),
            None => read_reply(&mut reading.0),
        };
        reading.1 += 1;
        drop(reading);
        self.turn.notify_all();
        self.queued.fetch_sub(1, Ordering::Relaxed);
        // Answered, or never will be: the process has mapped the block by
        // its name, or is gone.
        if let Some(lease) = lease.as_mut() {
            lease.unlink();
        }
        let reply = reply.map(|(status, payload, needed)| {
            if needed > 0 {
                self.blocks.needed(needed);
            }
            (status, payload)
        });
        // The block goes with a batch whose arrays are in it; else (a
        // batch pickled whole, an exception, no reply) it is free again.
        let block = lease.map(|lease| lease.block);
        let block = match (&reply, block) {
            (Ok((IN_BLOCK, _)), block) => block,
            (_, Some(block)) => {
                self.blocks.give_back(block);
                None
            }
            (_, None) => None,
        };
        reply.map(|(status, payload)| Reply {
            status,
            payload,
            block,
        })
    }

    /// How the process ended, in words (waiting up to a second for its
    /// exit code: two threads that find it dead at once both ask, and the
    /// one whose wait did not reap it reads the code a moment later).
    fn end(&self, py: Python<'_>) -> String {
        let process = self.process.bind(py);
        let mut code = None;
        for _ in 0..20 {
            if let Err(e) = process.call_method1("join", (0.05,)) {
                return format!("it cannot be waited for ({e})");
            }
            code = process
                .getattr("exitcode")
                .and_then(|c| c.extract::<Option<i32>>())
                .ok()
                .flatten();
            if code.is_some() {
                break;
            }
            py.detach(|| std::thread::sleep(std::time::Duration::from_millis(50)));
        }
        match code {
            Some(code) if code < 0 => format!("it was killed by signal {}", -code),
            Some(code) => format!("it exited with code {code}"),
            None => "it is still running, but its socket is closed".into(),
        }
    }
}

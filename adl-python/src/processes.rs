//! [`Processes`]: the worker processes of `adl.Loader(..., processes=True)`
//! (or chosen by `adl::graph::loader::Execution`), which run the Python
//! code that holds the GIL (the dataset's `__getitem__`, the pipeline's
//! `sample` and `collate`) in their own interpreters, so that it runs in
//! parallel.
//!
//! The loader's side of them (asking, the turns, shared memory, a process
//! that dies named) is adl-graph's `loader::processes`; here is what is
//! Python's: starting them (`adl._processes`, `multiprocessing`'s
//! `spawn`), how one ended (its `exitcode`), and a reply unpickled, its
//! arrays NumPy arrays over the block they came in
//! ([`shared_blocks::buffers`]).

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use adl_core::{Error, Result};
use adl_graph::loader::processes::{
    Answer, Blocks, Started, Status, WorkerProcess, WorkerProcesses, collate_failed, sample_failed,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::errors::PythonError;
use crate::gil::GilTime;
use crate::shared_blocks;

/// A worker process of Python's `multiprocessing`.
struct PyProcess {
    pid: u32,
    process: Py<PyAny>,
    gil: Arc<GilTime>,
}

impl WorkerProcess for PyProcess {
    fn pid(&self) -> u32 {
        self.pid
    }

    /// How the process ended, in words (waiting up to a second for its
    /// exit code: two threads that find it dead at once both ask, and the
    /// one whose wait did not reap it reads the code a moment later).
    fn end(&self) -> String {
        self.gil
            .attach(|py| Ok(ended(self.process.bind(py))))
            .unwrap_or_else(|_| "the interpreter is exiting".into())
    }
}

/// How `process` ended: see [`PyProcess::end`].
fn ended(process: &Bound<'_, PyAny>) -> String {
    let py = process.py();
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

/// The worker processes of one loader.
pub(crate) struct Processes {
    processes: WorkerProcesses<PyProcess>,
    gil: Arc<GilTime>,
}

impl Processes {
    /// Start `count` processes of `dataset` and `pipeline` (refused where
    /// the two weigh over `limit` bytes pickled, where there is a limit),
    /// each with its pool of shared memory (kept small `under_budget`).
    pub(crate) fn start(
        py: Python<'_>,
        dataset: &Bound<'_, PyAny>,
        pipeline: Option<&Bound<'_, PyAny>>,
        count: usize,
        limit: Option<usize>,
        under_budget: bool,
        gil: Arc<GilTime>,
    ) -> PyResult<Processes> {
        // Each process's pool of shared memory first: the process is told
        // its blocks' names, to unlink any left once its loader is gone.
        let pools = Blocks::pools(count, under_budget);
        let names: Vec<String> = pools.iter().map(|b| b.names()).collect();
        let started = py
            .import("adl._processes")?
            .getattr("start")?
            .call1((dataset, pipeline, count, "spawn", limit, names))?;
        let mut workers = Vec::with_capacity(count);
        for (item, blocks) in started.try_iter()?.zip(pools) {
            let (process, fd): (Bound<'_, PyAny>, RawFd) = item?.extract()?;
            // SAFETY: `fd` is a duplicate made for the loader by
            // `adl._processes.start` (`os.dup` of a socket pair's end),
            // open, and owned by nothing else: the `OwnedFd` becomes its
            // only owner and closes it.
            let socket = UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) });
            workers.push(Started {
                process: PyProcess {
                    pid: process.getattr("pid")?.extract()?,
                    process: process.unbind(),
                    gil: Arc::clone(&gil),
                },
                socket,
                blocks,
            });
        }
        let processes = WorkerProcesses::new(workers).map_err(crate::errors::to_python)?;
        Ok(Processes { processes, gil })
    }

    /// The batch of `indices`, made by a worker process (its samples that
    /// fail left out and noted where `skip`): the batch, or the error of
    /// the exception a sample raised (its cause, naming the sample) or of
    /// the death of the process.
    pub(crate) fn batch(&self, indices: &[usize], skip: bool) -> Result<Py<PyAny>> {
        let Answer { reply, blocks } = self.processes.ask(indices, skip)?;
        let status = reply.status;
        self.gil.attach(|py| {
            let unpickled = unpickle(py, reply, blocks)
                .and_then(|v| Ok(v.cast_into::<PyTuple>()?))
                .map_err(|e| collate_error(py, e))?;
            let (value, about) = (unpickled.get_item(0), unpickled.get_item(1));
            let (value, about) = value
                .and_then(|v| Ok((v, about?)))
                .map_err(|e| collate_error(py, e))?;
            if status != Status::Raised {
                let skipped: Vec<(usize, String)> =
                    about.extract().map_err(|e| collate_error(py, e))?;
                self.processes.left_out(skipped);
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
        self.processes.skipped_from(from)
    }

    /// How many samples were left out so far.
    pub(crate) fn skipped_count(&self) -> usize {
        self.processes.skipped_count()
    }

    /// A line for the loader's statistics.
    pub(crate) fn report(&self) -> String {
        self.processes.report()
    }
}

/// A reply's batch (or exception) unpickled: an in-block payload's
/// buffers are NumPy arrays over its block (see
/// [`shared_blocks::buffers`]), which goes back to `home` once Python
/// frees them.
fn unpickle<'py>(
    py: Python<'py>,
    reply: adl_graph::loader::processes::Reply,
    home: Arc<Blocks>,
) -> PyResult<Bound<'py, PyAny>> {
    let loads = py.import("pickle")?.getattr("loads")?;
    if reply.status != Status::InBlock {
        return loads.call1((PyBytes::new(py, &reply.payload),));
    }
    // The table, and where the pickle starts in the payload: read in
    // place, the block then moved out of the reply.
    let (table, start) = match reply.buffers() {
        Ok(in_block) => (
            in_block.buffers,
            reply.payload.len() - in_block.encoded.len(),
        ),
        Err(why) => {
            if let Some(block) = reply.block {
                home.give_back(block);
            }
            return Err(pyo3::exceptions::PyValueError::new_err(why));
        }
    };
    let Some(block) = reply.block else {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "a reply names buffers in shared memory, but no block was lent",
        ));
    };
    let buffers = shared_blocks::buffers(py, block, home, &table)?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("buffers", buffers)?;
    loads.call((PyBytes::new(py, &reply.payload[start..]),), Some(&kwargs))
}

/// A reply that cannot be read as one, as the collate's error.
fn collate_error(py: Python<'_>, error: PyErr) -> Error {
    collate_failed(PythonError::new(py, error))
}

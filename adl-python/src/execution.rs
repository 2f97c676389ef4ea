//! [`Execution`]: where an `adl.Loader` runs the Python code of its
//! dataset and pipeline, chosen in one place from what the user asked
//! (`processes=`), the workers, and whose code it is.
//!
//! Safe by default: users' Python code (a Python dataset, a Python
//! pipeline, Python transforms in an `adl.Pipeline`) may not be
//! thread-safe even under the GIL: a C extension can keep state between
//! calls (an FFT library's cached plans) and release the GIL mid-call, so
//! that two threads' calls share it. PyTorch's DataLoader never runs it on
//! threads, and neither does adl unless asked:
//!
//! | asked | workers | the code | runs |
//! |---|---|---|---|
//! | any | 0 | any | on the thread that iterates ([`Execution::Inline`]) |
//! | `processes=True` | 1 or more | a Python pipeline (or none) | in worker processes |
//! | unsaid | 1 or more | all adl's own (its sensors, traces, datasets, no Python pipeline; an `adl.Pipeline` of adl's transforms over them) | on worker threads, at once |
//! | unsaid | 1 or more | users' Python, with a Python pipeline (or none) | in worker processes, where the dataset and pipeline pickle in 64 MiB and unpickle there; else on worker threads, one call at a time |
//! | unsaid | 1 or more | users' Python under an `adl.Pipeline` | on worker threads, one call at a time (the pipeline runs in Rust, at once) |
//! | `processes=False` | 1 or more | any | on worker threads, at once: the user vouches that the code is thread-safe |
//!
//! One call at a time ([`crate::gil::GilTime::one_at_a_time`]) is the
//! promise the GIL alone does not keep: each call into Python ends before
//! the next begins, even where it releases the GIL.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Where a loader runs the Python code of its dataset and pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Execution {
    /// No workers: the thread that iterates makes every batch.
    Inline,
    /// Worker threads, their calls into Python at once.
    Threads,
    /// Worker threads, one call into Python at a time; why not processes.
    OneAtATime { why: String },
    /// Worker processes (each sent the dataset and pipeline pickled).
    Processes,
}

/// Whose Python code a loader calls, for [`Execution::choose`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    /// Only adl's own (its sensors, traces and datasets, no Python
    /// pipeline): thread-safe, mostly without the GIL.
    Adl,
    /// Users' Python code, with a Python pipeline or none: worker
    /// processes can run it.
    Users,
    /// An `adl.Pipeline` (or a dataset adl reads and collates in Rust),
    /// whose Rust nodes run on the loader's threads: no worker processes;
    /// `users`: it calls users' Python code (a Python dataset, Python
    /// transforms).
    AdlPipeline { users: bool },
}

impl Execution {
    /// The execution for `asked` (`processes=`), `workers` and `code`; an
    /// error where `processes=True` cannot be kept. Where it chooses
    /// processes unasked and they cannot start, the caller takes
    /// [`Execution::fallback`].
    pub(crate) fn choose(asked: Option<bool>, workers: usize, code: Code) -> PyResult<Execution> {
        match (asked, workers, code) {
            (Some(true), _, Code::AdlPipeline { users }) => Err(PyValueError::new_err(match users {
                false => {
                    "processes=True runs Python code in worker processes, and this loader calls none: adl's dataset and pipeline run in Rust on the loader's threads, without the GIL. Leave processes off"
                }
                true => {
                    "processes=True runs a Python pipeline in worker processes; an adl.Pipeline runs in Rust on the loader's threads, and the Python code it calls (the dataset, Python transforms) is called there one call at a time (at once with processes=False, for thread-safe code). Leave processes unsaid"
                }
            })),
            (Some(true), 0, _) => Err(PyValueError::new_err(
                "processes=True makes the samples in `workers` worker processes: give workers=1 or more",
            )),
            (_, 0, _) => Ok(Execution::Inline),
            (Some(true), _, _) | (None, _, Code::Users) => Ok(Execution::Processes),
            (Some(false), _, _)
            | (None, _, Code::Adl)
            | (None, _, Code::AdlPipeline { users: false }) => Ok(Execution::Threads),
            (None, _, Code::AdlPipeline { users: true }) => Ok(Execution::OneAtATime {
                why: "an adl.Pipeline runs on the loader's threads, and the Python code it calls (the dataset, Python transforms) is not known to be thread-safe".into(),
            }),
        }
    }

    /// Unasked processes that could not start (`cause`: the dataset or
    /// pipeline does not pickle, or is too large to send): threads, one
    /// call at a time.
    pub(crate) fn fallback(cause: &PyErr, py: Python<'_>) -> Execution {
        Execution::OneAtATime {
            why: format!("worker processes could not be used: {}", cause.value(py)),
        }
    }

    /// A line for the statistics: where the Python code runs, and why.
    pub(crate) fn report(&self, workers: usize) -> String {
        match self {
            Execution::Inline => "Execution: on the thread that iterates (workers=0)".into(),
            Execution::Threads => format!(
                "Execution: {workers} worker threads, calls into Python at once (processes=False, or adl's own code)"
            ),
            Execution::OneAtATime { why } => format!(
                "Execution: {workers} worker threads, one call into Python at a time ({why}; processes=False allows calls at once, for thread-safe code)"
            ),
            Execution::Processes => format!(
                "Execution: {workers} worker processes (the Python code is the user's; processes=False keeps threads, for thread-safe code)"
            ),
        }
    }
}

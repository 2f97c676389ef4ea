//! [`Execution`]: where a loader runs code that may not be thread-safe,
//! and the settings of a loader whose batches worker processes make.

use adl_core::{Error, Result};

/// The most the dataset and pipeline may weigh, encoded, to be sent to
/// worker processes unasked (each gets a copy; PyTorch's forked workers
/// share theirs until written, spawned ones cannot).
const UNASKED_LIMIT: usize = 64 << 20;

/// Batches asked of each worker process at once: one made, one queued, so
/// that none waits between its batches (a loader thread waits for each).
const ASKED_PER_PROCESS: usize = 2;

/// Batches ahead per worker process, at least: the batches come back in
/// order, and a process that is slower on one would otherwise leave the
/// others idle once their own were done and waiting (W6, 2 processes:
/// about 35,000 samples/s against 30,000 with a batch ahead per thread).
const AHEAD_PER_PROCESS: usize = 4;

/// Where a loader runs the code of its dataset and
/// pipeline where that code may not be thread-safe (a Python dataset or
/// pipeline, through the bindings' `adl.Loader`): chosen in one place from
/// what the user asked (`processes=`), the workers, and whose code it is;
/// with the settings of a loader whose batches worker processes make
/// ([`Execution::processes_settings`], [`Execution::sent_limit`]).
///
/// Safe by default: users' Python code (a Python dataset, a Python
/// pipeline, Python transforms in an `adl.Pipeline`) may not be
/// thread-safe even under the GIL: a C extension can keep state between
/// calls (an FFT library's cached plans) and release the GIL mid-call, so
/// that two threads' calls share it. PyTorch's DataLoader never runs it on
/// threads, and neither does adl unless asked:
///
/// | asked | workers | the code | runs |
/// |---|---|---|---|
/// | any | 0 | any | on the thread that iterates ([`Execution::Inline`]) |
/// | `processes=True` | 1 or more | a Python pipeline (or none) | in worker processes |
/// | unsaid | 1 or more | all adl's own (its sensors, traces, datasets, no Python pipeline; an `adl.Pipeline` of adl's transforms over them) | on worker threads, at once |
/// | unsaid | 1 or more | users' Python, with a Python pipeline (or none) | in worker processes, where the dataset and pipeline pickle in 64 MiB and unpickle there; else on worker threads, one call at a time |
/// | unsaid | 1 or more | users' Python under an `adl.Pipeline` | on worker threads, one call at a time (the pipeline runs in Rust, at once) |
/// | `processes=False` | 1 or more | any | on worker threads, at once: the user vouches that the code is thread-safe |
///
/// One call at a time (the bindings' `GilTime::one_at_a_time`) is the
/// promise the GIL alone does not keep: each call into Python ends before
/// the next begins, even where it releases the GIL. Worker processes are
/// `adl::graph::loader::processes` (on Unix).
///
/// ```
/// use adl::graph::loader::{Code, Execution};
///
/// assert_eq!(Execution::choose(None, 2, Code::Users)?, Execution::Processes);
/// assert_eq!(Execution::choose(None, 2, Code::Adl)?, Execution::Threads);
/// assert_eq!(Execution::choose(Some(true), 0, Code::Users).unwrap_err().to_string(),
///     "invalid processes: processes=True makes the samples in `workers` worker processes: give workers=1 or more");
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Execution {
    /// No workers: the thread that iterates makes every batch.
    Inline,
    /// Worker threads, their calls into Python at once.
    Threads,
    /// Worker threads, one call into Python at a time; why not processes.
    OneAtATime {
        /// Why not worker processes.
        why: String,
    },
    /// Worker processes (each sent the dataset and pipeline pickled).
    Processes,
}

/// Whose Python code a loader calls, for [`Execution::choose`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
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
    AdlPipeline {
        /// Whether it calls users' code.
        users: bool,
    },
}

impl Execution {
    /// The execution for `asked` (`processes=`), `workers` and `code`; an
    /// [`Error::InvalidParameter`] of `processes` where `processes=True`
    /// cannot be kept. Where it chooses processes unasked and they cannot
    /// start, the caller takes [`Execution::fallback`].
    pub fn choose(asked: Option<bool>, workers: usize, code: Code) -> Result<Execution> {
        let refused = |reason: &str| Err(Error::invalid("processes", reason));
        match (asked, workers, code) {
            (Some(true), _, Code::AdlPipeline { users }) => refused(match users {
                false => {
                    "processes=True runs Python code in worker processes, and this loader calls none: adl's dataset and pipeline run in Rust on the loader's threads, without the GIL. Leave processes off"
                }
                true => {
                    "processes=True runs a Python pipeline in worker processes; an adl.Pipeline runs in Rust on the loader's threads, and the Python code it calls (the dataset, Python transforms) is called there one call at a time (at once with processes=False, for thread-safe code). Leave processes unsaid"
                }
            }),
            (Some(true), 0, _) => refused(
                "processes=True makes the samples in `workers` worker processes: give workers=1 or more",
            ),
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
    pub fn fallback(cause: impl std::fmt::Display) -> Execution {
        Execution::OneAtATime {
            why: format!("worker processes could not be used: {cause}"),
        }
    }

    /// The most bytes the dataset and pipeline may weigh, encoded, to be
    /// sent to worker processes: 64 MiB where they were not asked for
    /// (over it, [`fallback`](Self::fallback)), no limit where they were.
    pub fn sent_limit(asked: Option<bool>) -> Option<usize> {
        asked.is_none().then_some(UNASKED_LIMIT)
    }

    /// A loader's threads and batches ahead where `workers` worker
    /// processes make its batches (`batches_ahead` as given, a memory
    /// budget or not): two batches asked of each process at once, so
    /// twice the threads, each waiting for one; at least four batches
    /// ahead per process, as they come back in order; under a budget the
    /// loader chooses its batches ahead, unless they were given.
    ///
    /// ```
    /// use adl::graph::loader::Execution;
    ///
    /// assert_eq!(Execution::processes_settings(2, None, false), (4, Some(8)));
    /// assert_eq!(Execution::processes_settings(2, Some(16), false), (4, Some(16)));
    /// assert_eq!(Execution::processes_settings(2, None, true), (4, None));
    /// ```
    pub fn processes_settings(
        workers: usize,
        batches_ahead: Option<usize>,
        under_budget: bool,
    ) -> (usize, Option<usize>) {
        let ahead = match (batches_ahead, under_budget) {
            (None, true) => None,
            (given, _) => Some(given.unwrap_or(2).max(AHEAD_PER_PROCESS * workers)),
        };
        (ASKED_PER_PROCESS * workers, ahead)
    }

    /// A line for the statistics: where the Python code runs, and why.
    pub fn report(&self, workers: usize) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of the table, by what was asked, the workers and the code.
    #[test]
    fn each_row_of_the_table() {
        let users = Code::AdlPipeline { users: true };
        let own = Code::AdlPipeline { users: false };
        for code in [Code::Adl, Code::Users, users, own] {
            for asked in [None, Some(false)] {
                assert_eq!(
                    Execution::choose(asked, 0, code).ok(),
                    Some(Execution::Inline)
                );
            }
            assert_eq!(
                Execution::choose(Some(false), 3, code).ok(),
                Some(Execution::Threads)
            );
        }
        assert_eq!(
            Execution::choose(None, 2, Code::Users).ok(),
            Some(Execution::Processes)
        );
        assert_eq!(
            Execution::choose(Some(true), 2, Code::Adl).ok(),
            Some(Execution::Processes)
        );
        assert_eq!(
            Execution::choose(None, 2, Code::Adl).ok(),
            Some(Execution::Threads)
        );
        assert_eq!(
            Execution::choose(None, 2, own).ok(),
            Some(Execution::Threads)
        );
        assert!(matches!(
            Execution::choose(None, 2, users),
            Ok(Execution::OneAtATime { .. })
        ));
    }

    /// What cannot be kept is refused, as an invalid `processes`, saying
    /// what to do instead.
    #[test]
    fn processes_asked_where_they_cannot_run_are_refused() {
        for (workers, code, says) in [
            (0, Code::Users, "give workers=1 or more"),
            (2, Code::AdlPipeline { users: false }, "Leave processes off"),
            (
                2,
                Code::AdlPipeline { users: true },
                "Leave processes unsaid",
            ),
        ] {
            let error = Execution::choose(Some(true), workers, code).unwrap_err();
            assert!(
                matches!(&error, Error::InvalidParameter { parameter, reason }
                    if parameter == "processes" && reason.contains(says)),
                "{error}"
            );
        }
    }

    #[test]
    fn each_execution_says_where_and_why() {
        assert!(Execution::Inline.report(0).contains("workers=0"));
        assert!(
            Execution::Processes
                .report(3)
                .contains("3 worker processes")
        );
        let fallback = Execution::fallback("it does not pickle");
        assert!(
            fallback
                .report(2)
                .contains("worker processes could not be used: it does not pickle"),
            "{}",
            fallback.report(2)
        );
        assert_eq!(Execution::sent_limit(None), Some(64 << 20));
        assert_eq!(Execution::sent_limit(Some(true)), None);
    }

    #[test]
    fn processes_get_two_threads_each_and_four_batches_ahead() {
        assert_eq!(Execution::processes_settings(1, None, false), (2, Some(4)));
        assert_eq!(
            Execution::processes_settings(3, Some(2), false),
            (6, Some(12))
        );
        assert_eq!(
            Execution::processes_settings(3, Some(20), true),
            (6, Some(20))
        );
        assert_eq!(Execution::processes_settings(3, None, true), (6, None));
    }
}

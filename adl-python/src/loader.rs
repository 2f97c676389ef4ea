//! `adl.Loader`: adl's loader (workers, batches built ahead, sharding over ranks,
//! exact resume, statistics) over a Python dataset and pipeline, its
//! epochs iterated from Python with the GIL released while a batch is
//! waited for.

use std::sync::{Arc, Mutex};

use adl_core::OnError;
use adl_graph::loader::{Code, Execution, LoaderBuilder};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{loader_error, same_process};
use crate::gil::GilTime;
use crate::lerobot::native_of;
use crate::native::{Pipeline as NativePipelineClass, Source, is_adl_dataset};
use crate::processes::Processes;
use crate::python_data::{PyDataset, PyPipeline};
use crate::rust_loader::RustLoader;
use crate::states::{Last, States, locked, to_dict};

/// The engine's loader behind an `adl.Loader` of a Python pipeline.
type Inner = adl_graph::loader::Loader<PyDataset, PyPipeline>;
/// An epoch of an [`Inner`] loader, borrowing it for `'a`.
type EpochOf<'a> = adl_graph::loader::Epoch<'a, PyDataset, PyPipeline>;

self_cell::self_cell!(
    /// An epoch beside the loader it borrows.
    struct Running {
        owner: Arc<Inner>,
        #[covariant]
        dependent: EpochOf,
    }
);

/// A loader: `dataset` (any object with `__getitem__` and `__len__`) read
/// by `workers` threads, each sample through `pipeline.sample`, `batch_size`
/// of them through `pipeline.collate` and `pipeline.batch` (an
/// `abstract_dataloader.spec.Pipeline`; none: the samples as they are,
/// collated by `adl.default_collate`, PyTorch's default with NumPy arrays), `batches_ahead` batches built ahead (by default 2 per worker, at least 2: PyTorch's `prefetch_factor`), in an order that is sequential or
/// shuffled by `shuffle` (a seed; the same order for the same seed and
/// epoch) or given by `indices` (those dataset indices, in their order,
/// each epoch: a part of the dataset, or an order of one's own), split over `world` ranks (by default torchrun's `RANK` and
/// `WORLD_SIZE`; every index of an epoch in exactly one rank).
///
/// Where users' Python code runs (the dataset's `__getitem__`, the
/// pipeline; `adl_graph::loader::Execution` has the whole rule) is safe by default:
/// Python code may not be thread-safe even under the GIL (a C extension
/// can keep state between calls and release the GIL mid-call, as FFT
/// libraries' cached plans do), and PyTorch's DataLoader never runs it on
/// threads. `workers` is 0 by default: the thread that iterates makes
/// every batch, as PyTorch's DataLoader does with 0 workers.
///
/// With workers, unless `processes=False`, users' Python code runs in
/// `workers` worker processes (multiprocessing's `spawn`: the dataset and
/// the pipeline go to them by pickle): each makes whole batches, for each
/// index the dataset's `__getitem__` then the pipeline's `sample`, then
/// the pipeline's `collate`, in its own interpreter, and sends them back
/// pickled, their arrays in blocks of shared memory the loader lends and
/// pools (the batch's NumPy arrays view them: no copy); the loader's
/// threads wait for them without the GIL, and the
/// pipeline's `batch` runs in this process. The
/// order, sharding, `on_error` and resume are the loader's, as with
/// threads. A worker process that dies is an error naming it. Where the
/// dataset or pipeline does not pickle (a class defined in a function, a
/// lambda, an open file) or weighs over 64 MiB pickled, the workers are
/// threads that call Python one call at a time (each call ends before the
/// next begins, even where it releases the GIL), and `statistics()` says
/// why. `processes=True` asks for processes whatever they weigh, and is
/// an error where they cannot start.
///
/// `processes=False` runs the workers as threads that call Python at once:
/// the user's promise that the code is thread-safe (each call may run
/// while others are inside theirs, where they release the GIL: NumPy and
/// PyTorch on large arrays, I/O). It pays where the calls release the GIL
/// for most of their work; a worker thread that holds it waits while the
/// training loop does. adl's own dataset with no Python pipeline (an
/// `adl.Dataset` or `adl.Trace` of `adl.files` and `adl.px4` sensors) runs
/// on threads at once without asking: it is thread-safe, and reads
/// without the GIL.
/// `statistics()` says where the code ran and why, and what the calls
/// cost: their number, the wait for the GIL and the time in Python (and,
/// with processes, the wait for them).
///
/// `memory_budget` (bytes) sizes the batches ahead, the batches built at
/// once and the read stage of `adl.files` sensors from what the loader
/// measures, within the budget (`batches_ahead`, where given too, is
/// kept); `statistics()` says what it chose and why. It counts a batch's
/// arrays (those an `adl.Pipeline` builds, and those in a Python batch:
/// each array's `nbytes`, in dicts, lists and tuples) and the bytes read
/// ahead. With worker processes the budget chooses their batches ahead
/// too, and each process keeps one free block of shared memory (not six).
///
/// A dataset of adl's own sensors (an `adl.Dataset` or `adl.Trace` of
/// `adl.files`, `adl.px4` and roverd sensors) is read ahead by a read
/// stage, without the GIL, unless worker processes make the batches;
/// `read_next_epoch` (true) has each epoch's stage read the next epoch's
/// first batches once its own reads are started (false for a loader read
/// once, or whose epochs are not read in turn).
#[pyclass(module = "adl", frozen)]
pub(crate) struct Loader {
    engine: Engine,
    /// Its calls into Python, counted and timed.
    gil: Arc<GilTime>,
    /// The process that made the loader (its threads are there).
    process: u32,
    states: States,
    /// The workers asked for (threads or processes).
    workers: usize,
}

/// What makes a [`Loader`]'s batches.
enum Engine {
    /// A Python pipeline (or none): each call into the dataset and the
    /// pipeline with the GIL, on threads or in worker processes.
    Python(PythonEngine),
    /// An `adl.Pipeline`: its nodes in Rust, the samples read in Rust
    /// where the dataset is adl's (else with the GIL, and copied).
    Native {
        loader: RustLoader,
        dataset: Py<PyAny>,
        /// No call into Python at all.
        gil_free: bool,
        /// Where the Python code it calls runs.
        execution: Execution,
    },
}

/// A loader's settings from Python, for either engine.
#[derive(Clone)]
struct Settings {
    batch_size: usize,
    shuffle: Option<u64>,
    /// The dataset indices read each epoch, in their order (in place of
    /// the whole dataset in order, or shuffled).
    indices: Option<Arc<[usize]>>,
    workers: usize,
    /// As given; `None`: 2, or as the memory budget chooses.
    batches_ahead: Option<usize>,
    memory_budget: Option<u64>,
    drop_last: bool,
    on_error: OnError,
    rank: Option<usize>,
    world: Option<usize>,
    /// Where the run's timeline is written (`trace=`), and the spans it
    /// keeps (`trace_events=`).
    trace: Option<std::path::PathBuf>,
    trace_events: Option<usize>,
    /// Whether each epoch shows a progress bar (`None`: as
    /// `ADL_PROGRESS` says).
    progress: Option<bool>,
    /// Whether an epoch's read stage reads the next epoch's first window
    /// once its own reads are started.
    read_next_epoch: bool,
}

/// The policy `on_error` names: `"raise"` or `"skip"`.
fn on_error_of(on_error: &str) -> PyResult<OnError> {
    match on_error {
        "raise" => Ok(OnError::Fail),
        "skip" => Ok(OnError::Skip),
        other => Err(PyValueError::new_err(format!(
            "on_error is \"raise\" or \"skip\", not {other:?}"
        ))),
    }
}

impl Settings {
    /// `builder` with these settings.
    fn apply<D, P>(&self, builder: LoaderBuilder<D, P>) -> PyResult<LoaderBuilder<D, P>>
    where
        D: adl_core::Dataset + Send + Sync + 'static,
        D::Sample: Send,
        P: adl_core::Pipeline<D::Sample> + Send + Sync + 'static,
        P::Transformed: Send,
        P::Processed: Send + 'static,
    {
        let mut builder = builder
            .batch_size(self.batch_size)
            .workers(self.workers)
            .drop_last(self.drop_last)
            .on_error(self.on_error)
            .read_next_epoch(self.read_next_epoch);
        builder = match (self.batches_ahead, self.memory_budget) {
            (Some(batches), _) => builder.batches_ahead(batches),
            // Two per worker, as PyTorch's DataLoader keeps `prefetch_factor`
            // (2) batches per worker in flight: with fewer, a worker whose
            // batch is done waits while the window's oldest is still being
            // built (roverd's trace with 2 workers: 2 ahead made 112
            // samples/s, 4 ahead 121).
            (None, None) => builder.batches_ahead(default_batches_ahead(self.workers)),
            (None, Some(_)) => builder,
        };
        if let Some(bytes) = self.memory_budget {
            builder = builder.memory_budget(bytes);
        }
        if let Some(path) = &self.trace {
            builder = builder.trace_to(path);
        }
        if let Some(show) = self.progress {
            builder = builder.progress(show);
        }
        if let Some(events) = self.trace_events {
            if self.trace.is_none() && std::env::var_os(adl_graph::loader::TRACE_VARIABLE).is_none()
            {
                return Err(PyValueError::new_err(
                    "trace_events sets the spans a timeline keeps: give trace=\"run.json\" too (or ADL_TRACE)",
                ));
            }
            builder = builder.trace_events(events);
        }
        match (self.shuffle, &self.indices) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "shuffle and indices both order the epoch: give one (shuffle the indices beforehand to read them shuffled)",
                ));
            }
            (Some(seed), None) => builder = builder.shuffle(seed),
            (None, Some(indices)) => builder = builder.indices(Arc::clone(indices)),
            (None, None) => {}
        }
        Ok(match (self.rank, self.world) {
            (Some(rank), Some(world)) => builder.shard(rank, world),
            (None, None) => builder.shard_from_env(),
            _ => {
                return Err(PyValueError::new_err(
                    "rank and world go together: give both, or neither (then torchrun's RANK and WORLD_SIZE, or one rank)",
                ));
            }
        })
    }
}

/// The engine of a Python dataset and pipeline: the loader, and where it
/// runs their code.
struct PythonEngine {
    inner: Arc<Inner>,
    execution: Execution,
}

/// A choice of execution the loader refused (`processes=True` where it
/// cannot be kept), as Python's `ValueError` in the loader's words.
fn refused(error: adl_core::Error) -> PyErr {
    match error {
        adl_core::Error::InvalidParameter { reason, .. } => PyValueError::new_err(reason),
        other => crate::errors::to_python(other),
    }
}

/// The engine's loader of a Python `dataset` and `pipeline`, on threads
/// or in worker processes (each sent the two pickled, refused over
/// `limit` bytes where there is one).
fn python_inner(
    py: Python<'_>,
    dataset: &Bound<'_, PyAny>,
    pipeline: Option<&Bound<'_, PyAny>>,
    settings: Settings,
    processes: bool,
    gil: &Arc<GilTime>,
    limit: Option<usize>,
) -> PyResult<Inner> {
    let budget = settings.memory_budget.is_some();
    let mut source = PyDataset::new(dataset, Arc::clone(gil))?;
    // Under a memory budget each batch is weighed: its arrays are
    // Python's, not the loader's pool's.
    let mut steps = PyPipeline::new(pipeline, Arc::clone(gil))?.weighing(budget);
    let settings = match processes {
        true => {
            // Under a budget the processes keep one free block of shared
            // memory each; the blocks lent hold the batches it counts.
            let started = Processes::start(
                py,
                dataset,
                pipeline,
                settings.workers,
                limit,
                budget,
                Arc::clone(gil),
            )?;
            source = source.in_processes();
            steps = steps.in_processes(Arc::new(started), settings.on_error == OnError::Skip);
            // The loader's threads and batches ahead for processes are
            // the loader's policy's.
            let (workers, batches_ahead) =
                Execution::processes_settings(settings.workers, settings.batches_ahead, budget);
            Settings {
                workers,
                batches_ahead,
                ..settings
            }
        }
        false => settings,
    };
    let builder = settings.apply(adl_graph::loader::Loader::new(source, steps))?;
    builder.build().map_err(crate::errors::to_python)
}

#[pymethods]
impl Loader {
    #[new]
    #[pyo3(signature = (dataset, pipeline = None, *, batch_size = 32, shuffle = None, indices = None, workers = 0, batches_ahead = None, memory_budget = None, drop_last = false, on_error = "raise", rank = None, world = None, processes = None, trace = None, trace_events = None, progress = None, read_next_epoch = true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        dataset: &Bound<'_, PyAny>,
        pipeline: Option<&Bound<'_, PyAny>>,
        batch_size: usize,
        shuffle: Option<u64>,
        indices: Option<Vec<usize>>,
        workers: usize,
        batches_ahead: Option<usize>,
        memory_budget: Option<u64>,
        drop_last: bool,
        on_error: &str,
        rank: Option<usize>,
        world: Option<usize>,
        processes: Option<bool>,
        trace: Option<std::path::PathBuf>,
        trace_events: Option<usize>,
        progress: Option<bool>,
        read_next_epoch: bool,
    ) -> PyResult<Self> {
        let settings = Settings {
            batch_size,
            shuffle,
            indices: indices.map(Arc::from),
            workers,
            batches_ahead,
            memory_budget,
            drop_last,
            on_error: on_error_of(on_error)?,
            rank,
            world,
            trace,
            trace_events,
            progress,
            read_next_epoch,
        };
        // A LeRobot dataset without Python transforms: read, decoded and
        // collated in Rust.
        if let Some(lerobot) = pipeline.is_none().then(|| native_of(dataset)).flatten() {
            if processes == Some(true) {
                return Err(PyValueError::new_err(
                    "processes=True runs Python code in worker processes; an adl.lerobot.LeRobotDataset without image_transforms is read in Rust on the loader's threads, without the GIL: leave processes off",
                ));
            }
            let execution =
                Execution::choose(processes, workers, Code::AdlPipeline { users: false })
                    .map_err(refused)?;
            let loader = lerobot
                .get()
                .loader(|builder| settings.apply(builder), true)?;
            return Ok(Loader {
                engine: Engine::Native {
                    loader,
                    dataset: dataset.clone().unbind(),
                    gil_free: true,
                    execution,
                },
                gil: Arc::new(GilTime::default()),
                process: std::process::id(),
                states: States::default(),
                workers,
            });
        }
        if let Some(native) = pipeline.and_then(|p| p.cast::<NativePipelineClass>().ok()) {
            let (pipeline, gil) = native.get().parts();
            let source = Source::new(dataset, Arc::clone(&gil))?;
            let gil_free = source.is_native() && pipeline.is_native();
            let code = Code::AdlPipeline { users: !gil_free };
            let execution = Execution::choose(processes, workers, code).map_err(refused)?;
            if let Execution::OneAtATime { .. } = execution {
                gil.one_at_a_time();
            }
            let builder = settings.apply(adl_graph::loader::Loader::new(source, pipeline))?;
            let loader = builder.build().map_err(crate::errors::to_python)?;
            return Ok(Loader {
                engine: Engine::Native {
                    loader: RustLoader::new(loader),
                    dataset: dataset.clone().unbind(),
                    gil_free,
                    execution,
                },
                gil,
                process: std::process::id(),
                states: States::default(),
                workers,
            });
        }
        let gil = Arc::new(GilTime::default());
        let code = match pipeline.is_none() && is_adl_dataset(dataset)? {
            true => Code::Adl,
            false => Code::Users,
        };
        let mut execution = Execution::choose(processes, workers, code).map_err(refused)?;
        let inner = match execution {
            Execution::Processes => {
                // Asked for: whatever they weigh, and an error where they
                // cannot start; unasked: at most 64 MiB, else threads one
                // call at a time.
                let limit = Execution::sent_limit(processes);
                match python_inner(py, dataset, pipeline, settings.clone(), true, &gil, limit) {
                    Ok(inner) => inner,
                    Err(cause) if processes.is_none() => {
                        execution = Execution::fallback(cause.value(py));
                        python_inner(py, dataset, pipeline, settings, false, &gil, None)?
                    }
                    Err(cause) => return Err(cause),
                }
            }
            _ => python_inner(py, dataset, pipeline, settings, false, &gil, None)?,
        };
        if let Execution::OneAtATime { .. } = execution {
            gil.one_at_a_time();
        }
        Ok(Loader {
            engine: Engine::Python(PythonEngine {
                inner: Arc::new(inner),
                execution,
            }),
            gil,
            process: std::process::id(),
            states: States::default(),
            workers,
        })
    }

    /// Epoch `epoch`: an iterator of this rank's batches, in order. After
    /// `load_state_dict`, the epoch of that state resumes where it was.
    fn epoch(&self, py: Python<'_>, epoch: u64) -> PyResult<Py<PyAny>> {
        same_process(self.process)?;
        let inner = match &self.engine {
            Engine::Python(engine) => Arc::clone(&engine.inner),
            Engine::Native { loader, .. } => {
                return Ok(Py::new(py, loader.epoch(epoch)?)?.into_any());
            }
        };
        let inner = &inner;
        let state = self.states.take_for(epoch);
        let running = match state {
            Some(state) => Running::try_new(Arc::clone(inner), |loader| loader.resume(&state)),
            None => Ok(Running::new(Arc::clone(inner), |loader| {
                loader.epoch(epoch)
            })),
        }
        .map_err(crate::errors::to_python)?;
        let last = self.states.started(running.borrow_dependent().state());
        let processes = inner.pipeline().processes();
        let skip_from = processes.as_ref().map_or(0, |p| p.skipped_count());
        let epoch = Epoch {
            running: Mutex::new(running),
            last,
            process: self.process,
            processes,
            skip_from,
        };
        Ok(Py::new(py, epoch)?.into_any())
    }

    /// The next epoch, as `for batch in loader` iterates it (as
    /// torchdata's `StatefulDataLoader` does): after `load_state_dict`,
    /// the epoch of that state where it stood (the one after it where it
    /// stood at its end); then, each time, the epoch after the one
    /// started last; epoch 0 first.
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Engine::Native { loader, .. } = &self.engine {
            return Ok(Py::new(py, loader.__iter__()?)?.into_any());
        }
        let (number, resumed) = self.states.next_epoch();
        let epoch = self.epoch(py, number)?;
        if resumed && epoch.bind(py).len()? == 0 {
            return self.epoch(py, number.saturating_add(1));
        }
        Ok(epoch)
    }

    /// Where the loader stands: the state of the epoch iterated last (the
    /// start of epoch 0 before any), or the state loaded since (until an
    /// epoch starts): what `load_state_dict` resumes from, with other
    /// workers or another world size too.
    fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match &self.engine {
            Engine::Python(engine) => {
                let inner = &engine.inner;
                let state = self.states.last_or(|| inner.epoch(0).state());
                to_dict(py, &state)
            }
            Engine::Native { loader, .. } => loader.state_dict(py),
        }
    }

    /// Resume from `state` (a `state_dict`): the next `epoch` of its epoch
    /// number (or the next `iter(loader)`) starts where it stood, and
    /// `state_dict()` is `state` until then. A state of another dataset
    /// or pipeline is refused then.
    fn load_state_dict(&self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        match &self.engine {
            Engine::Python(_) => self.states.load(state),
            Engine::Native { loader, .. } => loader.load_state_dict(state),
        }
    }

    /// What the loader did so far (per node: calls, time; the batches'
    /// waits; the calls into Python, the wait for the GIL and the time in
    /// Python), as text.
    fn statistics(&self) -> String {
        let mut text = match &self.engine {
            Engine::Python(engine) => engine.inner.statistics().to_string(),
            Engine::Native { loader, .. } => loader.statistics(),
        };
        // Where the Python code ran and why; with worker processes, what
        // they did; then the calls into Python.
        let (execution, processes) = match &self.engine {
            Engine::Python(engine) => (
                engine.execution.report(self.workers),
                engine.inner.pipeline().processes().map(|p| p.report()),
            ),
            Engine::Native { execution, .. } => (execution.report(self.workers), None),
        };
        for line in [Some(execution), processes, self.gil.report()]
            .into_iter()
            .flatten()
        {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// The loader's plan (its stages, pools and nodes) as Graphviz DOT.
    fn plan(&self) -> String {
        match &self.engine {
            Engine::Python(engine) => engine.inner.plan().to_dot(),
            Engine::Native { loader, .. } => loader.plan(),
        }
    }

    /// The dataset, as given.
    #[getter]
    fn dataset(&self, py: Python<'_>) -> Py<PyAny> {
        match &self.engine {
            Engine::Python(engine) => engine.inner.dataset().object().clone_ref(py),
            Engine::Native { dataset, .. } => dataset.clone_ref(py),
        }
    }

    /// Whether a batch is made without the GIL from the read to the last
    /// transform: an `adl.Pipeline` of adl's transforms over adl's
    /// sensors.
    #[getter]
    fn gil_free(&self) -> bool {
        matches!(self.engine, Engine::Native { gil_free: true, .. })
    }
}

/// One epoch of a [`Loader`]: an iterator of batches.
#[pyclass(module = "adl")]
pub(crate) struct Epoch {
    running: Mutex<Running>,
    last: Last,
    /// The process that made the loader.
    process: u32,
    /// The loader's worker processes, if it has them, and how many
    /// samples they had left out before this epoch began.
    processes: Option<Arc<Processes>>,
    skip_from: usize,
}

#[pymethods]
impl Epoch {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch, waited for without the GIL; a failed sample or
    /// batch is a `LoaderError` (under `on_error="skip"`, a failed sample
    /// is left out instead: `skipped()` lists it).
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        same_process(self.process)?;
        let (next, state) = py.detach(|| {
            let mut running = locked(&self.running);
            running.with_dependent_mut(|_, epoch| {
                let next = epoch.next();
                (next, epoch.state())
            })
        });
        self.last.set(state);
        match next {
            None => Ok(None),
            Some(Ok(batch)) => Ok(Some(batch.into_inner().0)),
            Some(Err(error)) => Err(loader_error(py, &error)),
        }
    }

    /// The number of batches of this rank in the epoch (from where it
    /// started).
    fn __len__(&self) -> usize {
        locked(&self.running).borrow_dependent().batches()
    }

    /// This rank's dataset indices of the epoch, in order.
    fn indices(&self) -> Vec<usize> {
        locked(&self.running).borrow_dependent().indices().to_vec()
    }

    /// The samples left out so far (`on_error="skip"`): `(index, reason)`.
    fn skipped(&self) -> Vec<(usize, String)> {
        let mut skipped: Vec<(usize, String)> = locked(&self.running)
            .borrow_dependent()
            .skipped()
            .iter()
            .map(|s| (s.index, s.reason.clone()))
            .collect();
        // Left out by the worker processes, which make whole batches.
        if let Some(processes) = &self.processes {
            skipped.extend(processes.skipped_from(self.skip_from));
        }
        skipped
    }

    /// Where this epoch stands, as `Loader.state_dict` gives it.
    fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = locked(&self.running).borrow_dependent().state();
        to_dict(py, &state)
    }
}

/// The batches built ahead where neither `batches_ahead` nor a memory
/// budget is given: two per worker (PyTorch's `prefetch_factor`), at least
/// two.
fn default_batches_ahead(workers: usize) -> usize {
    (2 * workers).max(2)
}

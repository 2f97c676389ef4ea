//! `adl.Loader`: adl's loader (workers, prefetch, sharding over ranks,
//! exact resume, statistics) over a Python dataset and pipeline, its
//! epochs iterated from Python with the GIL released while a batch is
//! waited for.

use std::sync::{Arc, Mutex};

use adl_core::OnError;
use adl_graph::loader::{Epoch as RustEpoch, Loader as RustLoader, LoaderState};
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::gil::GilTime;
use crate::python_data::{PyDataset, PyPipeline};
use crate::states::{Last, States, locked};

pyo3::create_exception!(
    adl,
    LoaderError,
    PyRuntimeError,
    "A sample or batch the loader could not make: the message names the sample (its index) and the step; the Python exception that caused it, if one did, is its `__cause__`."
);

type Inner = RustLoader<PyDataset, PyPipeline>;
type EpochOf<'a> = RustEpoch<'a, PyDataset, PyPipeline>;

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
/// collated by `adl.default_collate`, PyTorch's default with NumPy arrays), `prefetch` batches ahead, in an order that is sequential or
/// shuffled by `shuffle` (a seed; the same order for the same seed and
/// epoch), split over `world` ranks (by default torchrun's `RANK` and
/// `WORLD_SIZE`; every index of an epoch in exactly one rank).
///
/// Python code (the dataset's `__getitem__`, the pipeline) runs with the
/// GIL, one call at a time; the loader's own work and the wait for a batch
/// run without it. `workers` is 0 by default (the thread that iterates
/// makes every batch, as PyTorch's DataLoader does with 0 workers): a
/// worker thread that calls Python waits for the GIL while the training
/// loop holds it, which measured 30x slower for a dataset and pipeline of
/// Python code. Workers pay where the calls release the GIL for their
/// work (`adl.files` sensors, NumPy or PyTorch on large arrays).
/// `statistics()` says what the calls cost: their number, the wait for the
/// GIL and the time in Python.
#[pyclass(module = "adl", frozen)]
pub(crate) struct Loader {
    inner: Arc<Inner>,
    /// Its calls into Python, counted and timed.
    gil: Arc<GilTime>,
    /// The process that made the loader (its threads are there).
    process: u32,
    states: States,
}

#[pymethods]
impl Loader {
    #[new]
    #[pyo3(signature = (dataset, pipeline = None, *, batch_size = 32, shuffle = None, workers = 0, prefetch = 2, drop_last = false, on_error = "raise", rank = None, world = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        dataset: &Bound<'_, PyAny>,
        pipeline: Option<&Bound<'_, PyAny>>,
        batch_size: usize,
        shuffle: Option<u64>,
        workers: usize,
        prefetch: usize,
        drop_last: bool,
        on_error: &str,
        rank: Option<usize>,
        world: Option<usize>,
    ) -> PyResult<Self> {
        let on_error = match on_error {
            "raise" => OnError::Fail,
            "skip" => OnError::Skip,
            other => {
                return Err(PyValueError::new_err(format!(
                    "on_error is \"raise\" or \"skip\", not {other:?}"
                )));
            }
        };
        let gil = Arc::new(GilTime::default());
        let mut builder = RustLoader::new(
            PyDataset::new(dataset, Arc::clone(&gil))?,
            PyPipeline::new(pipeline, Arc::clone(&gil))?,
        )
        .batch_size(batch_size)
        .workers(workers)
        .prefetch(prefetch)
        .drop_last(drop_last)
        .on_error(on_error);
        if let Some(seed) = shuffle {
            builder = builder.shuffle(seed);
        }
        builder = match (rank, world) {
            (Some(rank), Some(world)) => builder.shard(rank, world),
            (None, None) => builder.shard_from_env(),
            _ => {
                return Err(PyValueError::new_err(
                    "rank and world go together: give both, or neither (then torchrun's RANK and WORLD_SIZE, or one rank)",
                ));
            }
        };
        let inner = builder.build().map_err(crate::errors::to_python)?;
        Ok(Loader {
            inner: Arc::new(inner),
            gil,
            process: std::process::id(),
            states: States::default(),
        })
    }

    /// Epoch `epoch`: an iterator of this rank's batches, in order. After
    /// `load_state_dict`, the epoch of that state resumes where it was.
    fn epoch(&self, epoch: u64) -> PyResult<Epoch> {
        same_process(self.process)?;
        let state = self.states.take_for(epoch);
        let running = match state {
            Some(state) => {
                Running::try_new(Arc::clone(&self.inner), |loader| loader.resume(&state))
            }
            None => Ok(Running::new(Arc::clone(&self.inner), |loader| {
                loader.epoch(epoch)
            })),
        }
        .map_err(crate::errors::to_python)?;
        let last = self.states.started(running.borrow_dependent().state());
        Ok(Epoch {
            running: Mutex::new(running),
            last,
            process: self.process,
        })
    }

    /// The state of the epoch iterated last, where it stands (the start
    /// of epoch 0 before any): what `load_state_dict` resumes from, with
    /// other workers or another world size too.
    fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = self.states.last_or(|| self.inner.epoch(0).state());
        to_dict(py, &state)
    }

    /// Resume from `state` (a `state_dict`): the next `epoch` of its epoch
    /// number starts where it stood. A state of another dataset or
    /// pipeline is refused then.
    fn load_state_dict(&self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.states.load(state)
    }

    /// What the loader did so far (per node: calls, time; the batches'
    /// waits; the calls into Python, the wait for the GIL and the time in
    /// Python), as text.
    fn statistics(&self) -> String {
        let mut text = self.inner.statistics().to_string();
        if let Some(line) = self.gil.report() {
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
        self.inner.plan().to_dot()
    }

    /// The dataset, as given.
    #[getter]
    fn dataset(&self, py: Python<'_>) -> Py<PyAny> {
        self.inner.dataset().object().clone_ref(py)
    }
}

/// One epoch of a [`Loader`]: an iterator of batches.
#[pyclass(module = "adl")]
pub(crate) struct Epoch {
    running: Mutex<Running>,
    last: Last,
    /// The process that made the loader.
    process: u32,
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
        locked(&self.running)
            .borrow_dependent()
            .skipped()
            .iter()
            .map(|s| (s.index, s.reason.clone()))
            .collect()
    }

    /// Where this epoch stands, as `Loader.state_dict` gives it.
    fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = locked(&self.running).borrow_dependent().state();
        to_dict(py, &state)
    }
}

/// An error unless this is the process that made the loader: a process
/// forked from it has none of its threads (they stay in the parent), and
/// a batch claimed by one of them would never come.
pub(crate) fn same_process(maker: u32) -> PyResult<()> {
    let this = std::process::id();
    if this == maker {
        return Ok(());
    }
    Err(PyRuntimeError::new_err(format!(
        "this adl.Loader was made in process {maker}, and this is process {this}, forked from it: \
         its worker threads stayed in the parent. Make the loader in the process that iterates it \
         (after the fork: in a DataLoader's worker_init_fn, or in the child)"
    )))
}

/// `error` as a [`LoaderError`], the Python exception in its causes (a
/// dataset's or a pipeline's) as its `__cause__`.
pub(crate) fn loader_error(py: Python<'_>, error: &adl_core::Error) -> PyErr {
    let raised = LoaderError::new_err(error.to_string());
    let mut cause = error.cause();
    while let Some(inner) = cause {
        if let Some(original) = inner.downcast_ref::<PyErr>() {
            raised.set_cause(py, Some(original.clone_ref(py)));
            break;
        }
        cause = inner
            .downcast_ref::<adl_core::Error>()
            .and_then(adl_core::Error::cause);
    }
    raised
}

const FIELDS: [&str; 7] = [
    "version",
    "epoch",
    "cursor",
    "sampler",
    "seed",
    "pipeline",
    "dataset_len",
];

pub(crate) fn to_dict<'py>(py: Python<'py>, state: &LoaderState) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("version", state.version)?;
    out.set_item("epoch", state.epoch)?;
    out.set_item("cursor", state.cursor)?;
    out.set_item("sampler", &state.sampler)?;
    out.set_item("seed", state.seed)?;
    out.set_item("pipeline", state.pipeline)?;
    out.set_item("dataset_len", state.dataset_len)?;
    Ok(out)
}

pub(crate) fn from_dict(state: &Bound<'_, PyAny>) -> PyResult<LoaderState> {
    let field = |name: &str| -> PyResult<Bound<'_, PyAny>> {
        state.get_item(name).map_err(|_| {
            PyKeyError::new_err(format!(
                "a loader state has {}; this one has no `{name}`",
                PyList::new(state.py(), FIELDS)
                    .and_then(|l| l.str())
                    .map_or_else(|_| FIELDS.join(", "), |s| s.to_string())
            ))
        })
    };
    Ok(LoaderState {
        version: field("version")?.extract()?,
        epoch: field("epoch")?.extract()?,
        cursor: field("cursor")?.extract()?,
        sampler: field("sampler")?.extract()?,
        seed: field("seed")?.extract()?,
        pipeline: field("pipeline")?.extract()?,
        dataset_len: field("dataset_len")?.extract()?,
    })
}

//! [`RustLoader`]: a loader written in Rust (its dataset and `pipeline!`
//! typed and checked at compile time, its nodes native) handed to Python,
//! which iterates its epochs: each batch made without the GIL and given
//! to Python through [`ToPython`], its arrays views of the batch's own
//! buffers, which go back to the loader's pool when Python frees them (so
//! that memory stays flat over epochs, as in Rust).
//!
//! An epoch is iterated on the thread that asks for its batches (Python's,
//! with the GIL released while it waits or, the loader's workers busy,
//! builds a batch itself), as in Rust: no thread of its own, no hand-over.

use std::sync::{Arc, Mutex};

use adl_core::{Dataset, Pipeline};
use adl_exec::Recycle;
use adl_graph::loader::{Batch, Epoch, Loader, LoaderState};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{loader_error, same_process};
use crate::states::{Last, States, locked, to_dict};
use crate::{Owner, ToPython};

/// An epoch, its batches as Python objects.
trait ErasedEpoch: Send {
    /// The next batch (`None` at the end), made or waited for without the
    /// GIL, and the state after it.
    fn next(&mut self, py: Python<'_>) -> Option<(PyResult<Py<PyAny>>, LoaderState)>;
    /// Where the epoch stands.
    fn state(&self) -> LoaderState;
    /// The number of this rank's batches in the epoch.
    fn batches(&self) -> usize;
    /// This rank's dataset indices of the epoch, in order.
    fn indices(&self) -> Vec<usize>;
    /// The samples left out so far: `(index, reason)`.
    fn skipped(&self) -> Vec<(usize, String)>;
}

/// An epoch of a loader, borrowing it for `'a`.
type EpochOf<'a> = Box<dyn ErasedEpoch + 'a>;

self_cell::self_cell!(
    /// An epoch beside the loader it borrows (the loader shared with the
    /// [`RustLoader`] that started it, so that the epoch outlives neither).
    struct Running {
        owner: Arc<dyn ErasedLoader>,
        #[covariant]
        dependent: EpochOf,
    }
);

impl<D, P> ErasedEpoch for Epoch<'_, D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + ToPython,
{
    fn state(&self) -> LoaderState {
        Epoch::state(self)
    }

    fn batches(&self) -> usize {
        Epoch::batches(self)
    }

    fn indices(&self) -> Vec<usize> {
        Epoch::indices(self).to_vec()
    }

    fn skipped(&self) -> Vec<(usize, String)> {
        Epoch::skipped(self)
            .iter()
            .map(|s| (s.index, s.reason.clone()))
            .collect()
    }

    fn next(&mut self, py: Python<'_>) -> Option<(PyResult<Py<PyAny>>, LoaderState)> {
        let (batch, state) = py.detach(|| {
            let batch = Iterator::next(self)?;
            Some((batch, Epoch::state(self)))
        })?;
        let batch = match batch {
            Ok(batch) => in_python(py, batch),
            Err(error) => Err(loader_error(py, &error)),
        };
        Some((batch, state))
    }
}

/// A loader's batch, owned by Python: the base object of the NumPy arrays
/// that view its buffers. Freed with the last of them, it drops the batch,
/// whose buffers go back to the loader's pool.
#[pyclass(module = "adl", frozen)]
pub struct BatchMemory {
    batch: Box<dyn ViewedBatch>,
}

/// A batch whose parts Python can see.
trait ViewedBatch: Send + Sync {
    /// The batch as Python sees it; `owner` is the object that owns it
    /// (the [`BatchMemory`] it is in).
    fn view<'b, 'py>(&'b self, owner: &'b Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>>;
}

impl<B: ToPython + Recycle> ViewedBatch for Batch<B> {
    fn view<'b, 'py>(&'b self, owner: &'b Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: `owner` is the `BatchMemory` this batch is in (see
        // `in_python`, the only caller): frozen, it keeps the batch,
        // unmoved and unchanged, until it is freed, after the last view.
        let owner = unsafe { Owner::new(owner) };
        (**self).to_python(&owner)
    }
}

/// `batch` as Python sees it, owned by a [`BatchMemory`].
fn in_python<B: ToPython + Recycle>(py: Python<'_>, batch: Batch<B>) -> PyResult<Py<PyAny>> {
    let owner = Bound::new(
        py,
        BatchMemory {
            batch: Box::new(batch),
        },
    )?;
    let viewed = owner.get().batch.view(owner.as_any())?;
    Ok(viewed.unbind())
}

/// A loader of any dataset and pipeline whose batches are [`ToPython`].
trait ErasedLoader: Send + Sync {
    /// Epoch `epoch` (resumed from `state` if given), borrowing the loader.
    fn start(&self, epoch: u64, state: Option<LoaderState>) -> adl_core::Result<EpochOf<'_>>;
    /// Where epoch `epoch` starts.
    fn state(&self, epoch: u64) -> LoaderState;
    /// What the loader did so far, as text.
    fn statistics(&self) -> String;
    /// The loader's plan as Graphviz DOT.
    fn plan(&self) -> String;
}

impl<D, P> ErasedLoader for Loader<D, P>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + ToPython,
{
    fn start(&self, epoch: u64, state: Option<LoaderState>) -> adl_core::Result<EpochOf<'_>> {
        Ok(Box::new(match state {
            Some(state) => self.resume(&state)?,
            None => self.epoch(epoch),
        }))
    }

    fn state(&self, epoch: u64) -> LoaderState {
        self.epoch(epoch).state()
    }

    fn statistics(&self) -> String {
        Loader::statistics(self).to_string()
    }

    fn plan(&self) -> String {
        Loader::plan(self).to_dot()
    }
}

/// A loader built in Rust, for Python: `RustLoader::new(loader)` in a
/// crate's `#[pyfunction]` hands it over, and Python iterates
/// `loader.epoch(e)`, saves `loader.state_dict()` and resumes with
/// `loader.load_state_dict(state)`, as with `adl.Loader`. Its batch type
/// implements [`ToPython`].
///
/// ```ignore
/// #[pyfunction]
/// fn radar_loader(folder: &str) -> PyResult<RustLoader> {
///     let loader = Loader::new(open(folder)?, my_pipeline()).batch_size(32).build()?;
///     Ok(RustLoader::new(loader))
/// }
/// ```
#[pyclass(module = "adl", frozen)]
pub struct RustLoader {
    inner: Arc<dyn ErasedLoader>,
    process: u32,
    states: States,
}

impl RustLoader {
    /// `loader`, for Python.
    pub fn new<D, P>(loader: Loader<D, P>) -> RustLoader
    where
        D: Dataset + Send + Sync + 'static,
        D::Sample: Send,
        P: Pipeline<D::Sample> + Send + Sync + 'static,
        P::Transformed: Send,
        P::Processed: Recycle + ToPython,
    {
        RustLoader {
            inner: Arc::new(loader),
            process: std::process::id(),
            states: States::default(),
        }
    }
}

#[pymethods]
impl RustLoader {
    /// Epoch `epoch`: an iterator of this rank's batches, in order (after
    /// `load_state_dict`, the epoch of that state resumes where it was).
    pub(crate) fn epoch(&self, epoch: u64) -> PyResult<RustLoaderEpoch> {
        same_process(self.process)?;
        let state = self.states.take_for(epoch);
        let running =
            Running::try_new(Arc::clone(&self.inner), |loader| loader.start(epoch, state))
                .map_err(crate::errors::to_python)?;
        let last = self.states.started(running.borrow_dependent().state());
        Ok(RustLoaderEpoch {
            running: Mutex::new(running),
            last,
            process: self.process,
        })
    }

    /// The next epoch, as `for batch in loader` iterates it (as
    /// torchdata's `StatefulDataLoader` does): after `load_state_dict`,
    /// the epoch of that state where it stood (the one after it where it
    /// stood at its end); then, each time, the epoch after the one
    /// started last; epoch 0 first.
    pub(crate) fn __iter__(&self) -> PyResult<RustLoaderEpoch> {
        let (number, resumed) = self.states.next_epoch();
        let epoch = self.epoch(number)?;
        if resumed && epoch.__len__() == 0 {
            return self.epoch(number.saturating_add(1));
        }
        Ok(epoch)
    }

    /// Where the loader stands: the state of the epoch iterated last (the
    /// start of epoch 0 before any), or the state loaded since.
    pub(crate) fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = self.states.last_or(|| self.inner.state(0));
        to_dict(py, &state)
    }

    /// Resume from `state`: the next `epoch` of its epoch number (or the
    /// next `iter(loader)`) starts where it stood; `state_dict()` is
    /// `state` until then.
    pub(crate) fn load_state_dict(&self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.states.load(state)
    }

    /// What the loader did so far, as text.
    pub(crate) fn statistics(&self) -> String {
        self.inner.statistics()
    }

    /// The loader's plan as Graphviz DOT.
    pub(crate) fn plan(&self) -> String {
        self.inner.plan()
    }
}

/// One epoch of a [`RustLoader`] (also what an `adl.Loader` over an
/// `adl.Pipeline` iterates, a `RustLoader` inside it): an iterator of
/// batches, `adl.RustLoaderEpoch` in Python.
#[pyclass(module = "adl")]
pub struct RustLoaderEpoch {
    running: Mutex<Running>,
    last: Last,
    process: u32,
}

#[pymethods]
impl RustLoaderEpoch {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch, made without the GIL; a failed one is an
    /// `adl.LoaderError`.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        same_process(self.process)?;
        let next = {
            let mut running = locked(&self.running);
            running.with_dependent_mut(|_, epoch| epoch.next(py))
        };
        match next {
            None => Ok(None),
            Some((batch, state)) => {
                self.last.set(state);
                batch.map(Some)
            }
        }
    }

    /// The number of this rank's batches in the epoch (from where it
    /// started).
    fn __len__(&self) -> usize {
        locked(&self.running).borrow_dependent().batches()
    }

    /// This rank's dataset indices of the epoch, in order.
    fn indices(&self) -> Vec<usize> {
        locked(&self.running).borrow_dependent().indices()
    }

    /// The samples left out so far (`on_error="skip"`): `(index, reason)`.
    fn skipped(&self) -> Vec<(usize, String)> {
        locked(&self.running).borrow_dependent().skipped()
    }

    /// Where this epoch stands, as the loader's `state_dict` gives it.
    fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        to_dict(py, &locked(&self.running).borrow_dependent().state())
    }
}

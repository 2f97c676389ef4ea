//! [`RustLoader`]: a loader written in Rust (its dataset and `pipeline!`
//! typed and checked at compile time, its nodes native) handed to Python,
//! which iterates its epochs: each batch made without the GIL and given
//! to Python through [`IntoPython`], arrays without a copy.
//!
//! An epoch runs on a thread of its own, which owns the loader's epoch
//! and hands each batch over a channel of one (the loader's own prefetch
//! is ahead of it); Python waits on the channel without the GIL. Dropping
//! the Python epoch closes the channel: the thread stops, and with it the
//! epoch's work.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard};

use adl_core::exec::Recycle;
use adl_core::{Dataset, Pipeline};
use adl_graph::loader::{Loader, LoaderState};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::IntoPython;
use crate::loader::{from_dict, loader_error, same_process, to_dict};

/// What an epoch's thread hands over: a batch or an error, and the state
/// after it.
enum Item<B> {
    Batch(adl_core::Result<B>, LoaderState),
}

/// An epoch running on its thread, its batches as Python objects.
trait ErasedEpoch: Send {
    /// The next batch (`None` at the end), waited for without the GIL.
    fn next(&mut self, py: Python<'_>) -> Option<(PyResult<Py<PyAny>>, LoaderState)>;
}

struct Running<B> {
    receiver: Receiver<Item<B>>,
}

impl<B: IntoPython> ErasedEpoch for Running<B> {
    fn next(&mut self, py: Python<'_>) -> Option<(PyResult<Py<PyAny>>, LoaderState)> {
        let receiver = &mut self.receiver;
        let item = py.detach(move || receiver.recv().ok())?;
        let Item::Batch(batch, state) = item;
        let batch = match batch {
            Ok(batch) => batch.into_python(py),
            Err(error) => Err(loader_error(py, &error)),
        };
        Some((batch, state))
    }
}

/// A loader of any dataset and pipeline whose batches are [`IntoPython`].
trait ErasedLoader: Send + Sync {
    fn start(
        &self,
        epoch: u64,
        state: Option<LoaderState>,
    ) -> adl_core::Result<Box<dyn ErasedEpoch>>;
    fn state(&self, epoch: u64) -> LoaderState;
    fn statistics(&self) -> String;
    fn plan(&self) -> String;
}

impl<D, P> ErasedLoader for Arc<Loader<D, P>>
where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + IntoPython,
{
    fn start(
        &self,
        epoch: u64,
        state: Option<LoaderState>,
    ) -> adl_core::Result<Box<dyn ErasedEpoch>> {
        if let Some(state) = &state {
            // Refused now, in the caller's thread, rather than on the first
            // batch.
            drop(self.resume(state)?);
        }
        let (sender, receiver) = sync_channel(1);
        let loader = Arc::clone(self);
        std::thread::Builder::new()
            .name(format!("adl-epoch-{epoch}"))
            .spawn(move || run(&loader, epoch, state, &sender))
            .map_err(|e| {
                adl_core::Error::invalid("epoch", format!("cannot start its thread: {e}"))
            })?;
        Ok(Box::new(Running { receiver }))
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

/// The epoch's thread: every batch, with the state after it, until the
/// epoch ends or Python drops it.
fn run<D, P>(
    loader: &Loader<D, P>,
    epoch: u64,
    state: Option<LoaderState>,
    sender: &SyncSender<Item<P::Processed>>,
) where
    D: Dataset + Send + Sync + 'static,
    D::Sample: Send,
    P: Pipeline<D::Sample> + Send + Sync + 'static,
    P::Transformed: Send,
    P::Processed: Recycle + Send + 'static,
{
    let mut batches = match &state {
        Some(state) => match loader.resume(state) {
            Ok(batches) => batches,
            Err(error) => {
                let _ = sender.send(Item::Batch(Err(error), state.clone()));
                return;
            }
        },
        None => loader.epoch(epoch),
    };
    while let Some(batch) = batches.next() {
        let state = batches.state();
        if sender
            .send(Item::Batch(
                batch.map(adl_graph::loader::Batch::into_inner),
                state,
            ))
            .is_err()
        {
            // Python dropped the epoch.
            return;
        }
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// A loader built in Rust, for Python: `RustLoader::new(loader)` in a
/// crate's `#[pyfunction]` hands it over, and Python iterates
/// `loader.epoch(e)`, saves `loader.state_dict()` and resumes with
/// `loader.load_state_dict(state)`, as with `adl.Loader`. Its batch type
/// implements [`IntoPython`].
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
    inner: Box<dyn ErasedLoader>,
    process: u32,
    last: Arc<Mutex<Option<LoaderState>>>,
    pending: Mutex<Option<LoaderState>>,
}

impl RustLoader {
    /// `loader`, for Python.
    pub fn new<D, P>(loader: Loader<D, P>) -> RustLoader
    where
        D: Dataset + Send + Sync + 'static,
        D::Sample: Send,
        P: Pipeline<D::Sample> + Send + Sync + 'static,
        P::Transformed: Send,
        P::Processed: Recycle + IntoPython,
    {
        RustLoader {
            inner: Box::new(Arc::new(loader)),
            process: std::process::id(),
            last: Arc::default(),
            pending: Mutex::default(),
        }
    }
}

#[pymethods]
impl RustLoader {
    /// Epoch `epoch`: an iterator of this rank's batches, in order (after
    /// `load_state_dict`, the epoch of that state resumes where it was).
    fn epoch(&self, epoch: u64) -> PyResult<RustEpoch> {
        same_process(self.process)?;
        let state = {
            let mut pending = locked(&self.pending);
            match pending.as_ref() {
                Some(state) if state.epoch == epoch => pending.take(),
                _ => None,
            }
        };
        let start = state.clone().unwrap_or_else(|| self.inner.state(epoch));
        let running = self
            .inner
            .start(epoch, state)
            .map_err(crate::errors::to_python)?;
        *locked(&self.last) = Some(start);
        Ok(RustEpoch {
            running: Mutex::new(running),
            last: Arc::clone(&self.last),
            process: self.process,
        })
    }

    /// The state of the epoch iterated last, where it stands (the start
    /// of epoch 0 before any).
    fn state_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = locked(&self.last)
            .clone()
            .unwrap_or_else(|| self.inner.state(0));
        to_dict(py, &state)
    }

    /// Resume from `state`: the next `epoch` of its epoch number starts
    /// where it stood.
    fn load_state_dict(&self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        *locked(&self.pending) = Some(from_dict(state)?);
        Ok(())
    }

    /// What the loader did so far, as text.
    fn statistics(&self) -> String {
        self.inner.statistics()
    }

    /// The loader's plan as Graphviz DOT.
    fn plan(&self) -> String {
        self.inner.plan()
    }
}

/// One epoch of a [`RustLoader`]: an iterator of batches.
#[pyclass(module = "adl")]
pub struct RustEpoch {
    running: Mutex<Box<dyn ErasedEpoch>>,
    last: Arc<Mutex<Option<LoaderState>>>,
    process: u32,
}

#[pymethods]
impl RustEpoch {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch, made without the GIL; a failed one is an
    /// `adl.LoaderError`.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        same_process(self.process)?;
        let next = {
            let mut running = locked(&self.running);
            running.next(py)
        };
        match next {
            None => Ok(None),
            Some((batch, state)) => {
                *locked(&self.last) = Some(state);
                batch.map(Some)
            }
        }
    }
}

//! [`Blocks`]: the shared memory one worker process writes its batches'
//! arrays into, lent a block per batch and pooled: a block goes back to
//! the pool when the last NumPy array over it is freed (its
//! [`SharedBlock`] owner), and the next batches are written into it.
//!
//! A block is a file the loader makes in `/dev/shm` (else the system's
//! temporary folder) and maps; the process maps it the first time it is
//! lent, by its name, which the loader unlinks as soon as that batch is
//! answered (the process has mapped it by then, or is gone). A block
//! lives as long as its mappings: the pool's, the process's, and the
//! arrays' over it. `adl._processes` says the protocol.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use memmap2::MmapMut;
use numpy::PyArray1;
use pyo3::prelude::*;

/// The number a request gives when it lends no block.
pub(crate) const NO_BLOCK: u32 = u32::MAX;

/// The smallest block made: 1 MiB (the first batch's block, before its
/// buffers' size is known).
const SMALLEST: usize = 1 << 20;

/// Free blocks a pool keeps; past that, blocks given back are unmapped.
/// A process has at most 2 batches asked and 2 more waiting in the
/// loader's window ahead of the consumer (4 per process), and the
/// consumer holds one or two: 6 serve an epoch, and the next, with no
/// block made again.
pub(crate) const KEPT: usize = 6;

/// Free blocks a pool keeps under a memory budget: the loader counts the
/// blocks lent (they hold the batches it counts), and of those given back
/// one per process, for its next batch.
pub(crate) const KEPT_UNDER_BUDGET: usize = 1;

/// A block of shared memory, mapped.
pub(crate) struct Block {
    number: u32,
    map: MmapMut,
}

impl Block {
    /// Its number, as requests name it.
    pub(crate) fn number(&self) -> u32 {
        self.number
    }

    /// Its size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }
}

/// A block lent for one batch: the name to send where it is new to the
/// process (and to [unlink](Lease::unlink) once the batch is answered:
/// the asker does, whatever the answer).
pub(crate) struct Lease {
    pub(crate) block: Block,
    pub(crate) name: Option<PathBuf>,
}

impl Lease {
    /// Unlink its name, if it has one: the process has mapped it, or
    /// never will. Once.
    pub(crate) fn unlink(&mut self) {
        if let Some(name) = self.name.take() {
            let _ = std::fs::remove_file(name);
        }
    }
}

/// The blocks of one worker process: see the [module docs](self).
pub(crate) struct Blocks {
    /// Where blocks are made, and the start of their names.
    dir: PathBuf,
    prefix: String,
    free: Mutex<Vec<Block>>,
    /// The most free blocks kept.
    kept: usize,
    /// The numbers of the blocks unmapped here that the process still
    /// maps: the next request tells it to unmap them too.
    forgotten: Mutex<Vec<u32>>,
    next: AtomicU32,
    /// The bytes a batch's buffers needed, the most so far (0: none
    /// measured).
    wanted: AtomicUsize,
    /// Blocks made, and their bytes.
    made: AtomicU64,
    made_bytes: AtomicU64,
    /// Why a block could not be made, the first time (batches then come
    /// pickled whole).
    failed: Mutex<Option<String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Blocks {
    /// The pool of worker process `worker`, which keeps at most `kept`
    /// free blocks.
    pub(crate) fn new(worker: usize, kept: usize) -> Arc<Blocks> {
        let shm = PathBuf::from("/dev/shm");
        let dir = if shm.is_dir() {
            shm
        } else {
            std::env::temp_dir()
        };
        // Unique per process, pool and worker.
        static LOADERS: AtomicU64 = AtomicU64::new(0);
        let loader = LOADERS.fetch_add(1, Ordering::Relaxed);
        Arc::new(Blocks {
            dir,
            prefix: format!("adl-{}-{loader}-{worker}-", std::process::id()),
            free: Mutex::new(Vec::new()),
            kept,
            forgotten: Mutex::new(Vec::new()),
            next: AtomicU32::new(0),
            wanted: AtomicUsize::new(0),
            made: AtomicU64::new(0),
            made_bytes: AtomicU64::new(0),
            failed: Mutex::new(None),
        })
    }

    /// The start of every name this pool gives its blocks (a path): the
    /// process unlinks whatever names start so once its loader is gone.
    pub(crate) fn names(&self) -> String {
        self.dir.join(&self.prefix).to_string_lossy().into_owned()
    }

    /// A block for the next batch: a free one large enough, else a new
    /// one; none where blocks cannot be made.
    pub(crate) fn lend(&self) -> Option<Lease> {
        let wanted = self.wanted.load(Ordering::Relaxed);
        {
            let mut free = lock(&self.free);
            // Blocks too small for the batches now are unmapped.
            let (keep, small): (Vec<Block>, Vec<Block>) =
                free.drain(..).partition(|b| b.len() >= wanted);
            *free = keep;
            self.forget(small);
            if let Some(block) = free.pop() {
                return Some(Lease { block, name: None });
            }
        }
        if lock(&self.failed).is_some() {
            return None;
        }
        let size = (wanted + wanted / 4).max(SMALLEST).next_multiple_of(4096);
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        if number == NO_BLOCK {
            return None;
        }
        let path = self.dir.join(format!("{}{number}", self.prefix));
        match make(&path, size) {
            Ok(map) => {
                self.made.fetch_add(1, Ordering::Relaxed);
                self.made_bytes.fetch_add(size as u64, Ordering::Relaxed);
                Some(Lease {
                    block: Block { number, map },
                    name: Some(path),
                })
            }
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                *lock(&self.failed) = Some(format!(
                    "a block of shared memory cannot be made at {}: {e}",
                    path.display()
                ));
                None
            }
        }
    }

    /// `block` is free again: kept for the next batches, or unmapped.
    pub(crate) fn give_back(&self, block: Block) {
        let mut free = lock(&self.free);
        if free.len() < self.kept && block.len() >= self.wanted.load(Ordering::Relaxed) {
            free.push(block);
        } else {
            drop(free);
            self.forget([block]);
        }
    }

    /// Unmap `blocks` here, and have the process unmap them with its next
    /// request: a block's memory is freed once neither maps it.
    fn forget(&self, blocks: impl IntoIterator<Item = Block>) {
        let mut forgotten = lock(&self.forgotten);
        for block in blocks {
            forgotten.push(block.number);
        }
    }

    /// The blocks to tell the process to unmap, taken (at most `most`; the
    /// rest with a later request).
    pub(crate) fn take_forgotten(&self, most: usize) -> Vec<u32> {
        let mut forgotten = lock(&self.forgotten);
        let n = forgotten.len().min(most);
        forgotten.drain(..n).collect()
    }

    /// A batch's buffers needed `bytes`: the next blocks lent are that
    /// large at least.
    pub(crate) fn needed(&self, bytes: u64) {
        let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        self.wanted.fetch_max(bytes, Ordering::Relaxed);
    }

    /// Blocks made so far, and their bytes.
    pub(crate) fn made(&self) -> (u64, u64) {
        (
            self.made.load(Ordering::Relaxed),
            self.made_bytes.load(Ordering::Relaxed),
        )
    }

    /// Why blocks cannot be made, if they cannot.
    pub(crate) fn failed(&self) -> Option<String> {
        lock(&self.failed).clone()
    }
}

/// A block's file at `path`, `size` bytes, mapped.
fn make(path: &std::path::Path, size: usize) -> std::io::Result<MmapMut> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)?;
    file.set_len(size as u64)?;
    // SAFETY: the file was made here, for this block alone (`create_new`:
    // no other file of this name was opened), and only the worker process
    // the block is lent to writes it, while it is lent: never while the
    // loader reads it (after the process's reply) or Python holds arrays
    // over it (the block is lent again only once they are freed).
    unsafe { MmapMut::map_mut(&file) }
}

/// The owner of a block while NumPy arrays view it: gives the block back
/// to its pool when Python frees the last of them.
#[pyclass(frozen, module = "adl")]
pub(crate) struct SharedBlock {
    block: Mutex<Option<Block>>,
    home: Arc<Blocks>,
}

impl Drop for SharedBlock {
    fn drop(&mut self) {
        let block = self
            .block
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(block) = block {
            self.home.give_back(block);
        }
    }
}

/// `block` as the buffers a batch's pickle names: for each `(offset,
/// length)`, a `uint8` NumPy array over those bytes of the block (no copy),
/// all kept alive by one [`SharedBlock`] that gives the block back to
/// `home` once Python frees them. `None` where a buffer lies outside the
/// block.
pub(crate) fn buffers<'py>(
    py: Python<'py>,
    block: Block,
    home: Arc<Blocks>,
    table: &[(u64, u64)],
) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
    let len = block.len() as u64;
    if table
        .iter()
        .any(|&(offset, n)| offset.checked_add(n).is_none_or(|end| end > len))
    {
        home.give_back(block);
        return Ok(None);
    }
    let ptr = block.map.as_ptr();
    let owner = Bound::new(
        py,
        SharedBlock {
            block: Mutex::new(Some(block)),
            home,
        },
    )?
    .into_any();
    let mut out = Vec::with_capacity(table.len());
    for &(offset, n) in table {
        // SAFETY: `offset..offset + n` lies inside the block (checked
        // above); the block's mapping is owned by `owner`, which does not
        // unmap or lend it while the array (whose base it is) lives.
        let view = unsafe {
            let at = ptr.add(offset as usize);
            ndarray::ArrayView1::from_shape_ptr(n as usize, at)
        };
        let array = unsafe { PyArray1::borrow_from_array(&view, owner.clone()) };
        out.push(array.into_any());
    }
    Ok(Some(out))
}

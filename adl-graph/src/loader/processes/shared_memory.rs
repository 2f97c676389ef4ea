//! [`Blocks`]: the shared memory of one worker process.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use memmap2::MmapMut;
use tempfile::TempPath;

use super::lock;

/// The number a request gives when it lends no block.
pub const NO_BLOCK: u32 = u32::MAX;

/// The smallest block made: 1 MiB (the first batch's block, before its
/// buffers' size is known).
const SMALLEST: usize = 1 << 20;

/// Free blocks a pool keeps; past that, blocks given back are unmapped.
/// A process has at most 2 batches asked and 2 more waiting in the
/// loader's window ahead of the consumer (4 per process), and the
/// consumer holds one or two: 6 serve an epoch, and the next, with no
/// block made again.
const KEPT: usize = 6;

/// Free blocks a pool keeps under a memory budget: the loader counts the
/// blocks lent (they hold the batches it counts), and of those given back
/// one per process, for its next batch.
const KEPT_UNDER_BUDGET: usize = 1;

/// A block of shared memory, mapped.
#[derive(Debug)]
pub struct Block {
    number: u32,
    map: MmapMut,
}

impl Block {
    /// Its number, as requests name it.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it has no bytes (never: a block is 1 MiB at least).
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Its bytes, as the process wrote them. A block held here is not lent
    /// (the process writes a block only between its request and its
    /// reply), so nothing else writes it while this borrow lives; the
    /// bindings take the address to view the batch's arrays there, and
    /// give the block back only once no view is left.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }
}

/// A block lent for one batch: the name to send where it is new to the
/// process (and to [unlink](Lease::unlink) once the batch is answered:
/// the asker does, whatever the answer). A name dropped is unlinked, so a
/// lease dropped, or a block taken out of it, leaves no file behind.
pub struct Lease {
    /// The block.
    pub block: Block,
    /// Its file's name, where the process has not mapped it yet: unlinked
    /// when dropped.
    pub name: Option<TempPath>,
}

impl Lease {
    /// Unlink its name, if it has one: the process has mapped it, or
    /// never will. Once.
    pub fn unlink(&mut self) {
        self.name = None;
    }
}

/// The shared memory one worker process writes its batches'
/// arrays into, lent a block per batch and pooled: a block goes back to
/// the pool when the last array over it is freed (the bindings' owner of
/// the arrays calls [`Blocks::give_back`]), and the next batches are
/// written into it.
///
/// A block is a file the loader makes in `/dev/shm` (else the system's
/// temporary folder) and maps; the process maps it the first time it is
/// lent, by its name, which the loader unlinks as soon as that batch is
/// answered (the process has mapped it by then, or is gone). A block
/// lives as long as its mappings: the pool's, the process's, and the
/// arrays' over it. The [`processes`](crate::loader::processes) module says the protocol.
///
/// ```
/// use adl::graph::loader::processes::Blocks;
///
/// let blocks = Blocks::new(0, false);
/// let mut lease = blocks.lend().expect("/dev/shm or the temporary folder takes a block");
/// assert!(lease.name.is_some(), "a new block is sent by its name");
/// lease.unlink();
/// blocks.give_back(lease.block);
/// let again = blocks.lend().expect("a free block");
/// assert!(again.name.is_none(), "a block the process maps already is sent by its number");
/// assert_eq!(blocks.made().0, 1);
/// ```
pub struct Blocks {
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
    /// measured); shared by the pools of one loader's processes
    /// ([`Blocks::pools`]), whose batches come from one pipeline.
    wanted: Arc<AtomicUsize>,
    /// Blocks made, and their bytes.
    made: AtomicU64,
    made_bytes: AtomicU64,
    /// Why a block could not be made, the first time (batches then come
    /// pickled whole).
    failed: Mutex<Option<String>>,
}

impl std::fmt::Debug for Blocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocks")
            .field("names", &self.names())
            .field("kept", &self.kept)
            .field("made", &self.made())
            .finish_non_exhaustive()
    }
}

impl Blocks {
    /// The pool of worker process `worker`: it keeps 6 free blocks (a
    /// process's batches asked and waiting, and the consumer's), or one
    /// `under_budget` (the loader then counts the blocks lent, which hold
    /// the batches it weighs).
    pub fn new(worker: usize, under_budget: bool) -> Arc<Blocks> {
        Blocks::sized_by(worker, under_budget, Arc::default())
    }

    /// The pools of a loader's `count` worker processes (kept small
    /// `under_budget`, as [`new`](Self::new)), which learn one size: a
    /// batch too large for its block makes the next blocks of every pool
    /// that large, so that batches come pickled whole only until the
    /// first reply, whichever process gives it.
    ///
    /// ```
    /// use adl::graph::loader::processes::Blocks;
    ///
    /// let pools = Blocks::pools(2, false);
    /// pools[0].needed(3 << 20);
    /// let mut lease = pools[1].lend().expect("/dev/shm or the temporary folder takes a block");
    /// assert!(lease.block.len() >= 3 << 20);
    /// lease.unlink();
    /// ```
    pub fn pools(count: usize, under_budget: bool) -> Vec<Arc<Blocks>> {
        let wanted = Arc::<AtomicUsize>::default();
        (0..count)
            .map(|worker| Blocks::sized_by(worker, under_budget, Arc::clone(&wanted)))
            .collect()
    }

    /// The pool of worker process `worker`, its sizes learned in `wanted`.
    fn sized_by(worker: usize, under_budget: bool, wanted: Arc<AtomicUsize>) -> Arc<Blocks> {
        let kept = match under_budget {
            true => KEPT_UNDER_BUDGET,
            false => KEPT,
        };
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
            wanted,
            made: AtomicU64::new(0),
            made_bytes: AtomicU64::new(0),
            failed: Mutex::new(None),
        })
    }

    /// The start of every name this pool gives its blocks (a path): the
    /// process unlinks whatever names start so once its loader is gone.
    pub fn names(&self) -> String {
        self.dir.join(&self.prefix).to_string_lossy().into_owned()
    }

    /// A block for the next batch: a free one large enough, else a new
    /// one; none where blocks cannot be made.
    pub fn lend(&self) -> Option<Lease> {
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
        // The name is held from the moment the file is made: unlinked
        // when the lease drops it.
        let made = make(&path, size).and_then(|map| Ok((map, TempPath::try_from_path(&path)?)));
        match made {
            Ok((map, name)) => {
                self.made.fetch_add(1, Ordering::Relaxed);
                self.made_bytes.fetch_add(size as u64, Ordering::Relaxed);
                Some(Lease {
                    block: Block { number, map },
                    name: Some(name),
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
    pub fn give_back(&self, block: Block) {
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

    /// `numbers`, taken by [`take_forgotten`](Self::take_forgotten) for a
    /// request that was not sent: told with the next one.
    pub fn forget_later(&self, numbers: Vec<u32>) {
        lock(&self.forgotten).extend(numbers);
    }

    /// The blocks to tell the process to unmap, taken (at most `most`; the
    /// rest with a later request).
    pub fn take_forgotten(&self, most: usize) -> Vec<u32> {
        let mut forgotten = lock(&self.forgotten);
        let n = forgotten.len().min(most);
        forgotten.drain(..n).collect()
    }

    /// A batch's buffers needed `bytes`: the next blocks lent are that
    /// large at least.
    pub fn needed(&self, bytes: u64) {
        let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        self.wanted.fetch_max(bytes, Ordering::Relaxed);
    }

    /// The most free blocks it keeps.
    pub fn kept(&self) -> usize {
        self.kept
    }

    /// Blocks made so far, and their bytes.
    pub fn made(&self) -> (u64, u64) {
        (
            self.made.load(Ordering::Relaxed),
            self.made_bytes.load(Ordering::Relaxed),
        )
    }

    /// Why blocks cannot be made, if they cannot.
    pub fn failed(&self) -> Option<String> {
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

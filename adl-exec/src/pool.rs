//! [`BufferPool`]: recycled batch buffers, kept so that the next batches
//! are built in memory that is already mapped (no page faults, no
//! allocator trims).

use std::collections::VecDeque;
use std::mem::{needs_drop, size_of};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};

use super::Recycle;
use super::raw_buffer::RawBuffer;
use super::recycler::Recycler;

/// How a [`BufferPool`] has served its requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BufferStatistics {
    /// Buffers handed out from recycled memory.
    pub reused: u64,
    /// Buffers the pool could not serve, allocated fresh.
    pub allocated: u64,
    /// Recycled buffers released because the pool was over its limit.
    pub released: u64,
    /// Bytes held now.
    pub held_bytes: usize,
    /// The most bytes it may hold now.
    pub limit_bytes: usize,
    /// Bytes asked of it ([`take`](BufferPool::take)), reused or allocated:
    /// the memory of the batches built in it, intermediate arrays a node
    /// gave back ([`Buffers::release`](super::Buffers::release)) included.
    pub taken_bytes: u64,
    /// The largest batch given back so far ([`recycle`](BufferPool::recycle)),
    /// in bytes of all its buffers: those kept, and those too small to
    /// pool.
    pub largest_batch_bytes: usize,
    /// The largest batch's memory outside the pool, as its type reported
    /// it ([`note_unpooled`](BufferPool::note_unpooled): a Python batch's
    /// arrays, say), in bytes.
    pub largest_unpooled_bytes: usize,
}

#[derive(Default)]
struct Held {
    buffers: Vec<RawBuffer>,
    bytes: usize,
    clock: u64,
    /// The largest batch recycled so far, in bytes of the buffers kept:
    /// what the limit is in.
    largest_batch: usize,
    /// The buffers handed out last, by address, with the thread each was
    /// handed to (the one that writes it): at most [`WRITERS`].
    writers: VecDeque<(usize, u64)>,
}

impl Held {
    /// Remember that the buffer at `address` was handed to thread `writer`
    /// (forgetting the oldest such past [`WRITERS`]).
    fn lent(&mut self, address: usize, writer: u64) {
        if self.writers.len() == WRITERS {
            self.writers.pop_front();
        }
        self.writers.push_back((address, writer));
    }
}

/// How many buffers handed out a pool remembers the writer of: more than
/// the batches a loader has in flight hold.
const WRITERS: usize = 64;

/// This thread's number, as a pool tells threads apart (from 1).
fn this_thread() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local!(static THREAD: u64 = NEXT.fetch_add(1, Relaxed));
    THREAD.with(|id| *id)
}

/// A pool of batch buffers, bounded by a number of batches.
///
/// A loader keeps one and hands it to its jobs through their execution
/// context (as [`Buffers`](super::Buffers), one of the context's
/// services); the collate builders and the batch kernels
/// take the memory of every array they build from it, and a batch the
/// consumer is done with gives its memory back through
/// [`recycle`](BufferPool::recycle). After the first few batches a warm
/// epoch allocates nothing: each batch is built in the memory of one the
/// consumer dropped, already mapped, so its speed does not depend on the
/// allocator.
///
/// The pool holds at most `batches` times the largest batch recycled so
/// far; past that it releases its oldest buffers. Only element types that
/// need no drop (numbers, `bool`, plain `Copy` structs) are recycled; any
/// other memory is freed as usual.
///
/// ```
/// use std::sync::Arc;
/// use adl::exec::{BufferPool, Buffers};
/// use ndarray::Array2;
///
/// let pool = Arc::new(BufferPool::new(2));
/// let batch = Array2::<f32>::zeros((64, 1024));
/// pool.recycle(batch); // the consumer is done with it
/// let v: Vec<f32> = Buffers::from_pool(&pool).take(64 * 1024);
/// assert!(v.capacity() >= 64 * 1024);
/// assert_eq!(pool.statistics().reused, 1);
/// ```
pub struct BufferPool {
    batches: AtomicUsize,
    held: Mutex<Held>,
    reused: AtomicU64,
    allocated: AtomicU64,
    released: AtomicU64,
    taken: AtomicU64,
    /// The largest batch recycled so far, in bytes of all its buffers.
    whole: AtomicUsize,
    unpooled: AtomicUsize,
}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferPool")
            .field("batches", &self.batches.load(Relaxed))
            .field("statistics", &self.statistics())
            .finish()
    }
}

impl BufferPool {
    /// A pool that keeps the buffers of at most `batches` batches (at least
    /// one).
    pub fn new(batches: usize) -> Self {
        BufferPool {
            batches: AtomicUsize::new(batches.max(1)),
            held: Mutex::new(Held::default()),
            reused: AtomicU64::new(0),
            allocated: AtomicU64::new(0),
            released: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            whole: AtomicUsize::new(0),
            unpooled: AtomicUsize::new(0),
        }
    }

    /// Keep the buffers of at most `batches` batches (at least one) from
    /// now on: what a loader under a memory budget holds. Buffers past the
    /// new limit are released as the next batch is given back.
    pub fn set_batches(&self, batches: usize) {
        self.batches.store(batches.max(1), Relaxed);
    }

    fn held(&self) -> MutexGuard<'_, Held> {
        // The pool's state is consistent between statements: a panic while
        // it was locked leaves nothing half-done.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An empty `Vec` with room for at least `capacity` elements: recycled
    /// memory where the pool has a buffer that fits (the smallest such; of
    /// those, one this thread wrote last, whose memory is likeliest in its
    /// core's cache, not another core's; then the one given back last),
    /// else a fresh allocation.
    ///
    /// Which thread wrote a buffer matters where batches are small and
    /// built on several threads: W1's 64 kB batches, built into buffers
    /// that the other core had written, made 50 M samples/s on two
    /// threads of a plain loop, against 60 to 80 M in buffers each thread
    /// had written itself (`docs/performance.md`).
    pub fn take<A>(&self, capacity: usize) -> Vec<A> {
        if capacity == 0 || needs_drop::<A>() || size_of::<A>() == 0 {
            return Vec::with_capacity(capacity);
        }
        self.taken
            .fetch_add(capacity.saturating_mul(size_of::<A>()) as u64, Relaxed);
        let me = this_thread();
        let found = {
            let mut held = self.held();
            let best = held
                .buffers
                .iter()
                .enumerate()
                .filter_map(|(i, b)| b.capacity_for::<A>().map(|c| (i, c, b)))
                .filter(|&(_, c, _)| c >= capacity)
                .min_by_key(|&(_, c, b)| (c, b.writer != me, std::cmp::Reverse(b.stamp)))
                .map(|(i, c, _)| (i, c));
            best.map(|(i, c)| {
                let buffer = held.buffers.swap_remove(i);
                held.bytes -= buffer.layout.size();
                held.lent(buffer.address(), me);
                (buffer, c)
            })
        };
        match found {
            Some((buffer, c)) => {
                self.reused.fetch_add(1, Relaxed);
                buffer.into_vec(c)
            }
            None => {
                self.allocated.fetch_add(1, Relaxed);
                let v = Vec::with_capacity(capacity);
                self.held().lent(v.as_ptr() as usize, me);
                v
            }
        }
    }

    /// Give back every buffer of `batch`, a batch the consumer is done with.
    pub fn recycle<B: Recycle>(&self, batch: B) {
        let mut recycler = Recycler::default();
        batch.recycle(&mut recycler);
        let Recycler {
            buffers,
            bytes,
            whole,
        } = recycler;
        self.whole.fetch_max(whole, Relaxed);
        if buffers.is_empty() {
            return;
        }
        let mut held = self.held();
        held.largest_batch = held.largest_batch.max(bytes);
        for mut buffer in buffers {
            held.clock += 1;
            buffer.stamp = held.clock;
            let address = buffer.address();
            if let Some(at) = held.writers.iter().rposition(|&(a, _)| a == address) {
                buffer.writer = held.writers.remove(at).map_or(0, |(_, w)| w);
            }
            held.bytes += buffer.layout.size();
            held.buffers.push(buffer);
        }
        let limit = self
            .batches
            .load(Relaxed)
            .saturating_mul(held.largest_batch);
        let mut released = 0;
        while held.bytes > limit {
            let Some(oldest) = held
                .buffers
                .iter()
                .enumerate()
                .min_by_key(|(_, b)| b.stamp)
                .map(|(i, _)| i)
            else {
                break;
            };
            let buffer = held.buffers.swap_remove(oldest);
            held.bytes -= buffer.layout.size();
            released += 1;
            drop(buffer);
        }
        drop(held);
        if released > 0 {
            self.released.fetch_add(released, Relaxed);
        }
    }

    /// Note a batch's memory outside the pool (bytes its type reports,
    /// [`Recycle::unpooled_bytes`]): a loader under a memory budget counts
    /// the largest with the batches' pooled memory.
    pub fn note_unpooled(&self, bytes: usize) {
        self.unpooled.fetch_max(bytes, Relaxed);
    }

    /// What the pool has served and holds.
    pub fn statistics(&self) -> BufferStatistics {
        let held = self.held();
        BufferStatistics {
            reused: self.reused.load(Relaxed),
            allocated: self.allocated.load(Relaxed),
            released: self.released.load(Relaxed),
            held_bytes: held.bytes,
            limit_bytes: self
                .batches
                .load(Relaxed)
                .saturating_mul(held.largest_batch),
            taken_bytes: self.taken.load(Relaxed),
            largest_batch_bytes: self.whole.load(Relaxed),
            largest_unpooled_bytes: self.unpooled.load(Relaxed),
        }
    }

    /// Count afresh from zero (the buffers held stay).
    pub fn reset_statistics(&self) {
        for counter in [&self.reused, &self.allocated, &self.released, &self.taken] {
            counter.store(0, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};
    use std::sync::Arc;

    #[test]
    fn a_recycled_buffer_is_reused_in_place() {
        let pool = Arc::new(BufferPool::new(1));
        let batch = Array2::<f32>::zeros((8, 1024));
        let address = batch.as_ptr() as usize;
        pool.recycle(batch);
        let again: Vec<f32> = pool.take(5000);
        assert_eq!(again.as_ptr() as usize, address);
        assert!(again.is_empty() && again.capacity() >= 8192);
        let stats = pool.statistics();
        assert_eq!((stats.reused, stats.allocated, stats.held_bytes), (1, 0, 0));
    }

    #[test]
    fn memory_is_reused_only_for_a_compatible_type() {
        let pool = BufferPool::new(4);
        pool.recycle(Array1::<f64>::zeros(4096));
        // u8 has another alignment: not served from the f64 buffer.
        let bytes: Vec<u8> = pool.take(20_000);
        assert!(bytes.capacity() >= 20_000);
        assert_eq!(pool.statistics().allocated, 1);
        // i64 has the same size and alignment: served.
        let ints: Vec<i64> = pool.take(4096);
        assert_eq!(ints.capacity(), 4096);
        assert_eq!(pool.statistics().reused, 1);
        // Too small for 4097.
        pool.recycle(Array1::from(ints));
        let more: Vec<i64> = pool.take(4097);
        assert!(more.capacity() >= 4097);
        assert_eq!(pool.statistics().allocated, 2);
    }

    #[test]
    fn a_thread_gets_back_the_buffer_it_wrote_before_one_given_back_later() {
        let pool = Arc::new(BufferPool::new(4));
        let take_on_another_thread = || {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || pool.take::<f32>(8192))
                .join()
                .expect("the thread takes a buffer")
        };
        let mine: Vec<f32> = pool.take(8192);
        let theirs = take_on_another_thread();
        let (mine_at, theirs_at) = (mine.as_ptr(), theirs.as_ptr());
        pool.recycle(Array1::from(mine));
        // Given back last: the pool's first choice but for who wrote it.
        pool.recycle(Array1::from(theirs));
        let again: Vec<f32> = pool.take(8192);
        assert_eq!(again.as_ptr(), mine_at);
        // A thread that wrote neither gets the one given back last.
        pool.recycle(Array1::from(again));
        let fresh_thread = take_on_another_thread();
        assert_eq!(fresh_thread.as_ptr(), mine_at);
        assert_ne!(mine_at, theirs_at);
    }

    #[test]
    fn the_smallest_buffer_that_fits_is_taken() {
        let pool = BufferPool::new(4);
        pool.recycle((Array1::<f32>::zeros(100_000), Array1::<f32>::zeros(10_000)));
        let small: Vec<f32> = pool.take(5000);
        assert_eq!(small.capacity(), 10_000);
        let large: Vec<f32> = pool.take(50_000);
        assert_eq!(large.capacity(), 100_000);
    }

    #[test]
    fn the_pool_holds_at_most_its_batches() {
        let pool = BufferPool::new(2);
        for _ in 0..5 {
            pool.recycle(Array1::<f32>::zeros(8192));
        }
        let stats = pool.statistics();
        assert_eq!(stats.held_bytes, 2 * 8192 * 4);
        assert_eq!(stats.limit_bytes, 2 * 8192 * 4);
        assert_eq!(stats.released, 3);
        // A smaller limit releases down to it as the next batch comes back.
        pool.set_batches(1);
        pool.recycle(Array1::<f32>::zeros(8192));
        assert_eq!(pool.statistics().held_bytes, 8192 * 4);
    }

    #[test]
    fn the_bytes_asked_of_the_pool_are_counted() {
        let pool = BufferPool::new(2);
        let a: Vec<f32> = pool.take(10_000);
        pool.recycle(Array1::from(a));
        let _b: Vec<f64> = pool.take(3_000);
        let _s: Vec<String> = pool.take(3_000);
        assert_eq!(pool.statistics().taken_bytes, 40_000 + 24_000);
        pool.reset_statistics();
        assert_eq!(pool.statistics().taken_bytes, 0);
    }

    #[test]
    fn small_blocks_are_not_pooled() {
        let pool = BufferPool::new(2);
        pool.recycle(Array1::<f32>::zeros(16));
        assert_eq!(pool.statistics().held_bytes, 0);
    }

    #[test]
    fn values_that_need_a_drop_are_freed_not_kept() {
        let pool = BufferPool::new(2);
        pool.recycle(vec![String::from("a"), String::from("b")]);
        pool.recycle(Array1::from(vec![String::from("c")]));
        assert_eq!(pool.statistics().held_bytes, 0);
        let strings: Vec<String> = pool.take(2);
        assert!(strings.capacity() >= 2);
    }
}

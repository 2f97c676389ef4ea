//! [`Context`]: what a pipeline runs *in*, and [`join_each`] and
//! [`panic_message`], the helpers of its implementations and callers.

use std::any::Any;
use std::time::Instant;

use crate::Buffers;
use adl_rules::Device;

use crate::{Accelerator, NodeId, SampleRng, Services};

/// What a pipeline runs *in*.
///
/// Every stage method of a pipeline (adl-core's `Transform`, `Collate` and
/// `Pipeline`) has a twin that takes a [`&dyn Context`](Context):
/// `Transform::apply_in`, `Collate::collate_in`, and `Pipeline::sample_in`
/// / `collate_in` / `batch_in`. Composite pipelines pass the context down
/// to their parts, so the context can
///
/// - run parallel branches at once ([`join`](Context::join_dyn): the
///   branches of a tuple, a `Branch` list or `ParallelPipelines`;
///   [`join_each`]);
/// - observe each node ([`enter`](Context::enter) / [`leave`](Context::leave)
///   around every `Tagged` node: `pipeline!` tags each node with its
///   [`NodeId`], its position in the pipeline's `Description`);
/// - hand a node its own random generator for the sample at hand: a
///   [`SampleRng`] of (seed, epoch, sample index, node), the same whatever
///   thread or worker count runs it ([`rng`](Context::rng); a
///   `#[transform]` node asks for it with an `rng: &mut SampleRng`
///   parameter, a closure with `adl::transform::random`);
/// - lend the nodes its execution services, all through one method,
///   [`services`](Context::services): the device that runs batch kernels
///   (an [`Accelerator`]) and the pool that batch memory comes from
///   ([`Buffers`]).
///
/// Batch memory is recycled through the context: a loader keeps a
/// [`BufferPool`](crate::BufferPool) and lends it to its jobs, the collate
/// builders and batch kernels take their memory from it
/// ([`Buffers::take`]), and a batch the consumer drops gives its memory
/// back ([`Recycle`](crate::Recycle)). Outside a loader,
/// [`WithServices`](crate::WithServices) gives a context a pool or a device
/// of its own.
///
/// [`Sequential`](crate::Sequential) runs everything on the calling thread
/// and records nothing: the plain methods (`apply`, `sample`, ...) of the
/// composite pipelines are their `_in` twins run in it. The engine
/// (`adl-graph`) has a rayon context that joins branches on a thread pool
/// and keeps per-node statistics, used by its `Loader`.
///
/// # Design notes
///
/// The context is a trait object, not a type parameter: a `&dyn Context`
/// costs one indirect call per node and per join, no allocation and no
/// lock, and keeps `Transform` and `Pipeline` object-safe (boxed pipelines
/// pass it through too). Parallelism needs `Send` data; only the parallel
/// compositions (tuples, branches) ask for it, in their own impls, so a
/// plain `Stages` pipeline of non-`Send` values still runs sequentially.
///
/// Implementations must be cheap to call: [`enter`](Context::enter) and
/// [`leave`](Context::leave) run around every tagged node of every sample.
pub trait Context: Sync {
    /// Run `a` and `b`, possibly at the same time on two threads; both have
    /// run when this returns. (The typed form is
    /// [`join`](#method.join) on `dyn Context`.)
    fn join_dyn(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send));

    /// `node` starts on one input. Returns the time it started if this call
    /// is to be timed (a context may time only some calls), else `None`.
    fn enter(&self, node: NodeId) -> Option<Instant>;

    /// `node` is done with the input that [`enter`](Context::enter) saw;
    /// `entered` is what `enter` returned.
    fn leave(&self, node: NodeId, entered: Option<Instant>);

    /// The random generator of `node` for the sample at hand: the same for
    /// the same (seed, epoch, sample index, node), whichever thread runs it.
    fn rng(&self, node: NodeId) -> SampleRng;

    /// The dataset index of the sample at hand, where the context knows it.
    fn sample_index(&self) -> Option<usize>;

    /// The execution services lent to the nodes that run here: the device
    /// for batch kernels and the pool of batch memory ([`Services`]; a node
    /// asks for one with [`accelerator`](#method.accelerator) or
    /// [`buffers`](#method.buffers) on `dyn Context`). Default: none.
    fn services(&self) -> Services<'_> {
        Services::new()
    }

    /// The node this context runs, where it is one: inside a
    /// `Tagged` node (`adl::exec::Tagged`, adl-core's), that node's id.
    fn node(&self) -> Option<NodeId> {
        None
    }

    /// Whether consecutive batch kernels run as one here (the schedule's
    /// setting; [`groups`](adl_rules::fusion::groups) decides which). Default:
    /// yes.
    fn fusion(&self) -> bool {
        true
    }

    /// Kernel nodes `group` (their ids, in order) just ran as one on
    /// `device` (a group of one ran alone). Called once per group and
    /// batch by `adl::kernel::run`, so that a context that
    /// keeps statistics can say what ran where, to compare it with the
    /// plan. Default: nothing is kept.
    fn ran(&self, group: &[NodeId], device: Device) {
        let _ = (group, device);
    }
}

impl dyn Context + '_ {
    /// Run `a` and `b`, possibly at the same time, and return both results.
    ///
    /// ```
    /// use adl::exec::{Context, Sequential};
    ///
    /// let cx: &dyn Context = &Sequential::new();
    /// assert_eq!(cx.join(|| 1 + 1, || "two"), (2, "two"));
    /// ```
    pub fn join<RA: Send, RB: Send>(
        &self,
        a: impl FnOnce() -> RA + Send,
        b: impl FnOnce() -> RB + Send,
    ) -> (RA, RB) {
        let (mut a, mut b) = (Some(a), Some(b));
        let (mut ra, mut rb) = (None, None);
        self.join_dyn(&mut || ra = a.take().map(|f| f()), &mut || {
            rb = b.take().map(|f| f())
        });
        match (ra, rb) {
            (Some(ra), Some(rb)) => (ra, rb),
            // A context that returns from join_dyn without running both
            // closures breaks the trait's contract.
            _ => panic!("Context::join_dyn returned before running both closures"),
        }
    }

    /// The device that runs batch kernels here, if any (one of the
    /// [`services`](Context::services)): kernel nodes
    /// (`adl::kernel`) run on it, and as their Rust bodies
    /// without one.
    pub fn accelerator(&self) -> Option<&dyn Accelerator> {
        self.services().accelerator()
    }

    /// Where batch memory comes from here (one of the
    /// [`services`](Context::services)): a loader's pool, or none.
    pub fn buffers(&self) -> Buffers<'_> {
        self.services().buffers()
    }

    /// Run `f` as node `node`: [`enter`](Context::enter), `f`,
    /// [`leave`](Context::leave).
    pub fn observe<R>(&self, node: NodeId, f: impl FnOnce() -> R) -> R {
        let entered = self.enter(node);
        let out = f();
        self.leave(node, entered);
        out
    }
}

/// The message of a caught panic's payload (`&str` or `String`; anything
/// else is "a panic with a non-text payload").
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-text payload".to_owned()
    }
}

/// Run `f` on every item of `items`, possibly several at once (the slice is
/// split in halves and the halves [joined](Context::join_dyn)), and return
/// when all are done. Parallel branches use this to run each branch's
/// collate or batch stage at once.
///
/// ```
/// use adl::exec::{Sequential, join_each};
///
/// let mut xs = [1, 2, 3];
/// join_each(&Sequential::new(), &mut xs, |x| *x *= 10);
/// assert_eq!(xs, [10, 20, 30]);
/// ```
pub fn join_each<T: Send>(cx: &dyn Context, items: &mut [T], f: impl Fn(&mut T) + Sync) {
    fn split<T: Send>(cx: &dyn Context, items: &mut [T], f: &(dyn Fn(&mut T) + Sync)) {
        match items {
            [] => {}
            [one] => f(one),
            _ => {
                let (left, right) = items.split_at_mut(items.len() / 2);
                cx.join_dyn(&mut || split(cx, left, f), &mut || split(cx, right, f));
            }
        }
    }
    split(cx, items, &f);
}

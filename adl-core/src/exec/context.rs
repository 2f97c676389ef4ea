use std::any::Any;
use std::time::Instant;

use adl_kernel::Buffers;
use adl_rules::Device;

use super::accelerator::Accelerator;
use super::{NodeId, SampleRng, Services};

/// What a pipeline runs in: see the [module docs](super).
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
    /// [`Tagged`](super::Tagged) node, that node's id.
    fn node(&self) -> Option<NodeId> {
        None
    }

    /// Whether consecutive batch kernels run as one here (the schedule's
    /// setting; [`groups`](crate::kernel::groups) decides which). Default:
    /// yes.
    fn fusion(&self) -> bool {
        true
    }

    /// Kernel nodes `group` (their ids, in order) just ran as one on
    /// `device` (a group of one ran alone). Called once per group and
    /// batch by [`kernel::run`](crate::kernel::run), so that a context that
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
    /// ([`kernel`](crate::kernel)) run on it, and as their Rust bodies
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

/// The result a branch left in its slot after [`join_each`]: every slot is
/// filled unless a context broke its contract, which is reported as an
/// error rather than a panic.
pub(crate) fn filled<T>(slot: Option<crate::Result<T>>) -> crate::Result<T> {
    slot.unwrap_or_else(|| {
        Err(crate::Error::invalid(
            "execution context",
            "a parallel branch was not run (Context::join_dyn must run both closures)",
        ))
    })
}

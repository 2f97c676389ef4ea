//! [`Order`]: how a loader orders the dataset indices of an epoch, before
//! the epoch is split across ranks ([`Shard`](super::Shard)).
//!
//! See [`Order`].

mod listed;
mod low_discrepancy;
mod sequential;
mod shuffle;
mod weighted;

use std::fmt;
use std::sync::Arc;

use adl_core::Result;

pub use listed::Listed;
pub use low_discrepancy::LowDiscrepancy;
pub use sequential::Sequential;
pub use shuffle::Shuffle;
pub use weighted::Weighted;

/// How a loader orders an epoch's dataset indices: for each epoch, an
/// [`EpochOrder`] that gives the index at each position.
///
/// An order is a stateless function of (epoch, position): the index at
/// a position depends on nothing else (not on the workers, the timing, or
/// what came before), so that every rank computes the same order, and a
/// resumed epoch recomputes exactly what is left from its cursor. Each
/// epoch's order ([`EpochOrder`]) is made once when the epoch starts and
/// then evaluated position by position; the built-in ones hold no order in
/// memory but an explicit list of indices:
///
/// | order | index at position `p` of epoch `e` |
/// |---|---|
/// | [`Sequential`] | `p` |
/// | [`Shuffle`] | a [`Permutation`](adl_core::sample::Permutation) of `(seed, e)` at `p` |
/// | [`LowDiscrepancy`] | `(start + p * step) mod n`: a golden-ratio walk from `offset + e` |
/// | [`Listed`] | the `p`-th of the indices given |
/// | [`Weighted`] | a draw with replacement, with chance in proportion to its weight, from `(seed, e, p)` |
///
/// A program's own order implements [`Order`] and is given to
/// [`LoaderBuilder::order`](super::LoaderBuilder::order); its
/// [`describe`](Order::describe) is kept in every
/// [`LoaderState`](super::LoaderState), so that a state is resumed only
/// under the order it was taken with.
///
/// An order must be a function of the epoch and the position alone (and
/// of its own parameters): two calls of [`epoch`](Order::epoch) with the
/// same arguments give the same indices, on any machine. That is what
/// makes an epoch resumable and the ranks agree.
///
/// ```
/// use std::sync::Arc;
/// use adl::graph::loader::{EpochOrder, Order, Sequential};
///
/// /// Every index, last first.
/// #[derive(Debug)]
/// struct Backwards;
///
/// impl Order for Backwards {
///     fn len(&self, dataset_len: usize) -> usize {
///         dataset_len
///     }
///     fn epoch(&self, _epoch: u64, dataset_len: usize) -> adl::Result<Arc<dyn EpochOrder>> {
///         #[derive(Debug)]
///         struct Epoch(usize);
///         impl EpochOrder for Epoch {
///             fn len(&self) -> usize {
///                 self.0
///             }
///             fn index(&self, position: usize) -> Option<usize> {
///                 (position < self.0).then(|| self.0 - 1 - position)
///             }
///         }
///         Ok(Arc::new(Epoch(dataset_len)))
///     }
///     fn describe(&self) -> String {
///         "backwards".to_owned()
///     }
/// }
///
/// assert_eq!(Backwards.index(0, 0, 10)?, Some(9));
/// assert_eq!(Sequential.index(3, 4, 10)?, Some(4));
/// # Ok::<(), adl::Error>(())
/// ```
pub trait Order: fmt::Debug + Send + Sync {
    /// How many positions every epoch has over a dataset of `dataset_len`
    /// samples, without making an epoch's order.
    fn len(&self, dataset_len: usize) -> usize;

    /// Epoch `epoch`'s order over a dataset of `dataset_len` samples:
    /// [`len`](Order::len) positions, each an index below
    /// `dataset_len`.
    fn epoch(&self, epoch: u64, dataset_len: usize) -> Result<Arc<dyn EpochOrder>>;

    /// What it is, with every parameter that changes its indices (a seed,
    /// a fingerprint of its list): kept in a
    /// [`LoaderState`](super::LoaderState), and compared when the state
    /// is resumed.
    fn describe(&self) -> String;

    /// Whether it can order a dataset of `dataset_len` samples (an
    /// explicit index in range, as many weights as samples): checked when
    /// the loader is built. The default accepts any.
    fn check(&self, dataset_len: usize) -> Result<()> {
        let _ = dataset_len;
        Ok(())
    }

    /// The index at `position` of epoch `epoch` over a dataset of
    /// `dataset_len` samples (`None` past the epoch's end): one position
    /// of [`epoch`](Order::epoch)'s order.
    fn index(&self, epoch: u64, position: usize, dataset_len: usize) -> Result<Option<usize>> {
        Ok(self.epoch(epoch, dataset_len)?.index(position))
    }
}

/// An order shared: the order it shares (a loader keeps its order so).
impl<O: Order + ?Sized> Order for Arc<O> {
    fn len(&self, dataset_len: usize) -> usize {
        (**self).len(dataset_len)
    }

    fn epoch(&self, epoch: u64, dataset_len: usize) -> Result<Arc<dyn EpochOrder>> {
        (**self).epoch(epoch, dataset_len)
    }

    fn describe(&self) -> String {
        (**self).describe()
    }

    fn check(&self, dataset_len: usize) -> Result<()> {
        (**self).check(dataset_len)
    }
}

/// One epoch's order: the dataset index at each position, computed when
/// it is asked for.
pub trait EpochOrder: fmt::Debug + Send + Sync {
    /// The number of positions.
    fn len(&self) -> usize;

    /// Whether it has no position.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dataset index at `position`, or `None` past the end.
    fn index(&self, position: usize) -> Option<usize>;

    /// The indices at `count` positions from `first`, `step` apart (at
    /// least 1; those before the end), pushed onto `into`: a rank's share
    /// of a batch in one call. The default asks
    /// [`index`](EpochOrder::index) for each; an order that holds its
    /// list reads it straight.
    fn indices_into(&self, first: usize, step: usize, count: usize, into: &mut Vec<usize>) {
        let step = step.max(1);
        for k in 0..count {
            match k.checked_mul(step).and_then(|d| first.checked_add(d)) {
                Some(position) => into.extend(self.index(position)),
                None => return,
            }
        }
    }
}

/// An epoch of no position: where an epoch's order could not be made
/// (its error ends the epoch).
pub(crate) fn nothing() -> Arc<dyn EpochOrder> {
    Arc::new(Listed::new(Vec::new()).epoch_of())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(order: &dyn EpochOrder) -> Vec<usize> {
        (0..order.len()).filter_map(|p| order.index(p)).collect()
    }

    #[test]
    fn every_permuting_order_orders_every_index_once() {
        let orders: [&dyn Order; 3] = [
            &Sequential,
            &Shuffle { seed: 4 },
            &LowDiscrepancy { offset: 2 },
        ];
        for len in [0, 1, 5, 64, 1001] {
            for order in orders {
                assert_eq!(order.len(len), len);
                let mut indices = listed(&*order.epoch(3, len).unwrap());
                indices.sort_unstable();
                assert_eq!(indices, (0..len).collect::<Vec<_>>(), "{order:?}, {len}");
            }
        }
    }

    #[test]
    fn index_is_one_position_of_the_epoch() {
        let order = Shuffle { seed: 9 };
        let whole = listed(&*order.epoch(2, 50).unwrap());
        for (position, &index) in whole.iter().enumerate() {
            assert_eq!(order.index(2, position, 50).unwrap(), Some(index));
        }
        assert_eq!(order.index(2, 50, 50).unwrap(), None);
    }

    #[test]
    fn descriptions_name_the_parameters() {
        assert_eq!(Sequential.describe(), "sequential");
        assert_eq!(Shuffle { seed: 3 }.describe(), "index-shuffle(seed=3)");
        assert_eq!(
            LowDiscrepancy { offset: -2 }.describe(),
            "low-discrepancy(offset=-2)"
        );
        assert_ne!(
            Listed::new([1, 2]).describe(),
            Listed::new([2, 1]).describe()
        );
    }
}

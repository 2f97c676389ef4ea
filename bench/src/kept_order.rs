//! [`Kept`]: an [`Order`] whose last epoch's order is made once and kept,
//! as the peers keep theirs.

use std::sync::{Arc, Mutex, PoisonError};

use adl::graph::loader::{EpochOrder, Order};

/// `O`, with the order of the epoch it made last kept: an epoch asked for
/// again (the protocol runs epoch 0 twice, cold then warm) reuses it
/// rather than making it again.
///
/// The workloads' timed part is reading, transforming, collating and
/// handing over batches, not making the order (`WORKLOADS.md`, "Where the
/// data lives"), and the peers make theirs once, outside their timed
/// epochs: `peer_torch.py`'s `FixedOrder` when its loader is built, the C
/// limit's `perm` before its epochs. Without this, adl's warm epoch sorted
/// W1's 200,000 keys again on the consumer's thread while the workers
/// waited, some 3 to 8 ms of a 10 ms epoch. The cold epoch still makes it,
/// and each new epoch (`--soak`) makes its own.
#[derive(Debug)]
pub struct Kept<O> {
    order: O,
    last: Mutex<Option<Made>>,
}

/// An epoch's order as made: (epoch, dataset length, the order).
type Made = (u64, usize, Arc<dyn EpochOrder>);

impl<O: Order> Kept<O> {
    /// `order`, its last epoch's order kept.
    pub fn new(order: O) -> Self {
        Kept {
            order,
            last: Mutex::new(None),
        }
    }
}

impl<O: Order> Order for Kept<O> {
    fn len(&self, dataset_len: usize) -> usize {
        self.order.len(dataset_len)
    }

    fn epoch(&self, epoch: u64, dataset_len: usize) -> adl::Result<Arc<dyn EpochOrder>> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((e, n, made)) = last.as_ref()
            && (*e, *n) == (epoch, dataset_len)
        {
            return Ok(Arc::clone(made));
        }
        let made = self.order.epoch(epoch, dataset_len)?;
        *last = Some((epoch, dataset_len, Arc::clone(&made)));
        Ok(made)
    }

    /// The order's own: a state taken under it resumes under `O` too.
    fn describe(&self) -> String {
        self.order.describe()
    }

    fn check(&self, dataset_len: usize) -> adl::Result<()> {
        self.order.check(dataset_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EpochPermutation;

    #[test]
    fn an_epoch_asked_again_is_the_one_made_and_a_new_one_is_made() {
        let order = Kept::new(EpochPermutation { seed: 2024 });
        let first = order.epoch(0, 1000).unwrap();
        assert!(Arc::ptr_eq(&first, &order.epoch(0, 1000).unwrap()));
        let next = order.epoch(1, 1000).unwrap();
        assert!(!Arc::ptr_eq(&first, &next));
        let plain = EpochPermutation { seed: 2024 };
        let positions = |o: &Arc<dyn EpochOrder>| (0..1000).map(|p| o.index(p)).collect::<Vec<_>>();
        assert_eq!(positions(&next), positions(&plain.epoch(1, 1000).unwrap()));
        // Another length is another epoch order.
        assert_eq!(order.epoch(1, 10).unwrap().len(), 10);
        assert_eq!(order.describe(), plain.describe());
    }
}

//! [`ShardOrder`]: one rank's dataset indices for one epoch, computed per
//! position from the epoch's order, so that an epoch over billions of
//! samples starts without building its order.

use std::sync::Arc;

use super::order::EpochOrder;
use super::shard::{Shard, ShardTail};

/// This rank's dataset indices for one epoch, from where it started, in
/// order: position `j` is the epoch order's position `cursor + rank + j *
/// world` (as torch's `DistributedSampler` deals an epoch), wrapping to the
/// start of the order where the tail is padded.
///
/// Each index is computed when it is asked for, in constant time and
/// memory for every sampler but explicit indices (which it shares), so a
/// shuffled epoch of 10^9 samples over 8 ranks takes a few hundred bytes
/// here. [`to_vec`](Self::to_vec) collects it, when a list is wanted.
#[derive(Debug, Clone)]
pub struct ShardOrder {
    order: Arc<dyn EpochOrder>,
    /// Positions of the order consumed (by all ranks) before this shard.
    cursor: usize,
    /// Positions of the order left after the cursor.
    left: usize,
    rank: usize,
    world: usize,
    /// How many indices this rank reads.
    len: usize,
}

impl ShardOrder {
    /// Rank `shard.rank`'s share of `order` after its first `cursor`
    /// positions: what is left is padded (wrapping to the start of the
    /// whole order, so a resumed epoch pads as the uninterrupted one) or cut
    /// to a multiple of the world, and this rank takes every `world`-th
    /// position from its rank on.
    pub(crate) fn new(order: Arc<dyn EpochOrder>, shard: Shard, cursor: usize) -> Self {
        let n = order.len();
        let left = n.saturating_sub(cursor);
        let world = shard.world.max(1);
        let total = if n == 0 {
            0
        } else {
            match shard.tail {
                // Saturating: a dataset of nearly usize::MAX samples (one
                // that holds nothing) pads to the end of the address space.
                ShardTail::Pad => left.div_ceil(world).saturating_mul(world),
                ShardTail::Drop => left / world * world,
            }
        };
        let len = total.saturating_sub(shard.rank).div_ceil(world);
        ShardOrder {
            order,
            cursor: cursor.min(n),
            left,
            rank: shard.rank,
            world,
            len,
        }
    }

    /// The length of the epoch's whole order (all ranks, from its start)
    /// that this shard is of.
    pub(crate) fn order_len(&self) -> usize {
        self.order.len()
    }

    /// How many indices this rank reads.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it reads none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The dataset index at `position`, or `None` past the end.
    pub fn get(&self, position: usize) -> Option<usize> {
        if position >= self.len {
            return None;
        }
        // In range: position < len, so rank + position * world < total,
        // which is at most left + world - 1 (no overflow: total fits).
        let at = self.rank + position * self.world;
        if at < self.left {
            self.order.index(self.cursor + at)
        } else {
            self.order.index((at - self.left) % self.order.len())
        }
    }

    /// The indices at `positions` (clamped to the end), as a list: a
    /// batch's indices.
    pub fn slice(&self, positions: std::ops::Range<usize>) -> Vec<usize> {
        let end = positions.end.min(self.len);
        let start = positions.start.min(end);
        let mut out = Vec::with_capacity(end - start);
        // The positions before the wrap (`rank + j * world < left`) lie
        // `world` apart in the order: asked for in one call.
        let straight = self
            .left
            .saturating_sub(self.rank)
            .div_ceil(self.world)
            .clamp(start, end);
        if straight > start {
            let first = self.cursor + self.rank + start * self.world;
            (self.order).indices_into(first, self.world, straight - start, &mut out);
        }
        out.extend((straight..end).filter_map(|p| self.get(p)));
        out
    }

    /// Every index, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        (0..self.len).map(|p| self.get(p).unwrap_or_default())
    }

    /// Every index, in order, as a list (`len` words of memory).
    pub fn to_vec(&self) -> Vec<usize> {
        self.iter().collect()
    }
}

impl PartialEq<[usize]> for ShardOrder {
    fn eq(&self, other: &[usize]) -> bool {
        self.len == other.len() && self.iter().eq(other.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::order::{Listed, Order, Sequential};

    fn listed(order: Vec<usize>) -> Arc<dyn EpochOrder> {
        Listed::new(order).epoch(0, 0).unwrap()
    }

    fn shard(rank: usize, world: usize, tail: ShardTail) -> Shard {
        Shard { rank, world, tail }
    }

    #[test]
    fn pads_and_drops_like_distributed_sampler() {
        let order = || listed((0..10).collect());
        let pad = |rank| ShardOrder::new(order(), shard(rank, 3, ShardTail::Pad), 0).to_vec();
        assert_eq!(pad(0), vec![0, 3, 6, 9]);
        assert_eq!(pad(1), vec![1, 4, 7, 0]);
        assert_eq!(pad(2), vec![2, 5, 8, 1]);
        let drop = |rank| ShardOrder::new(order(), shard(rank, 3, ShardTail::Drop), 0).to_vec();
        assert_eq!(drop(0), vec![0, 3, 6]);
        assert_eq!(drop(2), vec![2, 5, 8]);
        // The largest dataset there can be, padded over three ranks.
        let huge = ShardOrder::new(
            Sequential.epoch(0, usize::MAX).unwrap(),
            shard(2, 3, ShardTail::Pad),
            0,
        );
        assert_eq!(huge.get(0), Some(2));
        assert!(!huge.is_empty());
        // One index, three ranks: padding wraps as often as it takes.
        let one = |rank| ShardOrder::new(listed(vec![0]), shard(rank, 3, ShardTail::Pad), 0);
        assert_eq!(
            (0..3).map(|r| one(r).to_vec()).collect::<Vec<_>>(),
            [[0], [0], [0]]
        );
        let empty = ShardOrder::new(listed(Vec::new()), shard(1, 3, ShardTail::Pad), 0);
        assert!(empty.is_empty());
    }

    #[test]
    fn after_a_cursor_continues_the_same_sequence() {
        let order = || listed((0..10).map(|i| i * 7 % 10).collect());
        for tail in [ShardTail::Pad, ShardTail::Drop] {
            for rank in 0..3 {
                let whole = ShardOrder::new(order(), shard(rank, 3, tail), 0).to_vec();
                // Two samples consumed on every rank: cursor 2 * world.
                let resumed = ShardOrder::new(order(), shard(rank, 3, tail), 6);
                assert_eq!(resumed.to_vec(), whole[2..].to_vec());
                assert!(resumed == whole[2..]);
            }
        }
        // A cursor past the end leaves nothing.
        assert!(ShardOrder::new(order(), shard(0, 3, ShardTail::Pad), 12).is_empty());
    }

    #[test]
    fn a_slice_is_its_positions_one_by_one() {
        // Every shard of every tail, cursor and world, each slice (past
        // the wrap of a padded tail too) against `get` of each position.
        for n in [0, 1, 7, 10, 23] {
            let order: Vec<usize> = (0..n).map(|i| (i * 7 + 3) % n.max(1)).collect();
            for world in 1..5 {
                for rank in 0..world {
                    for tail in [ShardTail::Pad, ShardTail::Drop] {
                        for cursor in [0, 2, n] {
                            let shard = ShardOrder::new(
                                listed(order.clone()),
                                shard(rank, world, tail),
                                cursor,
                            );
                            for start in 0..shard.len() + 2 {
                                for end in start..shard.len() + 3 {
                                    let one_by_one: Vec<usize> =
                                        (start..end).filter_map(|p| shard.get(p)).collect();
                                    assert_eq!(shard.slice(start..end), one_by_one);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn slices_are_clamped_to_the_end() {
        let order = ShardOrder::new(listed((0..10).collect()), shard(0, 1, ShardTail::Pad), 0);
        assert_eq!(order.slice(8..12), vec![8, 9]);
        assert_eq!(order.slice(12..14), Vec::<usize>::new());
        assert_eq!(order.get(10), None);
    }
}

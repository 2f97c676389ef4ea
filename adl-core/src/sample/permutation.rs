//! [`Permutation`]: a seeded pseudo-random permutation of `0..len`,
//! evaluated one position at a time in constant time and memory (an index
//! shuffle, as Grain's `index_shuffle`), so that an epoch over billions of
//! samples needs no order in memory.

use adl_exec::rng::{SplitMix64, mix64};

/// Feistel rounds. An even number, so that the halves' widths come back to
/// where they started (see [`Permutation`]); eight keep even the smallest
/// domains well mixed (a 4-round network is already a strong permutation
/// for wide halves, not for halves of one or two bits).
const ROUNDS: usize = 8;

/// A pseudo-random permutation of `0..len` that depends only on `(len,
/// key)`: [`get`](Self::get) maps a position to the index placed there,
/// without computing any other position.
///
/// It is a Feistel network over the `bits` bits that `len - 1` needs
/// (so over `2^bits < 2 len` values), its halves `ceil(bits / 2)` and
/// `floor(bits / 2)` bits wide and swapping widths every round, with
/// [`mix64`] of the half and a round key as its round function; a
/// value that lands at or past `len` is put through the network again
/// ("cycle walking"), which stays inside `0..len` and takes fewer than two
/// passes on average. Every position maps to a distinct index: it is a
/// bijection for every `len` and key.
///
/// Constant memory (eight round keys) and constant expected time per
/// position (about twenty nanoseconds), where sorting by random keys takes
/// `16 * len` bytes and `O(len log len)` time before the first index.
///
/// ```
/// use adl::sample::Permutation;
///
/// let p = Permutation::new(10, 42);
/// let mut order: Vec<usize> = p.iter().collect();
/// assert_ne!(order, (0..10).collect::<Vec<_>>());
/// order.sort_unstable();
/// assert_eq!(order, (0..10).collect::<Vec<_>>());
///
/// // A billion positions, and the millionth computed on its own.
/// let huge = Permutation::new(1_000_000_000, 7);
/// assert!(huge.get(1_000_000).is_some_and(|i| i < 1_000_000_000));
/// assert_eq!(huge.get(1_000_000_000), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    len: u64,
    /// The width of the first half (the high bits) before the first round.
    high: u32,
    /// The width of the second half (the low bits) before the first round.
    low: u32,
    keys: [u64; ROUNDS],
}

impl Permutation {
    /// The permutation of `0..len` for `key`. Keys that differ in any bit
    /// give unrelated permutations (the round keys are drawn from
    /// [`mix64`] of the key).
    pub fn new(len: usize, key: u64) -> Self {
        let len = len as u64;
        // The bits of the largest value, len - 1 (none for len <= 1).
        let bits = u64::BITS - len.saturating_sub(1).leading_zeros();
        let mut rng = SplitMix64::new(mix64(key ^ 0x5045_524d_5554_4531));
        Permutation {
            len,
            high: bits.div_ceil(2),
            low: bits / 2,
            keys: std::array::from_fn(|_| rng.next_u64()),
        }
    }

    /// How many positions (and indices) there are.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The index at `position`, or `None` past the end.
    #[inline]
    pub fn get(&self, position: usize) -> Option<usize> {
        let position = position as u64;
        if position >= self.len {
            return None;
        }
        // Cycle walking: the network permutes 0..2^bits, and following a
        // value's cycle from inside 0..len comes back inside it.
        let mut value = self.network(position);
        while value >= self.len {
            value = self.network(value);
        }
        Some(value as usize)
    }

    /// Every index, in the order of their positions.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        (0..self.len()).map(|p| self.get(p).unwrap_or(p))
    }

    /// One pass of the Feistel network over `0..2^(high + low)`: each round
    /// maps halves `(a, b)`, `a` the high `wa` bits and `b` the low `wb`
    /// bits, to `(b, a ^ F(b))`, so the next round's high half is `wb` bits
    /// wide and its low half `wa`. Each round is a bijection (`a` comes
    /// back as `F(b) ^ (a ^ F(b))`), so the network is one too.
    #[inline]
    fn network(&self, value: u64) -> u64 {
        let (mut wa, mut wb) = (self.high, self.low);
        let mut a = value >> wb;
        let mut b = value & mask(wb);
        for key in self.keys {
            let f = mix64(b ^ key) & mask(wa);
            (a, b) = (b, a ^ f);
            (wa, wb) = (wb, wa);
        }
        // After an even number of rounds the widths are back: `a` is `high`
        // bits wide and `b` is `low`.
        (a << wb) | b
    }
}

/// The low `bits` bits set (`bits <= 32`).
#[inline]
fn mask(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(p: &Permutation) -> Vec<usize> {
        let mut all: Vec<usize> = p.iter().collect();
        all.sort_unstable();
        all
    }

    #[test]
    fn every_length_is_a_bijection() {
        for len in (0..300).chain([1023, 1024, 1025, 4097, 65_537]) {
            for key in [0, 1, 2024, u64::MAX] {
                let p = Permutation::new(len, key);
                assert_eq!(p.len(), len);
                assert_eq!(
                    sorted(&p),
                    (0..len).collect::<Vec<_>>(),
                    "len {len} key {key}"
                );
                assert_eq!(p.get(len), None);
            }
        }
    }

    #[test]
    fn keys_give_other_orders() {
        let a: Vec<usize> = Permutation::new(1000, 1).iter().collect();
        let b: Vec<usize> = Permutation::new(1000, 2).iter().collect();
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        // Two unrelated permutations agree at about one position.
        assert!(same < 10, "{same} positions agree");
        assert_eq!(a, Permutation::new(1000, 1).iter().collect::<Vec<_>>());
    }

    #[test]
    fn the_largest_lengths_stay_in_range() {
        for len in [usize::MAX, 1 << 63, (1 << 40) + 3] {
            let p = Permutation::new(len, 9);
            for position in [0, 1, len / 2, len - 1] {
                assert!(p.get(position).is_some_and(|i| i < len));
            }
        }
    }
}

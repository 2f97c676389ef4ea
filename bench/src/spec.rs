//! The spec's formulas (`bench/WORKLOADS.md`, spec version 1), computed
//! without adl: the random words the workloads' data is generated from,
//! the shuffled order of epoch 0 and the nearest reading, from which the
//! expected digests of reduced sizes are computed.
//!
//! Every random word is `u(stream, i, j) = mix64(key(stream, i, j) ^ S)`
//! with `S = mix64(2024)`.

use adl::exec::mix64;

/// The workloads' seed.
pub const SEED: u64 = 2024;

/// `S = mix64(SEED)`.
pub fn s() -> u64 {
    mix64(SEED)
}

/// The random word of `(stream, i, j)`.
#[inline]
pub fn u(stream: u64, i: u64, j: u64) -> u64 {
    mix64(((stream << 56) | (i << 24) | j) ^ s())
}

/// `f32(u >> 40) * 2^-24`, exact, in `[0, 1)`.
#[inline]
pub fn unit(u: u64) -> f32 {
    (u >> 40) as f32 * (1.0 / 16_777_216.0)
}

/// The shuffled order of epoch 0 as the spec defines it: indices sorted by
/// `(u(15, i, 0), i)`. Computed here from the spec, not by adl.
pub fn spec_order(n: usize) -> Vec<usize> {
    let mut keyed: Vec<(u64, usize)> = (0..n).map(|i| (u(15, i as u64, 0), i)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// The spec's `nearest(ts, t)`: the index minimising `|ts[k] - t|`, ties
/// to the smaller index, by binary search.
pub fn spec_nearest(ts: &[i64], t: i64) -> usize {
    let p = ts.partition_point(|&x| x < t);
    if p == ts.len() || (p > 0 && t - ts[p - 1] <= ts[p] - t) {
        p - 1
    } else {
        p
    }
}

#[cfg(test)]
mod checks {
    use super::*;

    #[test]
    fn check_values() {
        assert_eq!(s(), 0xbbbf12ccd68b4479);
        assert_eq!(u(1, 0, 0), 0x50eb5b5ced973855);
        assert_eq!(u(1, 199999, 63), 0x85197cf7f9d202af);
        assert_eq!(f64::from(unit(u(1, 0, 0))), 0.31609123945236206);
    }
}

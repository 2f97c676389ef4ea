//! [`Weighted`]: draws with replacement, each index with a chance in
//! proportion to its weight (as PyTorch's `WeightedRandomSampler`), from
//! (seed, epoch, position) alone.

use std::sync::Arc;

use adl_core::{Error, Result};
use adl_exec::mix64;

use super::{EpochOrder, Order};
use crate::loader::fingerprint::Fnv;

/// `count` draws with replacement each epoch, index `i` drawn with chance
/// `weights[i] / sum(weights)` at every position (PyTorch's
/// `WeightedRandomSampler` with `replacement=True`): for rebalancing rare
/// classes or scenes. The draw at a position depends only on (seed,
/// epoch, position): a table made once (Vose's alias method, `16 n`
/// bytes) answers each in constant time, so an epoch resumes exactly and
/// the ranks agree.
///
/// ```
/// use adl::graph::loader::{Order, Weighted};
///
/// let order = Weighted::new(vec![0.0, 1.0, 3.0], 4_000, 7)?;
/// let epoch = order.epoch(0, 3)?;
/// let drawn: Vec<usize> = (0..epoch.len()).filter_map(|p| epoch.index(p)).collect();
/// assert!(!drawn.contains(&0), "a weight of 0 is never drawn");
/// let threes = drawn.iter().filter(|&&i| i == 2).count();
/// assert!((2_800..3_200).contains(&threes), "{threes}: about 3 in 4");
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Weighted {
    table: Arc<Alias>,
    count: usize,
    seed: u64,
    /// A fingerprint of the weights' bits, for [`describe`](Order::describe).
    fingerprint: u64,
}

/// Vose's alias table: column `c` keeps itself with chance `keep[c]`,
/// else gives `alias[c]`.
#[derive(Debug)]
struct Alias {
    keep: Vec<f64>,
    alias: Vec<usize>,
}

impl Weighted {
    /// `count` draws an epoch from `weights` (one per dataset sample), by
    /// `seed`. The weights must be finite and at least 0, and one above
    /// 0; an error names the first that is not.
    pub fn new(weights: impl Into<Vec<f64>>, count: usize, seed: u64) -> Result<Weighted> {
        let weights = weights.into();
        if let Some((at, w)) =
            (weights.iter().enumerate()).find(|(_, w)| !w.is_finite() || **w < 0.0)
        {
            return Err(Error::invalid(
                "order weights",
                format!("weight {at} is {w}: each must be finite and at least 0"),
            ));
        }
        let sum: f64 = weights.iter().sum();
        if !(sum > 0.0 && sum.is_finite()) {
            return Err(Error::invalid(
                "order weights",
                format!(
                    "{} weights sum to {sum}: at least one must be above 0, and their sum finite",
                    weights.len()
                ),
            ));
        }
        let mut hash = Fnv::new();
        for w in &weights {
            hash.write(&w.to_bits().to_le_bytes());
        }
        Ok(Weighted {
            table: Arc::new(Alias::new(&weights, sum)),
            count,
            seed,
            fingerprint: hash.finish(),
        })
    }
}

impl Alias {
    /// The table of `weights`, which sum to `sum` (above 0).
    fn new(weights: &[f64], sum: f64) -> Alias {
        let n = weights.len();
        let mut keep: Vec<f64> = weights.iter().map(|w| w * n as f64 / sum).collect();
        let mut alias: Vec<usize> = (0..n).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| keep[i] < 1.0);
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            alias[s] = l;
            keep[l] -= 1.0 - keep[s];
            if keep[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // What is left is 1 up to rounding.
        for i in small.into_iter().chain(large) {
            keep[i] = 1.0;
        }
        Alias { keep, alias }
    }

    /// The index drawn by the 64 random bits `bits`.
    #[inline]
    fn draw(&self, bits: u64) -> usize {
        let column = ((u128::from(bits) * self.keep.len() as u128) >> 64) as usize;
        let coin = (mix64(bits) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        match coin < self.keep[column] {
            true => column,
            false => self.alias[column],
        }
    }
}

/// An epoch of [`Weighted`]: its draws, keyed by the epoch.
#[derive(Debug)]
struct Draws {
    table: Arc<Alias>,
    count: usize,
    key: u64,
}

impl EpochOrder for Draws {
    fn len(&self) -> usize {
        self.count
    }

    #[inline]
    fn index(&self, position: usize) -> Option<usize> {
        (position < self.count).then(|| self.table.draw(mix64(self.key ^ mix64(position as u64))))
    }
}

impl Order for Weighted {
    fn len(&self, _dataset_len: usize) -> usize {
        self.count
    }

    fn epoch(&self, epoch: u64, _dataset_len: usize) -> Result<Arc<dyn EpochOrder>> {
        Ok(Arc::new(Draws {
            table: Arc::clone(&self.table),
            count: self.count,
            key: mix64(self.seed ^ mix64(epoch ^ 0x5745_4947_4854)),
        }))
    }

    /// Its size, draws, seed and a fingerprint of its weights.
    fn describe(&self) -> String {
        format!(
            "weighted(n={}, count={}, seed={}, fnv={:016x})",
            self.table.keep.len(),
            self.count,
            self.seed,
            self.fingerprint
        )
    }

    fn check(&self, dataset_len: usize) -> Result<()> {
        match self.table.keep.len() == dataset_len {
            true => Ok(()),
            false => Err(Error::invalid(
                "order weights",
                format!(
                    "{} weights for a dataset of {dataset_len} samples: give one per sample",
                    self.table.keep.len()
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(order: &Weighted, epoch: u64) -> Vec<usize> {
        let e = order.epoch(epoch, order.table.keep.len()).unwrap();
        (0..e.len()).filter_map(|p| e.index(p)).collect()
    }

    #[test]
    fn each_index_comes_as_often_as_its_weight_says() {
        let weights = [1.0, 0.0, 2.0, 4.0, 0.5, 0.5];
        let draws = 200_000;
        let order = Weighted::new(weights, draws, 11).unwrap();
        let mut counts = [0usize; 6];
        for i in drawn(&order, 0) {
            counts[i] += 1;
        }
        let sum: f64 = weights.iter().sum();
        for (i, &w) in weights.iter().enumerate() {
            let p = w / sum;
            let expected = p * draws as f64;
            // Five standard deviations of a binomial count.
            let sd = (draws as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (counts[i] as f64 - expected).abs() <= 5.0 * sd,
                "index {i}: {} drawn, {expected} expected",
                counts[i]
            );
        }
        assert_eq!(counts[1], 0, "a weight of 0 is never drawn");
    }

    #[test]
    fn a_draw_is_its_seed_epoch_and_position() {
        let order = |seed| Weighted::new(vec![1.0; 100], 300, seed).unwrap();
        assert_eq!(drawn(&order(1), 0), drawn(&order(1), 0));
        assert_ne!(drawn(&order(1), 0), drawn(&order(1), 1));
        assert_ne!(drawn(&order(1), 0), drawn(&order(2), 0));
        assert_eq!(
            order(1).index(0, 250, 100).unwrap(),
            Some(drawn(&order(1), 0)[250])
        );
        assert_eq!(order(1).index(0, 300, 100).unwrap(), None);
    }

    #[test]
    fn bad_weights_are_refused_naming_the_first() {
        let err = Weighted::new(vec![1.0, f64::NAN], 4, 0)
            .unwrap_err()
            .to_string();
        assert!(err.contains("weight 1 is NaN"), "{err}");
        let err = Weighted::new(vec![1.0, -2.0], 4, 0)
            .unwrap_err()
            .to_string();
        assert!(err.contains("weight 1 is -2"), "{err}");
        let err = Weighted::new(vec![0.0, 0.0], 4, 0).unwrap_err().to_string();
        assert!(err.contains("sum to 0"), "{err}");
        let err = Weighted::new(Vec::new(), 4, 0).unwrap_err().to_string();
        assert!(err.contains("0 weights"), "{err}");
        let err = Weighted::new(vec![1.0; 3], 4, 0)
            .unwrap()
            .check(5)
            .unwrap_err();
        assert!(
            err.to_string().contains("3 weights for a dataset of 5"),
            "{err}"
        );
    }
}
